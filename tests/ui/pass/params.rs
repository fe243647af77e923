use mcp_runtime::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// Search the catalogue.
#[mcp_tool]
fn search(
    /// What to look for
    query: String,
    /// How many results at most
    #[mcp(default = 10)]
    limit: u32,
    #[mcp(rename = "caseSensitive", description = "Match case exactly")]
    case_sensitive: Option<bool>,
    #[mcp(rename = "from", default = "start", description = "Where to begin")]
    cursor: String,
    /// An optional point
    near: Option<Point>,
    tags: Vec<String>,
) -> String {
    let near = near.map(|p| p.x + p.y);
    format!("{query} {limit} {case_sensitive:?} {cursor} {near:?} {}", tags.len())
}

fn main() {
    let _ = tools![search];
}
