//! Arguments checked against what the input schema advertises (feature `validation`): bounds
//! from `#[mcp(range(..))]`, `#[mcp(length(..))]`, `#[mcp(pattern = ..)]`, `#[schemars(..)]` on
//! a struct's fields and a hand-written `input_schema` are in the schema, and a call that breaks
//! one is a tool error naming the field, before the function runs.
#![cfg(feature = "validation")]

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_tests::spec_2025_11_25;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};

static RATED: AtomicUsize = AtomicUsize::new(0);

/// Rates a product.
#[mcp_tool]
fn rate(
    #[mcp(range(min = 1, max = 5))] stars: u8,
    #[mcp(length(min = 1, max = 10))] reviewer: String,
    #[mcp(pattern = "^[A-Z]{3}[0-9]{2}$")] product: String,
) -> String {
    RATED.fetch_add(1, Ordering::SeqCst);
    format!("{reviewer} gave {product} {stars} stars")
}

/// An address.
#[derive(Deserialize, JsonSchema)]
struct Address {
    #[schemars(length(min = 2, max = 2))]
    country: String,
}

/// Ships to an address.
#[mcp_tool]
fn ship(to: Address) -> String {
    format!("shipping to {}", to.country)
}

/// Echoes a short text.
#[mcp_tool(
    input_schema = r#"{"type": "object", "properties": {"text": {"type": "string", "maxLength": 5}}, "required": ["text"]}"#
)]
fn echo(text: String) -> String {
    text
}

/// A tool with plain types only: no check.
#[mcp_tool]
fn plain(count: u32) -> u32 {
    count
}

async fn client() -> TestClient {
    TestClient::connect(server!().tools(tools![rate, ship, echo, plain])).await
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn constraints_are_advertised_and_enforced_before_the_function_runs() {
    let client = client().await;
    let tools = client.request("tools/list", json!({})).await.unwrap();
    let rate = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "rate").unwrap();
    let properties = &rate["inputSchema"]["properties"];
    assert_eq!((properties["stars"]["minimum"].clone(), properties["stars"]["maximum"].clone()), (json!(1), json!(5)));
    assert_eq!(properties["reviewer"]["maxLength"], 10);
    assert_eq!(properties["product"]["pattern"], "^[A-Z]{3}[0-9]{2}$");

    let good = json!({"name": "rate", "arguments": {"stars": 4, "reviewer": "ada", "product": "ABC12"}});
    let result = client.request("tools/call", good).await.unwrap();
    assert_eq!(text(&result), "ada gave ABC12 4 stars");
    assert_eq!(RATED.load(Ordering::SeqCst), 1);

    let bad = json!({"name": "rate", "arguments": {"stars": 9, "reviewer": "", "product": "abc"}});
    let result = client.request("tools/call", bad).await.unwrap();
    assert_eq!(result["isError"], true);
    let message = text(&result);
    for field in ["`stars`", "`reviewer`", "`product`"] {
        assert!(message.contains(field), "{field} is named: {message}");
    }
    assert_eq!(RATED.load(Ordering::SeqCst), 1, "the function did not run");

    let result =
        client.request("tools/call", json!({"name": "ship", "arguments": {"to": {"country": "FRA"}}})).await.unwrap();
    assert!(result["isError"] == true && text(&result).contains("`to.country`"), "{result}");
    let result =
        client.request("tools/call", json!({"name": "echo", "arguments": {"text": "too long"}})).await.unwrap();
    assert!(result["isError"] == true && text(&result).contains("`text`"), "{result}");
    let result = client.request("tools/call", json!({"name": "plain", "arguments": {"count": 7}})).await.unwrap();
    assert_eq!(text(&result), "7");
    spec_2025_11_25().assert_all_valid(&client.transcript());
}
