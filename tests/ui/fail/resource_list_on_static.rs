use mcp_runtime::prelude::*;

#[mcp_resource(uri = "docs://readme", list = list_docs)]
fn readme() -> String {
    "# Readme".into()
}

fn list_docs() -> Vec<ResourceEntry> {
    vec![ResourceEntry::new("docs://readme", "readme")]
}

fn main() {}
