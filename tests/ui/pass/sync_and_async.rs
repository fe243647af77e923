use mcp_runtime::prelude::*;

/// Add two numbers.
#[mcp_tool(read_only, idempotent, open_world = false)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Wait, then answer.
#[mcp_tool(title = "Slow echo", description = "Echoes its input")]
async fn slow_echo(text: String) -> String {
    text
}

/// No parameters and no return value.
#[mcp_tool(destructive = false, icon = "https://example.com/icon.png")]
fn ping() {}

fn main() {
    // The functions stay plain Rust.
    assert_eq!(add(1.0, 2.0), 3.0);
    let _future = slow_echo(String::from("hi"));
    ping();
    let tools = tools![add, slow_echo, ping];
    assert_eq!(tools.len(), 3);
}
