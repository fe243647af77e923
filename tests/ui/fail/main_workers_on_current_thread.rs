#[mcp_runtime::main(flavor = "current_thread", worker_threads = 2)]
async fn main() {}

#[mcp_runtime::main(worker_threads = 0)]
async fn no_workers() {}
