//! Typed client calls from the same declarations (feature `client`): `add::call(&client, ..)`
//! for a tool, `note::read(&client, ..)` for a resource, `review::get(&client, ..)` for a
//! prompt, against a server built from the very functions, over HTTP in both protocol eras;
//! and calls generated from a saved surface file (`client_stubs!`) against the example servers
//! over stdio.
#![cfg(feature = "client")]

use mcp_runtime::client::{Client, ClientError, Negotiation};
use mcp_runtime::prelude::*;
use mcp_runtime::{GetPromptResult, Json};

/// Adds two numbers.
#[mcp_tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Greets someone, saying which protocol the call came over.
#[mcp_tool]
fn greet(name: String, ctx: Context) -> String {
    let _ = ctx;
    format!("Hello, {name}!")
}

/// Summary statistics.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Stats {
    count: usize,
    mean: f64,
}

/// Summarizes numbers (structured output).
#[mcp_tool]
fn stats(values: Vec<f64>) -> Json<Stats> {
    let count = values.len();
    Json(Stats { count, mean: values.iter().sum::<f64>() / count.max(1) as f64 })
}

/// A bare number as structured output (it travels as `{"result": n}`).
#[mcp_tool]
fn answer() -> Json<u32> {
    Json(42)
}

/// Divides, refusing zero.
#[mcp_tool]
fn divide(a: f64, b: f64) -> Result<f64, String> {
    if b == 0.0 { Err("cannot divide by zero".into()) } else { Ok(a / b) }
}

/// Says whether a flag was given.
#[mcp_tool(name = "flag-state")]
fn flag(#[mcp(rename = "on")] flag: Option<bool>) -> String {
    format!("{flag:?}")
}

/// A point, as tools usually take one: `Deserialize` only.
#[derive(Deserialize, JsonSchema)]
struct Point {
    x: f64,
}

/// A report, as tools usually return one: `Serialize` only.
#[derive(Serialize, JsonSchema)]
struct Report {
    x: f64,
}

/// Takes and returns types that only go one way: the server compiles with typed calls as
/// without, and a typed call says at run time what the types lack.
#[mcp_tool]
fn plot(point: Point) -> Json<Report> {
    Json(Report { x: point.x })
}

/// A note by name.
#[mcp_resource(uri = "notes://{name}", mime_type = "text/plain")]
fn note(name: String) -> String {
    format!("the note called {name}")
}

/// The read-me.
#[mcp_resource(uri = "docs://readme")]
fn readme() -> &'static str {
    "read me"
}

/// Reviews code.
#[mcp_prompt]
fn review(code: String, language: Option<String>) -> String {
    format!("Review this {} code: {code}", language.as_deref().unwrap_or("unknown"))
}

async fn serve() -> String {
    let server = server!()
        .tools(tools![add, greet, stats, answer, divide, flag, plot])
        .resources(resources![note, readme])
        .prompts(prompts![review]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(server.into_http_service(Default::default()).unwrap().serve(listener, std::future::pending()));
    format!("http://{address}/mcp")
}

fn text_of(prompt: &GetPromptResult) -> String {
    serde_json::to_value(prompt).unwrap()["messages"][0]["content"]["text"].as_str().unwrap().to_owned()
}

async fn typed_calls_work(client: &Client) {
    assert_eq!(add::call(client, 1.5, 2.0).await.unwrap(), 3.5);
    assert_eq!(greet::call(client, "Ada".into()).await.unwrap(), "Hello, Ada!");
    assert_eq!(stats::call(client, vec![1.0, 2.0, 6.0]).await.unwrap(), Stats { count: 3, mean: 3.0 });
    assert_eq!(answer::call(client).await.unwrap(), 42);
    assert_eq!(divide::call(client, 1.0, 4.0).await.unwrap(), 0.25);
    match divide::call(client, 1.0, 0.0).await {
        Err(ClientError::Tool(result)) => assert_eq!(result.text(), Some("cannot divide by zero")),
        other => panic!("a tool error, typed: {other:?}"),
    }
    assert_eq!(flag::call(client, Some(true)).await.unwrap(), "Some(true)");
    assert_eq!(flag::call(client, None).await.unwrap(), "None");

    match plot::call(client, Point { x: 1.0 }).await {
        Err(ClientError::InvalidArguments(why)) => assert!(why.contains("Point") && why.contains("Serialize"), "{why}"),
        other => panic!("the argument's missing Serialize, at run time: {:?}", other.err()),
    }

    // Template variables are expanded (and encoded) into the URI the server matches back.
    assert_eq!(note::read(client, "a b/c".into()).await.unwrap(), "the note called a b/c");
    assert_eq!(readme::read(client).await.unwrap(), "read me");

    let rendered = review::get(client, "fn main() {}".into(), Some("Rust".into())).await.unwrap();
    assert_eq!(text_of(&rendered), "Review this Rust code: fn main() {}");
    let rendered = review::get(client, "x".into(), None).await.unwrap();
    assert_eq!(text_of(&rendered), "Review this unknown code: x");
}

#[tokio::test]
async fn typed_calls_in_the_2026_07_28_era() {
    let url = serve().await;
    let client = Client::builder().negotiation(Negotiation::Auto).connect_http(&url).await.unwrap();
    assert_eq!(client.protocol_version().as_str(), "2026-07-28");
    typed_calls_work(&client).await;
}

#[tokio::test]
async fn typed_calls_in_a_2025_11_25_session() {
    let url = serve().await;
    let client = Client::builder().negotiation(Negotiation::Handshake).connect_http(&url).await.unwrap();
    assert_eq!(client.protocol_version().as_str(), "2025-11-25");
    typed_calls_work(&client).await;
    client.close().await;
}

mcp_runtime::client_stubs!(mod calculator = "data/calculator-surface.json");
mcp_runtime::client_stubs!(mod notes = "data/notes-surface.json");

fn example(name: &str) -> tokio::process::Command {
    tokio::process::Command::new(mcp_tests::external::example_binary(name))
}

#[tokio::test]
async fn calls_generated_from_a_saved_surface_reach_the_example_servers() {
    let client = Client::stdio(example("calculator")).await.unwrap();
    assert_eq!(calculator::add(&client, 2.0, 3.0).await.unwrap().text(), Some("5"));
    match calculator::divide(&client, 1.0, 0.0).await {
        Err(ClientError::Tool(result)) => assert!(result.text().unwrap().contains("zero"), "{result:?}"),
        other => panic!("a tool error: {other:?}"),
    }
    client.close().await;

    let folder = mcp_tests::cluster::TempDir::new("client-stubs-notes");
    let client = Client::stdio({
        let mut notes = example("notes");
        notes.arg(folder.path());
        notes
    })
    .await
    .unwrap();
    let added = notes::add_note(&client, "stubs".into(), "typed calls".into()).await.unwrap();
    assert!(!added.is_error, "{added:?}");
    let read = notes::resources::read_note(&client, "stubs").await.unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap()["contents"][0]["text"], "typed calls");
    let index = notes::resources::read_index(&client).await.unwrap();
    assert!(serde_json::to_value(&index).unwrap()["contents"][0]["text"].as_str().unwrap().contains("stubs"));
    let summary = notes::prompts::get_summarize_note(&client, "stubs").await.unwrap();
    assert!(serde_json::to_value(&summary).unwrap().to_string().contains("typed calls"));
    client.close().await;
}

mcp_runtime::client_stubs!(mod everything = "data/everything-surface.json");

/// Calls generated from the surface of a server nobody here wrote: the official TypeScript
/// `server-everything` (`scripts/server-everything.sh` installs it), over stdio.
#[tokio::test]
async fn calls_generated_from_a_saved_surface_reach_server_everything() {
    let mut command = tokio::process::Command::new(mcp_tests::external::node());
    command.arg(mcp_tests::external::server_everything()).arg("stdio");
    let client =
        Client::builder().stderr(mcp_runtime::client::StderrMode::Discard).connect_stdio(command).await.unwrap();
    // `get-sum` is `get_sum`; numbers typed from the schema.
    let sum = everything::get_sum(&client, 2.0, 3.0).await.unwrap();
    assert!(sum.text().unwrap().contains('5'), "{sum:?}");
    let echoed = everything::echo(&client, "typed".into()).await.unwrap();
    assert!(echoed.text().unwrap().contains("typed"), "{echoed:?}");
    // A tool with an output schema returns its structured content.
    let weather = everything::get_structured_content(&client, "Chicago".into()).await.unwrap();
    assert!(weather.is_object() && !weather.as_object().unwrap().is_empty(), "{weather}");
    // An optional argument left out is not sent.
    let links = everything::get_resource_links(&client, None).await.unwrap();
    assert!(!links.is_error, "{links:?}");

    let text = everything::resources::read_dynamic_text_resource(&client, "2").await.unwrap();
    let text = serde_json::to_value(&text).unwrap();
    assert_eq!(text["contents"][0]["uri"], "demo://resource/dynamic/text/2", "{text}");
    let document = everything::resources::read_architecture_md(&client).await.unwrap();
    assert!(!document.contents.is_empty());

    let prompt = everything::prompts::get_args_prompt(&client, "Paris", None).await.unwrap();
    assert!(serde_json::to_value(&prompt).unwrap().to_string().contains("Paris"), "{prompt:?}");
    client.close().await;
}

mcp_runtime::client_stubs!(mod python = "data/python-surface.json");

/// Calls generated from the surface of a server written with the official Python SDK
/// (`tests/python/client_server.py`, in the venv of `scripts/python-env.sh`), over stdio in
/// both eras: its tools all have output schemas, so each call returns the structured content.
#[tokio::test]
async fn calls_generated_from_a_saved_surface_reach_a_python_sdk_server() {
    for era in [Negotiation::Stateless, Negotiation::Handshake] {
        let mut command = tokio::process::Command::new(mcp_tests::external::python());
        command.arg(mcp_tests::external::python_server()).arg("stdio");
        let client = Client::builder().negotiation(era).connect_stdio(command).await.unwrap();
        assert_eq!(python::add(&client, 2, 40).await.unwrap(), serde_json::json!({"result": 42}), "{era:?}");
        let counted = python::count_to(&client, 3).await.unwrap();
        assert_eq!(counted, serde_json::json!({"result": "counted to 3"}), "{era:?}");
        let note = python::resources::read_hello(&client).await.unwrap();
        assert_eq!(serde_json::to_value(&note).unwrap()["contents"][0]["uri"], "note://hello");
        let greeting = python::prompts::get_greet(&client, "Ada").await.unwrap();
        assert!(serde_json::to_value(&greeting).unwrap().to_string().contains("Ada"), "{greeting:?}");
        client.close().await;
    }
}
