//! The client the official MCP conformance suite (`@modelcontextprotocol/conformance`) drives in
//! its client mode, written only on the public API of `mcp_runtime::client`: if a scenario
//! needs what that API lacks, the API grows, not this file.
//!
//! The suite runs it as `conformance-client <server-url>`, naming the scenario in
//! `MCP_CONFORMANCE_SCENARIO`, the revision in `MCP_CONFORMANCE_PROTOCOL_VERSION` and what the
//! scenario hands the client (arguments, credentials) in `MCP_CONFORMANCE_CONTEXT` (JSON).
//! A dated revision through 2025-11-25 is spoken with the `initialize` handshake, 2026-07-28
//! with its stateless lifecycle. `scripts/conformance.sh client` runs the suite against it.
//!
//! One function per scenario, after the suite's reference client
//! (`examples/clients/typescript/everything-client.ts`). It exits 0 when its scenario ran;
//! the suite's checks, made on the server side, say whether it ran correctly.

mod auth;
mod skills;

use mcp_runtime::client::{Client, ClientBuilder, ElicitationRequest, Negotiation, Tool};
use mcp_runtime::{CallToolResult, Elicitation, ProtocolVersion, Role, Sampled};
use serde_json::{Map, Value, json};
use std::future::IntoFuture as _;
use std::process::ExitCode;

/// Why a scenario could not run to its end.
type Outcome = Result<(), Box<dyn std::error::Error>>;

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt().with_writer(std::io::stderr).init();
    let (Some(url), Ok(scenario)) = (std::env::args().nth(1), std::env::var("MCP_CONFORMANCE_SCENARIO")) else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance-client <server-url>");
        return ExitCode::from(2);
    };
    match Run::from_env(url).scenario(&scenario).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-client: {scenario}: {error}");
            ExitCode::FAILURE
        }
    }
}

/// One run of one scenario: where the server is, the era to speak, what the scenario gave.
struct Run {
    url: String,
    negotiation: Negotiation,
    /// `MCP_CONFORMANCE_CONTEXT`, or `null`.
    context: Value,
}

impl Run {
    fn from_env(url: String) -> Self {
        let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default();
        let stateless = ProtocolVersion::STATELESS.iter().any(|v| v.as_str() == version);
        let negotiation = if stateless { Negotiation::Stateless } else { Negotiation::Handshake };
        let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        Self { url, negotiation, context }
    }

    async fn scenario(&self, name: &str) -> Outcome {
        match name {
            "initialize" | "tools_call" | "tools-call" => self.call_first_tool().await,
            "json-schema-ref-no-deref" => self.list_tools_only().await,
            "json-schema-2020-12-preservation" => self.echo_schema().await,
            "elicitation-sep1034-client-defaults" => self.call_one("test_client_elicitation_defaults").await,
            "sse-retry" => self.call_one("test_reconnection").await,
            "request-metadata" => self.list_tools_only().await,
            "sep-2322-client-request-state" => self.call_every_tool_at_once().await,
            "http-standard-headers" => self.use_everything().await,
            "http-custom-headers" => self.call_context_tools().await,
            "http-invalid-tool-headers" => self.call_every_listed_tool().await,
            "sep-2640-client-no-prefetch" => skills::list_only(self).await,
            "sep-2640-client-verify-digest" | "sep-2640-client-verify-size" | "sep-2640-client-verify-frontmatter" => {
                skills::load_all(self).await
            }
            // The authorization scenarios: the client's OAuth flow (feature `oauth`).
            _ if name.starts_with("auth/") => auth::run(self, name).await,
            _ => Err(format!("unknown scenario {name:?}").into()),
        }
    }

    /// A client that declares every capability: it answers sampling with a canned text,
    /// accepts every elicitation as is (a form's defaults filled in by the client), and
    /// offers no roots.
    fn builder(&self) -> ClientBuilder {
        Client::builder()
            .name("mcp-runtime-conformance-client", env!("CARGO_PKG_VERSION"))
            .negotiation(self.negotiation)
            .on_sampling(|_request| async {
                Ok(Sampled {
                    role: Role::Assistant,
                    content: json!({"type": "text", "text": "a sampled answer"}),
                    model: "conformance-model".into(),
                    stop_reason: Some("endTurn".into()),
                })
            })
            .on_elicitation(|request: ElicitationRequest| async move {
                tracing::info!("accepting the elicitation {:?}", request.message());
                Ok(Elicitation::Accept(Map::new()))
            })
            .roots(Vec::new())
    }

    async fn connect(&self) -> Result<Client, Box<dyn std::error::Error>> {
        Ok(self.builder().connect_http(&self.url).await?)
    }

    /// `initialize`, `tools_call`: list the tools and call the first with `{a: 2, b: 3}`.
    async fn call_first_tool(&self) -> Outcome {
        let client = self.connect().await?;
        if let Some(tool) = client.list_tools().await?.first() {
            succeeded(client.call_tool(&tool.name, json!({"a": 2, "b": 3})).await?)?;
        }
        client.close().await;
        Ok(())
    }

    /// `json-schema-ref-no-deref` (a network `$ref` in a schema is never fetched),
    /// `request-metadata` (`_meta`, the version header, the retry after -32022): list the tools.
    async fn list_tools_only(&self) -> Outcome {
        let client = self.connect().await?;
        client.list_tools().await?;
        client.close().await;
        Ok(())
    }

    /// `json-schema-2020-12-preservation`: the focal tool's input schema, sent back verbatim.
    async fn echo_schema(&self) -> Outcome {
        let client = self.connect().await?;
        let tools = client.list_tools().await?;
        let focal = tools
            .iter()
            .find(|tool| tool.name == "json_schema_2020_12_tool")
            .ok_or("the focal tool json_schema_2020_12_tool is not listed")?;
        let echoed = client.call_tool("json_schema_echo", json!({"schema": focal.input_schema})).await?;
        succeeded(echoed)?;
        client.close().await;
        Ok(())
    }

    /// `elicitation-sep1034-client-defaults`, `sse-retry`: list the tools and call `name`.
    async fn call_one(&self, name: &str) -> Outcome {
        let client = self.connect().await?;
        client.list_tools().await?;
        succeeded(client.call_tool(name, json!({})).await?)?;
        client.close().await;
        Ok(())
    }

    /// `sep-2322-client-request-state`: every tool called at once, so the input rounds of one
    /// call (their `inputResponses` and `requestState`) must stay with it.
    async fn call_every_tool_at_once(&self) -> Outcome {
        let client = self.connect().await?;
        let tools = client.list_tools().await?;
        let calls = tools.iter().map(|tool| client.call_tool(&tool.name, json!({})).into_future());
        for result in futures_util::future::try_join_all(calls).await? {
            succeeded(result)?;
        }
        client.close().await;
        Ok(())
    }

    /// `http-standard-headers`: every tool called, every resource read, every prompt got, so
    /// each method's `Mcp-Method` and `Mcp-Name` headers are seen.
    async fn use_everything(&self) -> Outcome {
        let client = self.connect().await?;
        for tool in client.list_tools().await? {
            succeeded(client.call_tool(&tool.name, json!({})).await?)?;
        }
        for resource in client.list_resources().await? {
            client.read_resource(&resource.uri).await?;
        }
        for prompt in client.list_prompts().await? {
            client.get_prompt(&prompt.name, Vec::<(String, String)>::new()).await?;
        }
        client.close().await;
        Ok(())
    }

    /// `http-custom-headers`: the calls the context names, after listing the tools (which
    /// says what each call mirrors in `Mcp-Param-*` headers).
    async fn call_context_tools(&self) -> Outcome {
        let client = self.connect().await?;
        client.list_tools().await?;
        let calls = self.context.get("toolCalls").and_then(Value::as_array).ok_or("no toolCalls in the context")?;
        for call in calls {
            let name = call.get("name").and_then(Value::as_str).ok_or("a tool call without a name")?;
            let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
            succeeded(client.call_tool(name, arguments).await?)?;
        }
        client.close().await;
        Ok(())
    }

    /// `http-invalid-tool-headers`: every tool the client lists is called, so a tool it should
    /// have left out (an invalid `x-mcp-header`) would be seen called.
    async fn call_every_listed_tool(&self) -> Outcome {
        let client = self.connect().await?;
        for tool in client.list_tools().await? {
            succeeded(client.call_tool(&tool.name, sample_arguments(&tool)).await?)?;
        }
        client.close().await;
        Ok(())
    }
}

/// A call's result, as an error when the tool failed.
fn succeeded(result: CallToolResult) -> Outcome {
    match result.is_error {
        true => Err(format!("the tool failed: {}", result.text().unwrap_or("(no text)")).into()),
        false => Ok(()),
    }
}

/// Arguments that fit `tool`'s required properties: a word, a number, `true`.
fn sample_arguments(tool: &Tool) -> Value {
    let schema = &tool.input_schema;
    let required = schema.get("required").and_then(Value::as_array).into_iter().flatten();
    let arguments: Map<String, Value> = required
        .filter_map(Value::as_str)
        .map(|name| {
            let ty = schema.pointer(&format!("/properties/{name}/type")).and_then(Value::as_str);
            let value = match ty {
                Some("integer" | "number") => json!(1),
                Some("boolean") => json!(true),
                _ => json!("sample"),
            };
            (name.to_owned(), value)
        })
        .collect();
    Value::Object(arguments)
}
