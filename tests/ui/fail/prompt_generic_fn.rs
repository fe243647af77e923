use mcp_runtime::prelude::*;

#[mcp_prompt]
fn review<T: std::str::FromStr>(code: T) -> String {
    let _ = code;
    "Review".into()
}

fn main() {}
