use mcp_runtime::prelude::*;

#[mcp_resource(uri = "notes://{name}", complete(title = complete_note))]
fn note(name: String) -> String {
    name
}

fn complete_note(request: CompletionRequest) -> Vec<String> {
    request.filter(["todo", "ideas"])
}

fn main() {}
