//! A parameter is injected because its type implements `FromContext`, never because of its
//! name: a user's own `State`, `Context` and `Session` types are ordinary arguments, and the
//! runtime's types (`CancellationToken`, `Option<AuthInfo>` included) are injected without
//! `#[mcp(inject)]`, in tools, resources and prompts.

// `describe` takes `RequestTag` unmarked, which its handler injects by type; its typed call
// (whenever the runtime's feature `client` is on, in this build or another crate's), written
// from tokens, would take it as an argument, and says so with the deprecation warning
// `ui/client-fail/typed_call_unmarked_injection.rs` locks.
#![allow(deprecated)]

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{CancellationToken, FromContext};
use serde_json::json;

/// The user's own types, named like the runtime's.
mod user {
    use mcp_runtime::prelude::*;

    /// A ticket's state.
    #[derive(Deserialize, JsonSchema, Debug)]
    #[serde(rename_all = "lowercase")]
    pub enum State {
        Open,
        Closed,
    }

    /// Who asks.
    #[derive(Deserialize, JsonSchema, Debug)]
    pub struct Context {
        pub user: String,
    }

    /// A work session.
    #[derive(Deserialize, JsonSchema, Debug)]
    pub struct Session {
        pub id: u32,
    }
}

/// The user's own injected type: the request's id, as text.
struct RequestTag(String);

impl FromContext for RequestTag {
    fn from_context(ctx: &mcp_runtime::Context) -> Result<Self, CallToolResult> {
        Ok(RequestTag(format!("request {}", ctx.request_id())))
    }
}

/// Describes a ticket.
#[mcp_tool]
fn describe(
    state: user::State,
    context: user::Context,
    session: Option<user::Session>,
    token: CancellationToken,
    ctx: Context,
    tag: RequestTag,
) -> String {
    let _ = ctx;
    format!("{state:?} {} {:?} {} {}", context.user, session.map(|s| s.id), token.is_cancelled(), tag.0)
}

/// A ticket by state.
#[mcp_resource(uri = "tickets://{state}")]
fn ticket(state: user::State, token: CancellationToken) -> String {
    format!("{state:?} {}", token.is_cancelled())
}

/// Talks about tickets in a state.
#[mcp_prompt]
fn triage(state: user::State, ctx: Context, token: CancellationToken) -> String {
    let _ = ctx;
    format!("triage {state:?} {}", token.is_cancelled())
}

/// The caller, when there is one: `Option<AuthInfo>` is injected too.
#[cfg(feature = "auth")]
#[mcp_tool]
fn whoami(caller: Option<mcp_runtime::auth::AuthInfo>) -> String {
    format!("{}", caller.is_some())
}

#[cfg(feature = "auth")]
fn with_auth_tools(server: Server) -> Server {
    server.tools(tools![whoami])
}

#[cfg(not(feature = "auth"))]
fn with_auth_tools(server: Server) -> Server {
    server
}

#[tokio::test]
async fn injection_follows_the_type_not_the_name() {
    let server = server!().tools(tools![describe]).resources(resources![ticket]).prompts(prompts![triage]);
    let client = TestClient::connect(with_auth_tools(server)).await;

    let tools = client.list_tools().await.unwrap();
    let schema = &tools.iter().find(|t| t["name"] == "describe").unwrap()["inputSchema"];
    let properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["context", "session", "state"], "the user's types are arguments, the runtime's are not");
    assert_eq!(schema["required"], json!(["state", "context"]));

    let arguments = json!({"state": "open", "context": {"user": "ada"}, "session": {"id": 7}});
    let result = client.call_tool("describe", arguments).await.unwrap();
    assert_eq!(result.text(), Some("Open ada Some(7) false request 3"));
    let result = client.call_tool("describe", json!({"state": "closed", "context": {"user": "bob"}})).await.unwrap();
    assert_eq!(result.text(), Some("Closed bob None false request 4"));
    let missing = client.call_tool("describe", json!({"state": "open"})).await.unwrap();
    assert!(missing.is_error && missing.text().unwrap().contains("missing field `context`"), "{missing:?}");

    let read = client.request("resources/read", json!({"uri": "tickets://closed"})).await.unwrap();
    assert_eq!(read["contents"][0]["text"], "Closed false");

    let prompts = client.request("prompts/list", json!({})).await.unwrap();
    assert_eq!(prompts["prompts"][0]["arguments"], json!([{"name": "state", "required": true}]));
    let prompt =
        client.request("prompts/get", json!({"name": "triage", "arguments": {"state": "open"}})).await.unwrap();
    assert_eq!(prompt["messages"][0]["content"]["text"], "triage Open false");

    #[cfg(feature = "auth")]
    {
        let tools = client.list_tools().await.unwrap();
        let schema = &tools.iter().find(|t| t["name"] == "whoami").unwrap()["inputSchema"];
        assert_eq!(schema["properties"], json!({}), "`Option<AuthInfo>` is injected");
        assert_eq!(client.call_tool("whoami", json!({})).await.unwrap().text(), Some("false"));
    }
}

/// `#[mcp(inject)]` is still accepted, and needed for nothing.
#[mcp_tool]
fn tagged(#[mcp(inject)] tag: RequestTag, word: String) -> String {
    format!("{word} {}", tag.0)
}

#[tokio::test]
async fn the_inject_option_is_still_accepted() {
    let client = TestClient::connect(server!().tools(tools![tagged])).await;
    let schema = &client.list_tools().await.unwrap()[0]["inputSchema"];
    assert_eq!(schema["properties"].as_object().unwrap().keys().collect::<Vec<_>>(), ["word"]);
    assert_eq!(client.call_tool("tagged", json!({"word": "hi"})).await.unwrap().text(), Some("hi request 3"));
}
