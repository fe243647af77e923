use mcp_runtime::prelude::*;

struct NoteId {
    value: String,
}

#[mcp_resource(uri = "notes://{id}")]
fn note(id: NoteId) -> String {
    id.value
}

fn main() {}
