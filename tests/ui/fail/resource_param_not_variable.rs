use mcp_runtime::prelude::*;

#[mcp_resource(uri = "notes://{name}")]
fn note(name: String, version: u32) -> String {
    format!("{name} v{version}")
}

fn main() {}
