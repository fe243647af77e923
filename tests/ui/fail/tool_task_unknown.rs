// `task` takes "optional" or "required"; the message says what each means.
use mcp_runtime::prelude::*;

#[mcp_tool(task = "always")]
async fn export() -> &'static str {
    "exported"
}

fn main() {}
