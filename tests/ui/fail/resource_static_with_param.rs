use mcp_runtime::prelude::*;

#[mcp_resource(uri = "docs://readme")]
fn readme(language: String) -> String {
    format!("# Readme ({language})")
}

fn main() {}
