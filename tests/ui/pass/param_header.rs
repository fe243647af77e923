use mcp_runtime::prelude::*;

/// Arguments mirrored in `Mcp-Param-*` headers, and a hand-written schema that says so itself.
#[mcp_tool]
fn query(
    #[mcp(header = "Region")] region: String,
    #[mcp(header = "Priority", default = 1)] priority: u32,
    #[mcp(header = "X-Verbose_2")] verbose: Option<bool>,
    #[mcp(header = "Initial")] initial: Option<char>,
    query: String,
) -> String {
    format!("{region} {priority} {verbose:?} {initial:?} {query}")
}

#[mcp_tool(input_schema = r#"{"type": "object", "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"},
    "job": {"type": "object", "properties": {"id": {"type": "integer", "x-mcp-header": "Job"}}}
}}"#)]
fn nested(region: String, job: serde_json::Value) -> String {
    format!("{region} {job}")
}

fn main() {
    let _ = tools![query, nested];
}
