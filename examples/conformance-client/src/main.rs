//! The client the official MCP conformance suite tests (`conformance client --command ...`): run
//! as `conformance-client <server-url>`, with the scenario in `MCP_CONFORMANCE_SCENARIO`, its data
//! in `MCP_CONFORMANCE_CONTEXT` and the protocol version in `MCP_CONFORMANCE_PROTOCOL_VERSION`.

mod auth;

use mcp_runtime::client::{Client, ClientBuilder, ClientError, Negotiation};
use serde_json::Value;

pub struct Scenario {
    pub name: String,
    pub url: String,
    pub context: Value,
    pub version: Option<String>,
}

/// Connects with the era the suite asks for: the handshake through 2025-11-25, stateless after.
pub async fn connect_with(
    scenario: &Scenario,
    configure: impl FnOnce(ClientBuilder) -> ClientBuilder,
) -> Result<Client, ClientError> {
    let negotiation = match scenario.version.as_deref() {
        Some(version) if version >= "2026" => Negotiation::Stateless,
        Some(_) => Negotiation::Handshake,
        None => Negotiation::Auto,
    };
    configure(Client::builder().name("mcp-runtime-conformance-client", "1.0.0").negotiation(negotiation))
        .connect_http(&scenario.url)
        .await
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let (Ok(name), Some(url)) = (std::env::var("MCP_CONFORMANCE_SCENARIO"), std::env::args().nth(1)) else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance-client <server-url>");
        return std::process::ExitCode::from(2);
    };
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|context| serde_json::from_str(&context).ok())
        .unwrap_or(Value::Null);
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok();
    let scenario = Scenario { name, url, context, version };
    let outcome = if scenario.name.starts_with("auth/") { auth::run(&scenario).await } else { Ok(()) };
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{}: {error}", scenario.name);
            std::process::ExitCode::FAILURE
        }
    }
}
