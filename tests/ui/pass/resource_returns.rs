//! A resource may return each of these types.

use mcp_runtime::prelude::*;
use mcp_runtime::{ReadResourceResult, ResourceContents};

#[derive(Serialize)]
struct Settings {
    theme: String,
}

#[mcp_resource(uri = "r://string")]
fn string() -> String {
    "text".into()
}

#[mcp_resource(uri = "r://static-str")]
fn static_str() -> &'static str {
    "text"
}

#[mcp_resource(uri = "r://bytes", mime_type = "image/png")]
fn bytes() -> Vec<u8> {
    vec![0x89, b'P', b'N', b'G']
}

#[mcp_resource(uri = "r://json")]
fn json() -> Json<Settings> {
    Json(Settings { theme: "dark".into() })
}

#[mcp_resource(uri = "r://contents")]
fn contents() -> ResourceContents {
    ResourceContents::text("r://contents", "text/plain", "text")
}

#[mcp_resource(uri = "r://several")]
fn several() -> Vec<ResourceContents> {
    vec![ResourceContents::text("r://a", "text/plain", "a"), ResourceContents::text("r://b", "text/plain", "b")]
}

#[mcp_resource(uri = "r://result")]
async fn result() -> ReadResourceResult {
    ReadResourceResult { contents: vec![ResourceContents::text("r://result", "text/plain", "text")], meta: None }
}

#[mcp_resource(uri = "r://maybe/{name}")]
fn maybe(name: String) -> Option<String> {
    (name == "here").then(|| "found".to_owned())
}

#[mcp_resource(uri = "r://not-found/{name}")]
fn not_found(name: String) -> Result<String, ResourceNotFound> {
    if name == "here" { Ok("found".into()) } else { Err(ResourceNotFound) }
}

#[mcp_resource(uri = "r://file/{name}")]
async fn file(name: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(name)
}

fn main() {
    let _ = resources![string, static_str, bytes, json, contents, several, result, maybe, not_found, file];
    // The functions stay ordinary Rust.
    assert_eq!(string(), "text");
    assert_eq!(maybe("here".into()).as_deref(), Some("found"));
}
