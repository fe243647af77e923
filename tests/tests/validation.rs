//! Arguments checked against what the input schema advertises (feature `validation`, on by
//! default: these tests need no feature of their own): bounds from `#[mcp(range(..))]`,
//! `#[mcp(length(..))]`, `#[mcp(pattern = ..)]`, `#[schemars(..)]` on a struct's fields, and every
//! keyword of a hand-written `input_schema` (`enum`, `const`, `required`, `additionalProperties`,
//! `format`, the combinators) are in the schema, and a call that breaks one is a tool error
//! naming the field, before the function runs. A server that turns the checks off says so.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_tests::log::CapturedLog;
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

static REGISTERED: AtomicUsize = AtomicUsize::new(0);

/// Registers a contact: every keyword its hand-written schema says is checked, none by serde.
#[mcp_tool(input_schema = r#"{
    "type": "object",
    "properties": {
        "color": {"type": "string", "enum": ["red", "green"]},
        "version": {"const": 2},
        "contact": {"type": "string", "format": "email"},
        "home": {"type": "string", "format": "uri"},
        "amount": {"oneOf": [{"type": "integer", "multipleOf": 5}, {"type": "integer", "multipleOf": 3}]},
        "note": {"type": "string"}
    },
    "required": ["color", "note"],
    "additionalProperties": false
}"#)]
fn register(
    color: String,
    version: Option<u32>,
    contact: Option<String>,
    home: Option<String>,
    amount: Option<i64>,
    note: Option<String>,
) -> String {
    REGISTERED.fetch_add(1, Ordering::SeqCst);
    let _ = (version, contact, home, amount, note);
    format!("registered {color}")
}

static ORDERED: AtomicUsize = AtomicUsize::new(0);

/// An order: the attack's schema, derived. serde alone takes any size and ignores extra fields.
#[derive(Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Order {
    #[schemars(extend("enum" = ["small", "large"]))]
    size: String,
}

/// Places an order.
#[mcp_tool]
fn order(order: Order) -> String {
    ORDERED.fetch_add(1, Ordering::SeqCst);
    format!("ordered {}", order.size)
}

fn tools() -> mcp_runtime::ToolSet {
    tools![rate, ship, echo, plain, register, order]
}

async fn client() -> TestClient {
    TestClient::connect(server!().tools(tools())).await
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

/// Each keyword of a hand-written schema, broken alone, refuses the call with a message naming
/// the field and the keyword, and the function does not run.
#[tokio::test]
async fn every_keyword_of_a_hand_written_schema_is_enforced() {
    let client = client().await;
    let call = |arguments: Value| client.request("tools/call", json!({"name": "register", "arguments": arguments}));
    let good = json!({"color": "red", "version": 2, "contact": "ada@example.com", "home": "https://example.com/ada", "amount": 10, "note": ""});
    assert_eq!(text(&call(good.clone()).await.unwrap()), "registered red");
    let cases = [
        ("color", json!("blue"), "`color`: \"blue\" is not one of \"red\" or \"green\" (enum)"),
        ("version", json!(3), "`version`: 2 was expected (const)"),
        ("contact", json!("not-an-address"), "`contact`: \"not-an-address\" is not a \"email\" (format)"),
        ("home", json!("no uri here"), "`home`: \"no uri here\" is not a \"uri\" (format)"),
        ("amount", json!(7), "`amount`: 7 is not valid under any of the schemas listed in the 'oneOf' keyword (oneOf)"),
        (
            "amount",
            json!(15),
            "`amount`: 15 is valid under more than one of the schemas listed in the 'oneOf' keyword (oneOf)",
        ),
        ("admin", json!(true), "`admin`: not allowed (additionalProperties)"),
    ];
    for (field, value, problem) in cases {
        let mut bad = good.clone();
        bad[field] = value;
        let result = call(bad).await.unwrap();
        assert_eq!(result["isError"], true, "{field}: {result}");
        assert_eq!(text(&result), format!("invalid arguments for tool `register`: {problem}"), "{field}");
    }
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("note");
    let result = call(missing).await.unwrap();
    assert_eq!(text(&result), "invalid arguments for tool `register`: `note`: missing (required)");
    assert_eq!(REGISTERED.load(Ordering::SeqCst), 1, "only the good call ran");
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

/// The attack (issue 31, row 7): a derived schema with `enum` and `additionalProperties: false`
/// from `#[schemars(..)]`, sent a value outside the enum and an extra field, is refused naming
/// both; serde alone would have run the tool.
#[tokio::test]
async fn an_enum_and_a_closed_object_from_schemars_are_enforced() {
    let client = client().await;
    let bad = json!({"name": "order", "arguments": {"order": {"size": "huge", "coupon": "FREE"}}});
    let result = client.request("tools/call", bad).await.unwrap();
    assert_eq!(result["isError"], true, "{result}");
    let message = text(&result);
    assert!(message.contains("`order.size`: \"huge\" is not one of") && message.contains("(enum)"), "{message}");
    assert!(message.contains("`order.coupon`: not allowed (additionalProperties)"), "{message}");
    assert_eq!(ORDERED.load(Ordering::SeqCst), 0, "the function did not run");
    let good = json!({"name": "order", "arguments": {"order": {"size": "large"}}});
    assert_eq!(text(&client.request("tools/call", good).await.unwrap()), "ordered large");
}

static UNCHECKED: AtomicUsize = AtomicUsize::new(0);

/// Takes a small number (unchecked, on the server that turns the checks off).
#[mcp_tool]
fn small(#[mcp(range(max = 3))] n: u8) -> u8 {
    UNCHECKED.fetch_add(1, Ordering::SeqCst);
    n
}

/// A server that turns the checks off warns when it starts, naming each tool whose schema
/// says more than its types (not `plain`), and then runs what it is sent.
#[tokio::test]
async fn a_server_that_turns_the_checks_off_says_so_at_start() {
    let (log, _capturing) = CapturedLog::start();
    let client = TestClient::connect(server!().tools(tools![small, plain, echo]).check_arguments(false)).await;
    let warnings = log.lines_with("are not checked before they run");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let warning = &warnings[0];
    assert!(warning.contains("WARN") && warning.contains("`Server::check_arguments(false)`"), "{warning}");
    assert!(warning.contains("small, echo") && !warning.contains("plain"), "{warning}");
    let result = client.request("tools/call", json!({"name": "small", "arguments": {"n": 9}})).await.unwrap();
    assert_eq!(text(&result), "9");
    assert_eq!(UNCHECKED.load(Ordering::SeqCst), 1);

    // Checked (the default): no warning.
    let (log, _capturing) = CapturedLog::start();
    let _client = TestClient::connect(server!().tools(tools![small, plain, echo])).await;
    assert!(log.lines_with("are not checked").is_empty());
}

static GUARDED: AtomicUsize = AtomicUsize::new(0);

/// A name that must not start with `admin`: a look-ahead, which this build's regexes lack.
#[mcp_tool(
    input_schema = r#"{"type": "object", "properties": {"name": {"type": "string", "pattern": "^(?!admin)"}}, "required": ["name"]}"#
)]
fn guarded(name: String) -> String {
    GUARDED.fetch_add(1, Ordering::SeqCst);
    name
}

/// A schema with a part this build cannot check fails closed: the server warns, naming the tool
/// and the keyword, and each call is a tool error saying which keyword of which argument, without
/// running the function (it used to run unchecked).
#[tokio::test]
async fn a_schema_this_build_cannot_check_refuses_its_tool() {
    let (log, _capturing) = CapturedLog::start();
    let client = TestClient::connect(server!().tools(tools![guarded, plain])).await;
    for _ in 0..2 {
        let result =
            client.request("tools/call", json!({"name": "guarded", "arguments": {"name": "ada"}})).await.unwrap();
        assert_eq!(result["isError"], true, "{result}");
        let message = text(&result);
        assert!(
            message.starts_with("tool `guarded` cannot be called: this build cannot check its input schema: `pattern` of `name` (regex-lite cannot compile `^(?!admin)`"),
            "{message}"
        );
    }
    assert_eq!(GUARDED.load(Ordering::SeqCst), 0, "the function did not run");
    let warnings = log.lines_with("parts this build cannot check");
    assert_eq!(warnings.len(), 1, "warned once: {warnings:?}");
    assert!(
        warnings[0].contains("WARN") && warnings[0].contains("guarded") && warnings[0].contains("`pattern` of `name`"),
        "{}",
        warnings[0]
    );
    let result = client.request("tools/call", json!({"name": "plain", "arguments": {"count": 7}})).await.unwrap();
    assert_eq!(text(&result), "7", "other tools are unaffected");
}
