#[mcp_runtime::main(flavor = "current_thread")]
async fn main() {}
