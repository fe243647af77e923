use mcp_runtime::prelude::*;

struct Note {
    text: String,
}

#[mcp_resource(uri = "notes://{name}")]
async fn note(name: String) -> Note {
    Note { text: name }
}

fn main() {}
