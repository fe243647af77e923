use mcp_runtime::prelude::*;
use std::fmt;

#[derive(Serialize, JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

#[mcp_tool]
fn origin() -> Json<Point> {
    Json(Point { x: 0.0, y: 0.0 })
}

#[mcp_tool]
fn numbers() -> Json<Vec<i32>> {
    Json(vec![1, 2, 3])
}

#[derive(Debug)]
struct NotFound;

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not found")
    }
}

#[mcp_tool]
fn lookup(key: String) -> Result<String, NotFound> {
    if key.is_empty() { Err(NotFound) } else { Ok(key) }
}

#[mcp_tool]
async fn structured_or_error(key: String) -> Result<Json<Point>, String> {
    if key.is_empty() { Err("empty key".to_owned()) } else { Ok(Json(Point { x: 1.0, y: 2.0 })) }
}

#[mcp_tool]
fn raw() -> CallToolResult {
    CallToolResult::success([Content::text("hi")])
}

#[mcp_tool]
fn blocks() -> Vec<Content> {
    vec![Content::text("a"), Content::text("b")]
}

fn main() {
    let _ = tools![origin, numbers, lookup, structured_or_error, raw, blocks];
}
