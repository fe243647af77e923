use mcp_runtime::prelude::*;

#[mcp_resource(uri = "x://{a*}")]
fn items(a: String) -> String {
    a
}

fn main() {}
