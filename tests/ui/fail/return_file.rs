use mcp_runtime::prelude::*;

#[mcp_tool]
fn open(path: String) -> std::fs::File {
    std::fs::File::open(path).unwrap()
}

fn main() {}
