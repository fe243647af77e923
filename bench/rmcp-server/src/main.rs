//! The benchmark server on rmcp, written as its documentation and tests do: `#[tool_router]`
//! blocks of `#[tool]` methods, `Parameters<T>` argument structs, `#[tool_handler]`.
//! `bench-rmcp` serves stdio (`rmcp::transport::stdio_pipes()`, which rmcp's documentation
//! recommends when both streams are pipes: non-blocking, no thread hand-off per message); `bench-rmcp http` serves rmcp's
//! `StreamableHttpService` (sessions, `LocalSessionManager`) with hyper on a free port, printed
//! on stdout.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Bench {
    tool_router: ToolRouter<Self>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// The text to echo
    pub text: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// The first addend
    pub a: f64,
    /// The second addend
    pub b: f64,
}

#[tool_router]
impl Bench {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() + Self::generated_router() }
    }

    /// Echo the text back.
    #[tool]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    /// Add two numbers.
    #[tool]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }

    /// Return 64 KB of text.
    #[tool]
    fn big(&self) -> String {
        "0123456789abcdef".repeat(4096)
    }
}

include!(concat!(env!("OUT_DIR"), "/generated.rs"));

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    if std::env::args().nth(1).as_deref() == Some("http") {
        let service = StreamableHttpService::new(
            || Ok(Bench::new()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("{}", listener.local_addr()?.port());
        loop {
            let (stream, _) = listener.accept().await?;
            stream.set_nodelay(true)?; // else an SSE answer waits 40 ms for the delayed ACK (Nagle)
            let service = hyper_util::service::TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
            });
        }
    } else {
        Bench::new().serve(rmcp::transport::stdio_pipes()).await?.waiting().await?;
        Ok(())
    }
}
