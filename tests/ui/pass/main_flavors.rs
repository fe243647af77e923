use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use std::time::Duration;

/// Answer after a pause: a handler that waits on the runtime's timer and its blocking pool.
#[mcp_tool]
async fn later(text: String) -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    tokio::task::spawn_blocking(move || text).await.unwrap()
}

async fn call_later() {
    let client = TestClient::connect(server!().tools(tools![later])).await;
    let result = client.call_tool("later", serde_json::json!({"text": "hi"})).await.unwrap();
    assert_eq!(result.text(), Some("hi"));
}

#[mcp_runtime::main(flavor = "current_thread")]
async fn on_the_main_thread() {
    call_later().await;
}

#[mcp_runtime::main(flavor = "multi_thread", worker_threads = 1)]
async fn on_one_worker() {
    call_later().await;
}

fn main() {
    on_the_main_thread();
    on_one_worker();
}
