use mcp_runtime::prelude::*;

/// The project's README.
#[mcp_resource(mime_type = "text/markdown")]
fn readme() -> String {
    "# Readme".into()
}

fn main() {}
