//! The fixture server of the official MCP conformance suite (`@modelcontextprotocol/conformance`):
//! every tool, resource, template, prompt and completion its server scenarios call, with the
//! reference values, for both protocol eras (2025-11-25 with `initialize` and sessions,
//! 2026-07-28 with per-request `_meta` and input-required results).
//!
//! `cargo run -p conformance` serves Streamable HTTP at `http://127.0.0.1:$PORT/mcp` (`PORT`
//! defaults to 3000); `cargo run -p conformance -- --stdio` serves stdio instead.
//! `scripts/conformance.sh` runs the suite against it.
//!
//! With `REDIS_URL` (and `MCP_REQUEST_STATE_SECRET`, the same for all) in its environment, it
//! keeps its sessions in that Redis, so several replicas behind a load balancer serve one
//! client: `scripts/replicas.sh` runs the suite that way, through nginx.
//! `MCP_HANDSHAKE_TIMEOUT_MS` and `MCP_MAX_SESSIONS_PER_CLIENT` set those session limits
//! (`HttpConfig::handshake_timeout`, `HttpConfig::max_sessions_per_client`).
//! `MCP_STATELESS_HTTP=1` serves HTTP without sessions (`HttpConfig::stateless`): what
//! `scripts/conformance.sh sessionless` and `tests/python/test_sessionless.py` run.
//!
//! Beside the suite's, two hidden tools (callable, not listed) serve the multi-replica tests
//! (`tests/tests/replicas.rs`, `tests/python/test_replicas.py`):
//! `test_trigger_resource_update {uri}` sends `notifications/resources/updated` for `uri` to the
//! sessions subscribed to it, through the server's handle (`ServerHandle::resource_updated`), so
//! a test can subscribe through one replica and have another one announce the change; and
//! `test_session_counter` counts its calls in a `SessionState`, which must follow the session
//! from replica to replica.

use mcp_runtime::prelude::*;
use mcp_runtime::{Audio, ClientError, Elicitation, EmbeddedResource, Image, ResourceContents, Role, Sampling};
use serde_json::{Map, Value, json};
use std::time::Duration;

/// A 1×1 PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV, base64.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The URI of the resource the server updates every few seconds.
const WATCHED: &str = "test://watched-resource";

// ---------------------------------------------------------------------------------------------
// Tools: content types

/// Returns a simple text response.
#[mcp_tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image (a 1×1 PNG).
#[mcp_tool]
fn test_image_content() -> Image {
    Image::from_base64(PNG, "image/png")
}

/// Returns an audio clip (WAV).
#[mcp_tool]
fn test_audio_content() -> Audio {
    Audio::from_base64(WAV, "audio/wav")
}

/// Returns an embedded text resource.
#[mcp_tool]
fn test_embedded_resource() -> EmbeddedResource {
    EmbeddedResource::new(ResourceContents::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and an embedded resource in one result.
#[mcp_tool]
fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Image::from_base64(PNG, "image/png").into(),
        EmbeddedResource::new(ResourceContents::text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ))
        .into(),
    ]
}

/// Returns an error result (not a protocol error).
#[mcp_tool]
fn test_error_handling() -> CallToolResult {
    CallToolResult::error("This tool intentionally returns an error for testing")
}

// ---------------------------------------------------------------------------------------------
// Tools: notifications during a call

/// Sends three log messages while it runs.
#[mcp_tool]
async fn test_tool_with_logging(ctx: Context) -> &'static str {
    ctx.info("Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool execution completed").await;
    "Tool with logging executed successfully"
}

/// Reports progress 0, 50 and 100 of 100 when the caller asks for progress.
#[mcp_tool]
async fn test_tool_with_progress(ctx: Context) -> &'static str {
    for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.progress(done, 100.0).await;
    }
    "Progress test completed"
}

/// Emits a log message; in the 2026-07-28 era it reaches the client only when the request
/// asks for a log level.
#[mcp_tool]
async fn test_logging_tool(ctx: Context) -> &'static str {
    ctx.info("test_logging_tool was called").await;
    "Logging tool completed"
}

/// Streams its progress, then the result; it sends no request to the client.
#[mcp_tool]
async fn test_streaming_elicitation(ctx: Context) -> &'static str {
    for done in [1.0, 2.0] {
        ctx.progress(done, 2.0).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    "Streaming completed"
}

/// Closes its SSE stream before answering: the client gets the result by reconnecting with
/// `Last-Event-ID` (SSE polling).
#[mcp_tool]
async fn test_reconnection(ctx: Context) -> &'static str {
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(200)).await;
    "Reconnection test completed"
}

// ---------------------------------------------------------------------------------------------
// Tools: requests to the client, 2025-11-25

/// Asks the client's model to answer `prompt` (sampling).
#[mcp_tool]
async fn test_sampling(
    /// The prompt to send to the model
    prompt: String,
    ctx: Context,
) -> Result<String, ClientError> {
    let reply = ctx.sample(Sampling::new(prompt).max_tokens(100)).await?;
    Ok(format!("LLM response: {}", reply.text().unwrap_or_default()))
}

/// A JSON object literal as a map (schemas written as JSON).
fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// `action=…, content={…}` of an elicitation's outcome.
fn describe(outcome: &Elicitation<Map<String, Value>>) -> String {
    match outcome {
        Elicitation::Accept(content) => format!("action=accept, content={}", Value::Object(content.clone())),
        Elicitation::Decline => "action=decline, content=undefined".into(),
        Elicitation::Cancel => "action=cancel, content=undefined".into(),
    }
}

/// Asks the user for a username and an email (elicitation).
#[mcp_tool]
async fn test_elicitation(
    /// The message to show the user
    message: String,
    ctx: Context,
) -> Result<String, ClientError> {
    let schema = object(json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }));
    let outcome = ctx.elicit_with_schema(message, schema).await?;
    Ok(format!("User response: {}", describe(&outcome)))
}

/// Elicits a form whose fields have defaults (SEP-1034).
#[mcp_tool]
async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, ClientError> {
    let schema = object(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {
                "type": "string",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "default": true},
        },
    }));
    let outcome = ctx.elicit_with_schema("Please review and update the form fields with defaults", schema).await?;
    Ok(format!("Elicitation completed: {}", describe(&outcome)))
}

/// Elicits every kind of enum field (SEP-1330): untitled and titled, single and multiple
/// choice, and the legacy `enumNames`.
#[mcp_tool]
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, ClientError> {
    let schema = object(json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"},
                ],
            },
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"},
                    ],
                },
            },
        }
    }));
    let outcome = ctx.elicit_with_schema("Please select options from the enum fields", schema).await?;
    Ok(format!("Elicitation completed: {}", describe(&outcome)))
}

/// A tool whose input schema uses JSON Schema 2020-12 keywords ($defs, $ref, if/then/else...),
/// published verbatim.
#[mcp_tool(input_schema = r##"{
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {
                "street": {"type": "string"},
                "city": {"type": "string"}
            }
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"}
    },
    "allOf": [
        {"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}
    ],
    "if": {
        "properties": {"contactMethod": {"const": "phone"}},
        "required": ["contactMethod"]
    },
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": false
}"##)]
fn json_schema_2020_12_tool(
    name: Option<String>,
    address: Option<Value>,
    #[mcp(rename = "contactMethod")] contact_method: Option<String>,
    phone: Option<String>,
    email: Option<String>,
) -> String {
    let arguments = json!({
        "name": name, "address": address, "contactMethod": contact_method, "phone": phone, "email": email,
    });
    format!("JSON Schema 2020-12 tool called with: {arguments}")
}

// ---------------------------------------------------------------------------------------------
// Tools: the 2026-07-28 era (stateless requests, input-required results)

/// Runs a query in a region; `region`, `priority` and `verbose` are mirrored in the
/// `Mcp-Param-Region`, `Mcp-Param-Priority` and `Mcp-Param-Verbose` HTTP headers (SEP-2243),
/// which the server checks against the arguments (`http-custom-header-server-validation`).
#[mcp_tool(read_only)]
fn test_custom_headers(
    /// Where to run the query
    #[mcp(header = "Region")]
    region: String,
    /// How urgent it is
    #[mcp(header = "Priority")]
    priority: i64,
    /// Whether to say more
    #[mcp(header = "Verbose")]
    verbose: Option<bool>,
    /// The query (not mirrored)
    query: String,
) -> String {
    let verbose = verbose.unwrap_or(false);
    format!("Ran `{query}` in {region} at priority {priority} (verbose: {verbose})")
}

/// Needs the client's sampling capability: without it the call fails with -32021.
#[mcp_tool]
async fn test_missing_capability(ctx: Context) -> Result<String, ClientError> {
    if declares(&ctx, "sampling") {
        return Ok("The client declared the sampling capability".into());
    }
    ctx.sample(Sampling::new("This request needs sampling").max_tokens(10)).await?;
    Ok("The client declared the sampling capability".into())
}

/// Whether the client declared `capability` for this request.
fn declares(ctx: &Context, capability: &str) -> bool {
    ctx.client_capabilities().is_some_and(|c| c.get(capability).is_some_and(|v| !v.is_null()))
}

/// Announces a change of the tool list (a hidden diagnostic hook for `subscriptions/listen`).
#[mcp_tool(hidden)]
fn test_trigger_tool_change(ctx: Context) -> Result<&'static str, mcp_runtime::Error> {
    let server = ctx.server();
    server.add_tools(tools![test_dynamic_tool])?;
    server.remove_tools(&["test_dynamic_tool"])?;
    Ok("Tool list changed")
}

// ---------------------------------------------------------------------------------------------
// Tasks (the io.modelcontextprotocol/tasks extension): a call becomes a task when its handler
// first waits for something other than the client; input asked for before that is gathered
// with input-required results, input asked for after it through `tasks/update`.

/// Greets someone (never a task).
#[mcp_tool]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Computes for `seconds` seconds (at most 120), then answers: a task for a client that
/// supports them, unless `seconds` is 0.
#[mcp_tool(task = "optional")]
async fn slow_compute(seconds: f64, label: Option<String>) -> String {
    let seconds = seconds.clamp(0.0, 120.0);
    if seconds > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    }
    format!("Computed {} in {seconds} s", label.as_deref().unwrap_or("a result"))
}

/// A job that fails after a second: its task completes with the tool's error.
#[mcp_tool(task = "required")]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("the job failed: the input data is corrupt".into())
}

/// A job that crashes after a moment: its task fails with an internal error.
#[mcp_tool(task = "optional")]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(200)).await;
    panic!("the job crashed")
}

/// Deletes a file once the user confirms (asked after looking the file up, so as a task).
#[mcp_tool(task = "optional")]
async fn confirm_delete(filename: String, ctx: Context) -> Result<String, ClientError> {
    tokio::time::sleep(Duration::from_millis(20)).await; // looking the file up
    let schema =
        object(json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}));
    let outcome = ctx.elicit_with_schema(format!("Delete {filename}?"), schema).await?;
    let confirmed = outcome.accepted().and_then(|content| content.get("confirm")?.as_bool()).unwrap_or(false);
    Ok(if confirmed { format!("Deleted {filename}") } else { format!("Kept {filename}") })
}

/// Asks two questions at once (after a moment of work, so as a task): a name and a confirmation.
#[mcp_tool(task = "optional")]
async fn multi_input(ctx: Context) -> Result<String, ClientError> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    let name_schema =
        object(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}));
    let confirm_schema =
        object(json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}));
    let (name, confirm) = tokio::join!(
        ctx.elicit_with_schema("Your name?", name_schema),
        ctx.elicit_with_schema("Proceed?", confirm_schema)
    );
    let name = accepted_field(name?, "name").unwrap_or_else(|| "stranger".into());
    let confirmed = confirm?.accepted().and_then(|content| content.get("confirm")?.as_bool()).unwrap_or(false);
    Ok(format!("{name} {}", if confirmed { "confirmed" } else { "declined" }))
}

/// Asks the user's name first (an input-required result keyed `user_name`), then works as a
/// task and greets them.
#[mcp_tool(task = "required")]
async fn test_tool_with_task(ctx: Context) -> Result<String, ClientError> {
    let schema = object(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}));
    let outcome = ctx.input("user_name").elicit_with_schema("What is your name?", schema).await?;
    let name = accepted_field(outcome, "name").unwrap_or_else(|| "stranger".into());
    tokio::time::sleep(Duration::from_millis(200)).await; // the long part: a task from here
    Ok(format!("Hello, {name}! The task is done."))
}

/// Calls of `test_session_counter` in this session.
#[derive(Default, Serialize, Deserialize)]
struct Calls {
    count: std::sync::atomic::AtomicU64,
}

/// Counts its calls in this session (a hidden hook for the multi-replica tests: each call may
/// reach another replica, and the count must follow).
#[mcp_tool(hidden)]
fn test_session_counter(calls: mcp_runtime::SessionState<Calls>) -> u64 {
    calls.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
}

/// Tells the sessions subscribed to `uri` that it changed (a hidden hook for the multi-replica
/// tests: the call may reach another replica than the subscription did).
#[mcp_tool(hidden)]
fn test_trigger_resource_update(
    /// The URI to announce (a resource or a template's URI, as `resources/subscribe` accepts)
    uri: String,
    ctx: Context,
) -> Result<String, mcp_runtime::Error> {
    ctx.server().resource_updated(&uri)?;
    Ok(format!("Updated {uri}"))
}

/// A tool that exists only for an instant, to change the tool list.
#[mcp_tool]
fn test_dynamic_tool() -> &'static str {
    "dynamic"
}

/// Announces a change of the prompt list (a hidden diagnostic hook for `subscriptions/listen`).
#[mcp_tool(hidden)]
fn test_trigger_prompt_change(ctx: Context) -> Result<&'static str, mcp_runtime::Error> {
    let server = ctx.server();
    server.add_prompts(prompts![test_dynamic_prompt])?;
    server.remove_prompts(&["test_dynamic_prompt"])?;
    Ok("Prompt list changed")
}

/// A prompt that exists only for an instant, to change the prompt list.
#[mcp_prompt]
fn test_dynamic_prompt() -> &'static str {
    "dynamic"
}

/// The accepted content's string field `field`, if any.
fn accepted_field(outcome: Elicitation<Map<String, Value>>, field: &str) -> Option<String> {
    outcome.accepted()?.get(field)?.as_str().map(str::to_owned)
}

/// Asks the user's name (an input-required result keyed `user_name`), then greets them.
#[mcp_tool]
async fn test_input_required_result_elicitation(ctx: Context) -> Result<String, ClientError> {
    let schema = object(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}));
    let outcome = ctx.input("user_name").elicit_with_schema("What is your name?", schema).await?;
    let name = accepted_field(outcome, "name").unwrap_or_else(|| "stranger".into());
    Ok(format!("Hello, {name}!"))
}

/// Asks the client's model a question (keyed `capital_question`) and returns its answer.
#[mcp_tool]
async fn test_input_required_result_sampling(ctx: Context) -> Result<String, ClientError> {
    let request = Sampling::new("What is the capital of France?").max_tokens(100);
    let reply = ctx.input("capital_question").sample(request).await?;
    Ok(format!("Sampling result: {}", reply.text().unwrap_or_default()))
}

/// Lists the client's roots (keyed `client_roots`).
#[mcp_tool]
async fn test_input_required_result_list_roots(ctx: Context) -> Result<String, ClientError> {
    let roots = ctx.input("client_roots").roots().await?;
    let listed: Vec<String> =
        roots.iter().map(|r| format!("{} ({})", r.uri, r.name.as_deref().unwrap_or("unnamed"))).collect();
    Ok(format!("Client roots: {}", listed.join(", ")))
}

/// Asks for a confirmation; the answer comes back with the sealed `requestState`.
#[mcp_tool]
async fn test_input_required_result_request_state(ctx: Context) -> Result<String, ClientError> {
    let schema = object(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}));
    let outcome = ctx.input("confirm").elicit_with_schema("Please confirm", schema).await?;
    Ok(format!("state-ok: request state verified, confirmation {}", describe(&outcome)))
}

/// Asks for a name, a sampled greeting and the roots at once.
#[mcp_tool]
async fn test_input_required_result_multiple_inputs(ctx: Context) -> Result<String, ClientError> {
    let schema = object(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}));
    let (name, greeting, roots) = tokio::join!(
        ctx.input("user_name").elicit_with_schema("What is your name?", schema),
        ctx.input("greeting").sample(Sampling::new("Generate a greeting").max_tokens(50)),
        ctx.input("client_roots").roots(),
    );
    let name = accepted_field(name?, "name").unwrap_or_else(|| "stranger".into());
    let greeting = greeting?;
    Ok(format!(
        "Name: {name}; greeting: {}; roots: {}",
        greeting.text().unwrap_or_default(),
        roots?.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(", ")
    ))
}

/// Asks two questions, one per round.
#[mcp_tool]
async fn test_input_required_result_multi_round(ctx: Context) -> Result<String, ClientError> {
    let name_schema =
        object(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}));
    let name = ctx.input("step1").elicit_with_schema("Step 1: What is your name?", name_schema).await?;
    let color_schema =
        object(json!({"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}));
    let color = ctx.input("step2").elicit_with_schema("Step 2: What is your favorite color?", color_schema).await?;
    let name = accepted_field(name, "name").unwrap_or_else(|| "stranger".into());
    let color = accepted_field(color, "color").unwrap_or_else(|| "unknown".into());
    Ok(format!("Multi-round complete: {name} likes {color}"))
}

/// Asks a question with an integrity-protected `requestState`: a tampered state is refused.
#[mcp_tool]
async fn test_input_required_result_tampered_state(ctx: Context) -> Result<String, ClientError> {
    let schema = object(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}));
    let outcome = ctx.input("confirm").elicit_with_schema("Please confirm", schema).await?;
    Ok(format!("Confirmed: {}", describe(&outcome)))
}

/// Asks only through what the client declared: elicitation if it can, else sampling.
#[mcp_tool]
async fn test_input_required_result_capabilities(ctx: Context) -> Result<String, ClientError> {
    if declares(&ctx, "elicitation") {
        let schema =
            object(json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}));
        let outcome = ctx.input("user_name").elicit_with_schema("What is your name?", schema).await?;
        let name = accepted_field(outcome, "name").unwrap_or_else(|| "stranger".into());
        return Ok(format!("Hello, {name}!"));
    }
    let reply =
        ctx.input("capital_question").sample(Sampling::new("What is the capital of France?").max_tokens(100)).await?;
    Ok(format!("Sampling result: {}", reply.text().unwrap_or_default()))
}

// ---------------------------------------------------------------------------------------------
// Resources

/// A static text resource.
#[mcp_resource(uri = "test://static-text", mime_type = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a 1×1 PNG).
#[mcp_resource(uri = "test://static-binary", mime_type = "image/png")]
fn static_binary() -> ResourceContents {
    ResourceContents::Blob { uri: "test://static-binary".into(), mime_type: Some("image/png".into()), blob: PNG.into() }
}

/// A resource the server updates every 3 seconds; subscribe to hear about it.
#[mcp_resource(uri = "test://watched-resource", mime_type = "text/plain")]
fn watched_resource() -> &'static str {
    "Watched resource content"
}

/// Data for an id, as JSON.
#[mcp_resource(uri = "test://template/{id}/data", mime_type = "application/json")]
fn template_data(id: String) -> ResourceContents {
    // Written out to keep the reference's key order.
    let text = format!(r#"{{"id":{},"templateTest":true,"data":{}}}"#, json!(id), json!(format!("Data for ID: {id}")));
    ResourceContents::text(format!("test://template/{id}/data"), "application/json", text)
}

// ---------------------------------------------------------------------------------------------
// Prompts

/// A simple prompt without arguments.
#[mcp_prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two required arguments.
#[mcp_prompt(complete(arg1 = complete_arg, arg2 = complete_arg))]
fn test_prompt_with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// Suggestions for the arguments of `test_prompt_with_arguments`.
fn complete_arg(request: CompletionRequest) -> Vec<String> {
    request.filter(["test", "test1", "test2", "testValue1", "testValue2", "value"])
}

/// A prompt embedding a resource.
#[mcp_prompt]
fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[mcp(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    let resource = ResourceContents::text(resource_uri, "text/plain", "Embedded resource content for testing.");
    vec![
        PromptMessage::new(Role::User, EmbeddedResource::new(resource)),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[mcp_prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::new(Role::User, Image::from_base64(PNG, "image/png")),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// A prompt that first asks the user for context (an input-required result).
#[mcp_prompt]
async fn test_input_required_result_prompt(ctx: Context) -> Result<Vec<PromptMessage>, ClientError> {
    let schema =
        object(json!({"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}));
    let outcome = ctx.input("user_context").elicit_with_schema("What context should the prompt use?", schema).await?;
    let context = accepted_field(outcome, "context").unwrap_or_else(|| "none".into());
    Ok(vec![PromptMessage::user(format!("Prompt with context: {context}"))])
}

// ---------------------------------------------------------------------------------------------

fn server() -> Server {
    server!()
        .instructions("The fixture server of the MCP conformance suite.")
        .tools(tools![
            test_simple_text,
            test_image_content,
            test_audio_content,
            test_embedded_resource,
            test_multiple_content_types,
            test_tool_with_logging,
            test_tool_with_progress,
            test_error_handling,
            test_sampling,
            test_elicitation,
            test_elicitation_sep1034_defaults,
            test_elicitation_sep1330_enums,
            json_schema_2020_12_tool,
            test_custom_headers,
            test_reconnection,
            test_session_counter,
            greet,
            slow_compute,
            failing_job,
            protocol_error_job,
            confirm_delete,
            multi_input,
            test_tool_with_task,
            test_missing_capability,
            test_streaming_elicitation,
            test_logging_tool,
            // Hidden hooks, as in the reference server: callable, not listed.
            test_trigger_tool_change,
            test_trigger_prompt_change,
            test_trigger_resource_update,
            test_input_required_result_elicitation,
            test_input_required_result_sampling,
            test_input_required_result_list_roots,
            test_input_required_result_request_state,
            test_input_required_result_multiple_inputs,
            test_input_required_result_multi_round,
            test_input_required_result_tampered_state,
            test_input_required_result_capabilities,
        ])
        .resources(resources![static_text, static_binary, watched_resource, template_data])
        // The skills extension (SEP-2640): a skill with a subfolder, for the sep-2640-skills-* scenarios.
        .skills(concat!(env!("CARGO_MANIFEST_DIR"), "/skills"))
        .prompts(prompts![
            test_simple_prompt,
            test_prompt_with_arguments,
            test_prompt_with_embedded_resource,
            test_prompt_with_image,
            test_input_required_result_prompt,
        ])
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    let stdio = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--stdio") => true,
        Some(other) => {
            eprintln!(
                "unknown argument `{other}`\nusage: conformance [--stdio]  (HTTP on 127.0.0.1:$PORT/mcp by default)"
            );
            std::process::exit(2);
        }
    };
    let mut server = server();
    // Several replicas behind a load balancer share their sessions through Redis.
    if let Ok(url) = std::env::var("REDIS_URL") {
        let secret = std::env::var("MCP_REQUEST_STATE_SECRET").map_err(|_| {
            mcp_runtime::Error::msg("REDIS_URL is set: set MCP_REQUEST_STATE_SECRET too, the same on every replica")
        })?;
        server = server.session_store(mcp_runtime::SessionStore::redis(&url)?).request_state_secret(secret);
    }
    let handle = server.handle();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(3));
        every.tick().await;
        loop {
            every.tick().await;
            // Fails only before the server runs; the next tick tries again.
            let _ = handle.resource_updated(WATCHED);
        }
    });
    if stdio {
        return server.serve_stdio().await;
    }
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => port.parse().map_err(|_| mcp_runtime::Error::msg(format!("PORT={port} is not a port number")))?,
        Err(_) => 3000,
    };
    match http_config()? {
        None => server.serve_http(("127.0.0.1", port)).await,
        Some(config) => {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                .await
                .map_err(|err| mcp_runtime::Error::msg(format!("cannot listen on port {port}: {err}")))?;
            let stop = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            server.into_http_service(config)?.serve(listener, stop).await
        }
    }
}

/// The HTTP configuration the environment asks for: the session limits the multi-replica bounds
/// tests set (`tests/tests/replicas_bounds.rs`), `MCP_HANDSHAKE_TIMEOUT_MS` and
/// `MCP_MAX_SESSIONS_PER_CLIENT`, and `MCP_STATELESS_HTTP=1` for no sessions at all; `None`
/// when none is set.
fn http_config() -> mcp_runtime::Result<Option<mcp_runtime::http::HttpConfig>> {
    let number = |name: &str| -> mcp_runtime::Result<Option<u64>> {
        match std::env::var(name) {
            Ok(value) => value
                .parse()
                .map(Some)
                .map_err(|_| mcp_runtime::Error::msg(format!("{name}={value} is not a whole number"))),
            Err(_) => Ok(None),
        }
    };
    let (handshake, share) = (number("MCP_HANDSHAKE_TIMEOUT_MS")?, number("MCP_MAX_SESSIONS_PER_CLIENT")?);
    let stateless = number("MCP_STATELESS_HTTP")?.is_some_and(|on| on != 0);
    if handshake.is_none() && share.is_none() && !stateless {
        return Ok(None);
    }
    let mut config = mcp_runtime::http::HttpConfig::default().stateless(stateless);
    if let Some(ms) = handshake {
        config = config.handshake_timeout(Duration::from_millis(ms));
    }
    if let Some(share) = share {
        config = config.max_sessions_per_client(usize::try_from(share).unwrap_or(usize::MAX));
    }
    Ok(Some(config))
}
