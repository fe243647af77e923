use mcp_runtime::prelude::*;

#[mcp_resource(uri = "readme.md")]
fn readme() -> String {
    "# Readme".into()
}

fn main() {}
