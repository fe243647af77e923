// A type of the user's own that the runtime injects: the handler needs no marker, but the typed
// call `count::call(&client, ..)` is written from tokens and would take it as an argument.
#![deny(deprecated)]

use mcp_runtime::prelude::*;
use mcp_runtime::FromContext;

struct Database;

impl FromContext for Database {
    fn from_context(_: &Context) -> Result<Self, CallToolResult> {
        Ok(Database)
    }
}

#[mcp_tool]
fn count(db: Database, table: String) -> String {
    let _ = db;
    table
}

fn main() {}
