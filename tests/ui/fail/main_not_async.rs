#[mcp_runtime::main]
fn main() {}
