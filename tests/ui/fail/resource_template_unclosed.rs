use mcp_runtime::prelude::*;

#[mcp_resource(uri = "notes://{name")]
fn note(name: String) -> String {
    name
}

fn main() {}
