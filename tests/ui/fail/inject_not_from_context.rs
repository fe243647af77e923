use mcp_runtime::prelude::*;

struct Database;

#[mcp_tool]
fn count(#[mcp(inject)] db: Database, table: String) -> String {
    let _ = db;
    table
}

fn main() {}
