use mcp_runtime::prelude::*;

// Every mistake below is reported by one build, each on its own tokens.
#[mcp_tool(name = "bad name", readonly, timeout_ms = 0, scopes = ["a b"], title = "T", title = "U")]
fn many<T>(
    text: &str,
    #[mcp(rename = "count")] n: u32,
    count: u32,
    #[mcp(colour = "red")] extra: bool,
) -> String {
    format!("{text} {n} {count} {extra}")
}

fn main() {}
