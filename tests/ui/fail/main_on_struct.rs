#[mcp_runtime::main]
struct Server;

fn main() {}
