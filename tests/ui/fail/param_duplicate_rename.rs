use mcp_runtime::prelude::*;

/// `y` is renamed to the name `x` already has.
#[mcp_tool]
fn point(x: f64, #[mcp(rename = "x")] y: f64) -> f64 {
    x + y
}

/// Two renames to the same name.
#[mcp_prompt]
fn greet(#[mcp(rename = "who")] first: String, #[mcp(rename = "who")] second: String) -> String {
    format!("{first} {second}")
}

fn main() {}
