use mcp_runtime::prelude::*;

#[mcp_resource(uri = "counter://hits")]
fn hits() -> i32 {
    42
}

fn main() {}
