//! A server that depends on the runtime under another name (`mcp_renamed`, as a facade crate or
//! a renamed dependency would): each macro takes `crate = "mcp_renamed"`, and the code it
//! generates reaches the runtime only through that path.
//!
//! Run it with `cargo run -p renamed-crate`, then connect an MCP client to it over stdio.

use mcp_renamed::State;
use mcp_renamed::prelude::*;

/// How the server greets.
struct Greeting {
    text: String,
}

/// Greets someone.
#[mcp_tool(crate = "mcp_renamed", read_only)]
fn greet(
    /// Who to greet
    name: String,
    greeting: State<Greeting>,
    ctx: Context,
) -> String {
    let _ = ctx;
    format!("{}, {name}!", greeting.text)
}

/// A greeting card.
#[mcp_resource(crate = "mcp_renamed", uri = "cards://{name}")]
fn card(name: String, greeting: State<Greeting>) -> String {
    format!("[ {}, {name} ]", greeting.text)
}

/// Welcomes someone.
#[mcp_prompt(crate = "mcp_renamed")]
fn welcome(name: String, ctx: Context) -> String {
    let _ = ctx;
    format!("Welcome {name} warmly.")
}

fn server() -> Server {
    server!()
        .state(Greeting { text: "Hello".to_owned() })
        .tools(tools![crate = "mcp_renamed"; greet])
        .resources(resources![crate = "mcp_renamed"; card])
        .prompts(prompts![crate = "mcp_renamed"; welcome])
}

#[mcp_renamed::main(crate = "mcp_renamed")]
async fn main() -> mcp_renamed::Result<()> {
    server().serve_stdio().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_renamed::testing::TestClient;
    use serde_json::json;

    #[tokio::test]
    async fn the_runtime_under_another_name_serves_tools_resources_and_prompts() {
        let client = TestClient::connect(server()).await;
        let result = client.call_tool("greet", json!({"name": "Ada"})).await.unwrap();
        assert_eq!(result.text(), Some("Hello, Ada!"));
        let schema = &client.list_tools().await.unwrap()[0]["inputSchema"];
        assert_eq!(schema["properties"], json!({"name": {"type": "string", "description": "Who to greet"}}));
        let read = client.request("resources/read", json!({"uri": "cards://Bob"})).await.unwrap();
        assert_eq!(read["contents"][0]["text"], "[ Hello, Bob ]");
        let prompt =
            client.request("prompts/get", json!({"name": "welcome", "arguments": {"name": "Cy"}})).await.unwrap();
        assert_eq!(prompt["messages"][0]["content"]["text"], "Welcome Cy warmly.");
    }
}
