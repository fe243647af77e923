use mcp_runtime::prelude::*;

/// A todo to add, with schemars 0.8's derive (what many examples online use).
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NewTodo {
    title: String,
}

/// Adds a todo.
#[mcp_tool]
fn add_todo(todo: NewTodo) -> String {
    todo.title
}

/// The same through `rename`, which makes it an argument without a probe.
#[mcp_tool]
fn add_renamed(#[mcp(rename = "item")] todo: NewTodo) -> String {
    todo.title
}

fn main() {
    let _ = tools![add_todo, add_renamed];
}
