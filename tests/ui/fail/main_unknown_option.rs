#[mcp_runtime::main(threads = 4)]
async fn main() {}
