//! Tools, resources and prompts built at run time (`ToolDescriptor::builder`,
//! `ResourceDescriptor::builder`, `PromptDescriptor::builder`): served as the macros' items are,
//! in both eras (argument checks, structured output, tool errors, middleware, tasks, listing),
//! added to and removed from a running server with `list_changed`, every message checked against
//! the official schema.

use mcp_runtime::middleware::{Middleware, RequestInfo, Verdict};
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    Completion, ErrorKind, PromptDescriptor, ResourceDescriptor, ResourceNotFound, TaskSupport, ToolAnnotations,
    ToolDescriptor, ToolSet,
};
use mcp_tests::{spec_2025_11_25, spec_2026_07_28};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `divide`, built from JSON: checked arguments, structured output, an error as a tool error.
fn divide(calls: Arc<AtomicUsize>) -> ToolDescriptor {
    ToolDescriptor::builder("divide")
        .title("Divide")
        .description("Divides one number by another.")
        .input_schema(json!({
            "type": "object",
            "properties": {
                "dividend": {"type": "number"},
                "divisor": {"type": "number", "not": {"const": 0}},
                "label": {"type": "string", "maxLength": 8},
            },
            "required": ["dividend", "divisor"],
        }))
        .output_schema(json!({
            "type": "object",
            "properties": {"quotient": {"type": "number"}},
            "required": ["quotient"],
        }))
        .annotations(ToolAnnotations { read_only: Some(true), ..ToolAnnotations::default() })
        .handler(move |arguments, _ctx| {
            calls.fetch_add(1, Ordering::SeqCst);
            async move {
                let quotient = arguments["dividend"].as_f64().unwrap_or_default()
                    / arguments["divisor"].as_f64().unwrap_or_default();
                match quotient.is_finite() {
                    true => Ok(Json(json!({ "quotient": quotient }))),
                    false => Err(format!("{quotient} is not a number a client can read")),
                }
            }
        })
        .build()
        .unwrap()
}

/// Echoes its text, a macro tool beside the built ones.
#[mcp_tool]
fn echo(text: String) -> String {
    text
}

fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

#[tokio::test]
async fn a_built_tool_is_listed_checked_and_called_as_a_macro_tool_in_both_eras() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = || server!().tools(tools![echo]).tools(divide(Arc::clone(&calls)).into());

    let session = TestClient::connect_with_version(server(), "2025-11-25").await;
    let listed = session.list_tools().await.unwrap();
    let divide_listed = listed.iter().find(|t| t["name"] == "divide").expect("divide is listed");
    assert_eq!(divide_listed["title"], "Divide");
    assert_eq!(divide_listed["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(divide_listed["inputSchema"]["properties"]["divisor"], json!({"type": "number", "not": {"const": 0}}));
    assert_eq!(divide_listed["outputSchema"]["required"], json!(["quotient"]));

    let quotient = session.call_tool("divide", json!({"dividend": 7, "divisor": 2})).await.unwrap();
    assert_eq!(quotient.structured_content, Some(json!({"quotient": 3.5})));
    assert_eq!(quotient.text(), Some(r#"{"quotient":3.5}"#));
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // The schema's constraints are checked before the handler runs, as a macro tool's are.
    let refused = session.call_tool("divide", json!({"dividend": 7, "divisor": 0, "label": "far too long"})).await;
    let refused = refused.unwrap();
    assert!(refused.is_error, "{refused:?}");
    let text = refused.text().unwrap();
    assert!(text.contains("divisor") && text.contains("label"), "{text}");
    let missing = session.call_tool("divide", json!({"dividend": 7})).await.unwrap();
    assert!(missing.is_error && missing.text().unwrap().contains("divisor"), "{missing:?}");
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the handler never saw arguments that break the schema");

    // An `Err` the handler returns is a tool error result.
    let overflow = session.call_tool("divide", json!({"dividend": 1e308, "divisor": 1e-308})).await.unwrap();
    assert!(overflow.is_error && overflow.text().unwrap().contains("not a number"), "{overflow:?}");
    spec_2025_11_25().assert_all_valid(&session.transcript());

    let stateless = TestClient::connect_uninitialized(server());
    let params = json!({"name": "divide", "arguments": {"dividend": 1, "divisor": 4}, "_meta": stateless_meta()});
    let answer = stateless.request("tools/call", params).await.unwrap();
    assert_eq!((&answer["resultType"], &answer["structuredContent"]), (&json!("complete"), &json!({"quotient": 0.25})));
    let listed = stateless.request("tools/list", json!({"_meta": stateless_meta()})).await.unwrap();
    assert!(listed["tools"].as_array().unwrap().iter().any(|t| t["name"] == "divide"), "{listed}");
    spec_2026_07_28().assert_all_valid(&stateless.transcript());
}

#[tokio::test]
async fn tools_built_while_the_server_runs_are_announced_callable_and_removable() {
    let server = server!().tools(tools![echo]);
    let handle = server.handle();
    let client = TestClient::connect_with_version(server, "2025-11-25").await;

    let shout = ToolDescriptor::builder("shout")
        .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
        .handler(|arguments, _ctx| async move { arguments["text"].as_str().unwrap_or_default().to_uppercase() })
        .build()
        .unwrap();
    let whisper = ToolDescriptor::builder("whisper").handler(|_arguments, _ctx| async { "psst" }).build().unwrap();
    handle.add_tools(ToolSet::from_iter([shout, whisper])).unwrap();
    assert_eq!(client.next_message().await["method"], "notifications/tools/list_changed");
    let names: Vec<Value> = client.list_tools().await.unwrap().iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, [json!("echo"), json!("shout"), json!("whisper")]);
    assert_eq!(client.call_tool("shout", json!({"text": "hey"})).await.unwrap().text(), Some("HEY"));
    assert_eq!(client.call_tool("whisper", json!({})).await.unwrap().text(), Some("psst"));

    // A second tool of the same name is refused, as at start.
    let again = ToolDescriptor::builder("shout").handler(|_, _| async { "" }).build().unwrap();
    assert!(handle.add_tools(again.into()).is_err());

    handle.remove_tools(&["shout"]).unwrap();
    assert_eq!(client.next_message().await["method"], "notifications/tools/list_changed");
    let unknown = client.call_tool("shout", json!({"text": "hey"})).await.unwrap_err();
    assert_eq!(unknown.code, -32602);
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

/// Records the tool calls it sees, and what they finished with.
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Middleware for Recorder {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        if request.method() != "tools/call" {
            return Verdict::Continue;
        }
        let log = Arc::clone(&self.0);
        log.lock().unwrap().push(format!("call {}", request.target().unwrap_or("-")));
        Verdict::watch(move |response| {
            log.lock().unwrap().push(format!("tool error: {}", response.is_tool_error()));
        })
    }
}

#[tokio::test]
async fn a_built_tool_goes_through_middleware_and_runs_as_a_task() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let slow = ToolDescriptor::builder("slow")
        .task(TaskSupport::Optional)
        .handler(|_arguments, ctx| async move {
            ctx.progress(1.0, 2.0).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
            "done"
        })
        .build()
        .unwrap();
    let server = server!().tools(slow.into()).middleware(Recorder(Arc::clone(&log)));
    let client = TestClient::connect_with_version(server, "2025-11-25").await;

    let listed = client.list_tools().await.unwrap();
    assert_eq!(listed[0]["execution"]["taskSupport"], "optional");
    let created = client.request("tools/call", json!({"name": "slow", "task": {"ttl": 60000}})).await.unwrap();
    let task = created["task"]["taskId"].as_str().expect("a task handle").to_owned();
    let result = client.request("tasks/result", json!({"taskId": task})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "done");
    assert_eq!(client.call_tool("slow", json!({})).await.unwrap().text(), Some("done"));
    let log = log.lock().unwrap().clone();
    assert_eq!(log, ["call slow", "tool error: false", "call slow", "tool error: false"]);
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

fn note() -> ResourceDescriptor {
    ResourceDescriptor::builder("note://{id}", "note")
        .description("A note by its id.")
        .mime_type("text/plain")
        .read(|request, _ctx| async move {
            match request.variables["id"].as_str() {
                "missing" => Err(ResourceNotFound),
                id => Ok(format!("note {id}")),
            }
        })
        .complete("id", |request, _ctx| async move { request.filter(["alpha", "beta"]) })
        .build()
        .unwrap()
}

fn greet() -> PromptDescriptor {
    PromptDescriptor::builder("greet")
        .description("Greets someone.")
        .argument("name", "Who to greet", true)
        .argument("mood", "", false)
        .get(|arguments, _ctx| async move {
            let mood = arguments.get("mood").map_or("warmly", String::as_str);
            format!("Greet {} {mood}.", arguments["name"])
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn built_resources_and_prompts_are_read_completed_and_rendered_in_both_eras() {
    let server = || server!().resources(note().into()).prompts(greet().into());
    let session = TestClient::connect_with_version(server(), "2025-11-25").await;

    let templates = session.request("resources/templates/list", json!({})).await.unwrap();
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "note://{id}");
    let read = session.request("resources/read", json!({"uri": "note://7"})).await.unwrap();
    assert_eq!(read["contents"][0], json!({"uri": "note://7", "mimeType": "text/plain", "text": "note 7"}));
    let missing = session.request("resources/read", json!({"uri": "note://missing"})).await.unwrap_err();
    assert_eq!(missing.code, -32002);
    let reference = json!({"type": "ref/resource", "uri": "note://{id}"});
    let completed = session
        .request("completion/complete", json!({"ref": reference, "argument": {"name": "id", "value": "al"}}))
        .await
        .unwrap();
    assert_eq!(completed["completion"]["values"], json!(["alpha"]));

    let prompts = session.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(
        prompts["prompts"][0]["arguments"],
        json!([{"name": "name", "description": "Who to greet", "required": true}, {"name": "mood", "required": false}])
    );
    let prompt = session.request("prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})).await;
    assert_eq!(prompt.unwrap()["messages"][0]["content"]["text"], "Greet Ada warmly.");
    let unnamed = session.request("prompts/get", json!({"name": "greet", "arguments": {}})).await.unwrap_err();
    assert_eq!(
        (unnamed.code, unnamed.message.as_str()),
        (-32602, "missing required argument `name` for prompt `greet`")
    );
    spec_2025_11_25().assert_all_valid(&session.transcript());

    let stateless = TestClient::connect_uninitialized(server());
    let read = stateless.request("resources/read", json!({"uri": "note://8", "_meta": stateless_meta()})).await;
    assert_eq!(read.unwrap()["contents"][0]["text"], "note 8");
    let params = json!({"name": "greet", "arguments": {"name": "Bo", "mood": "gladly"}, "_meta": stateless_meta()});
    let prompt = stateless.request("prompts/get", params).await.unwrap();
    assert_eq!(prompt["messages"][0]["content"]["text"], "Greet Bo gladly.");
    spec_2026_07_28().assert_all_valid(&stateless.transcript());
}

/// Searches the catalogue.
#[mcp_tool]
fn search(
    /// What to look for
    query: String,
    region: String,
    limit: u32,
) -> String {
    format!("{limit} results for {query} in {region}")
}

/// `search` renamed `find`, its `query` listed as `q`, `region` fixed, `limit` 5 by default.
fn find() -> ToolDescriptor {
    <search as mcp_runtime::ToolDef>::descriptor()
        .transform()
        .name("find")
        .description("Finds products.")
        .rename_argument("query", "q")
        .describe_argument("query", "Words to find")
        .hide_argument("region", json!("eu"))
        .default_argument("limit", json!(5))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_transformed_tool_lists_its_new_shape_and_calls_the_old_one_in_both_eras() {
    let server = || server!().tools(find().into());
    let session = TestClient::connect_with_version(server(), "2025-11-25").await;
    let listed = session.list_tools().await.unwrap();
    assert_eq!((&listed[0]["name"], &listed[0]["description"]), (&json!("find"), &json!("Finds products.")));
    let schema = &listed[0]["inputSchema"];
    let properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["limit", "q"], "{schema}");
    assert_eq!(schema["properties"]["q"]["description"], "Words to find");
    assert_eq!(schema["properties"]["limit"]["default"], 5);
    assert_eq!(schema["required"], json!(["q"]));

    let found = session.call_tool("find", json!({"q": "tea"})).await.unwrap();
    assert_eq!(found.text(), Some("5 results for tea in eu"));
    // A client that sends the hidden argument anyway does not choose it.
    let found = session.call_tool("find", json!({"q": "tea", "limit": 2, "region": "us"})).await.unwrap();
    assert_eq!(found.text(), Some("2 results for tea in eu"));
    // The old name is no argument: the listed one is missing.
    let missing = session.call_tool("find", json!({"query": "tea"})).await.unwrap();
    assert_eq!(missing.text(), Some("invalid arguments for tool `find`: `q`: missing (required)"));
    assert!(session.call_tool("search", json!({})).await.is_err(), "the old name is gone");
    spec_2025_11_25().assert_all_valid(&session.transcript());

    let stateless = TestClient::connect_uninitialized(server());
    let params = json!({"name": "find", "arguments": {"q": "mugs", "limit": 1}, "_meta": stateless_meta()});
    let answer = stateless.request("tools/call", params).await.unwrap();
    assert_eq!(answer["content"][0]["text"], "1 results for mugs in eu");
    let listed = stateless.request("tools/list", json!({"_meta": stateless_meta()})).await.unwrap();
    assert_eq!(listed["tools"][0]["inputSchema"]["required"], json!(["q"]));
    spec_2026_07_28().assert_all_valid(&stateless.transcript());
}

#[test]
fn builders_refuse_what_the_macros_refuse_at_compile_time() {
    let message = |error: mcp_runtime::Error| {
        assert_eq!(error.kind(), ErrorKind::Config);
        error.to_string()
    };
    let handler = |_: serde_json::Map<String, Value>, _: Context| async { "" };
    let bad_name = ToolDescriptor::builder("two words").handler(handler).build().err().unwrap();
    assert!(message(bad_name).contains("1 to 128 characters"));
    let not_object = ToolDescriptor::builder("t").input_schema(json!({"type": "string"})).handler(handler).build();
    assert!(message(not_object.err().unwrap()).contains("\"type\": \"object\""));
    let no_handler = ToolDescriptor::builder("t").build().err().unwrap();
    assert!(message(no_handler).contains("no handler"));

    let bad_template = ResourceDescriptor::builder("note://{id", "n").read(|_, _| async { "" }).build();
    assert!(message(bad_template.err().unwrap()).contains("invalid URI template"));
    let unknown_variable = ResourceDescriptor::builder("note://{id}", "n")
        .read(|_, _| async { "" })
        .complete("other", |_, _| async { Completion::default() });
    assert!(message(unknown_variable.build().err().unwrap()).contains("`other`"));
    let unread = ResourceDescriptor::builder("note://a", "n").build().err().unwrap();
    assert!(message(unread).contains("no read function"));

    let twice = PromptDescriptor::builder("p").argument("a", "", true).argument("a", "", false);
    let twice = twice.get(|_, _| async { "" }).build().err().unwrap();
    assert!(message(twice).contains("given twice"));

    let unknown = <search as mcp_runtime::ToolDef>::descriptor().transform().hide_argument("nope", json!(1)).build();
    assert!(message(unknown.err().unwrap()).contains("no argument `nope`"));
}
