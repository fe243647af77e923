use mcp_runtime::prelude::*;

/// Add two numbers.
#[mcp_tool(read_only, idempotent, open_world = false)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Wait, then answer.
#[mcp_tool(title = "Slow echo", description = "Echoes its input")]
async fn slow_echo(text: String) -> String {
    text
}

/// Hash a file: slow, blocking work, run on tokio's blocking pool.
#[mcp_tool(blocking, read_only)]
fn checksum(path: String) -> Result<String, String> {
    let bytes = std::fs::read(&path).map_err(|err| format!("cannot read {path}: {err}"))?;
    Ok(format!("{:x}", bytes.iter().fold(0u64, |sum, &b| sum.wrapping_mul(31).wrapping_add(u64::from(b)))))
}

/// No parameters and no return value.
#[mcp_tool(destructive = false, icon = "https://example.com/icon.png")]
fn ping() {}

fn main() {
    // The functions stay plain Rust.
    assert_eq!(add(1.0, 2.0), 3.0);
    let _future = slow_echo(String::from("hi"));
    ping();
    assert!(checksum(String::from("/nonexistent")).is_err());
    let tools = tools![add, slow_echo, checksum, ping];
    assert_eq!(tools.len(), 4);
}
