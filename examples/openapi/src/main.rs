//! An OpenAPI service as an MCP server over stdio: each operation of the document at
//! `OPENAPI_URL` (a URL or a file; Swagger 2.0, OpenAPI 3.0 or 3.1, as JSON) becomes a tool that
//! calls the service at `BASE_URL`. `OPENAPI_HEADER`, if set (`Authorization: Bearer ...`), is
//! sent with every call.
//!
//! ```text
//! OPENAPI_URL=https://httpbin.org/spec.json BASE_URL=https://httpbin.org cargo run -p openapi
//! ```

use mcp_runtime::openapi::OpenApi;
use mcp_runtime::{Error, server};

fn variable(name: &str) -> mcp_runtime::Result<String> {
    std::env::var(name).map_err(|_| Error::msg(format!("set {name} (see examples/openapi/src/main.rs)")))
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    let document = OpenApi::load(&variable("OPENAPI_URL")?).await?;
    let mut api = OpenApi::new(document, variable("BASE_URL")?);
    if let Ok(header) = std::env::var("OPENAPI_HEADER") {
        let (name, value) = header.split_once(':').ok_or_else(|| Error::msg("OPENAPI_HEADER is `Name: value`"))?;
        api = api.header(name.trim(), value.trim());
    }
    server!().tools(api.tools()?).serve_stdio().await
}
