//! A calculator MCP server: four tools over stdio.
//!
//! Run it with `cargo run -p calculator`, then connect an MCP client to it (see the README).

use mcp_runtime::prelude::*;
use std::fmt;

/// Add two numbers.
#[mcp_tool(read_only, idempotent, open_world = false)]
fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// Subtract `b` from `a`.
#[mcp_tool(read_only, idempotent, open_world = false)]
fn subtract(
    /// The number to subtract from
    a: f64,
    /// The number to subtract
    b: f64,
) -> f64 {
    a - b
}

/// Multiply two numbers.
#[mcp_tool(read_only, idempotent, open_world = false)]
fn multiply(
    /// The first factor
    a: f64,
    /// The second factor
    b: f64,
) -> f64 {
    a * b
}

/// Divide `a` by `b`.
#[mcp_tool(read_only, idempotent, open_world = false)]
fn divide(
    /// The dividend
    a: f64,
    /// The divisor; must not be zero
    b: f64,
) -> Result<f64, DivisionByZero> {
    if b == 0.0 { Err(DivisionByZero) } else { Ok(a / b) }
}

/// The one way a division fails: the model sees this message in an error result.
#[derive(Debug)]
struct DivisionByZero;

impl fmt::Display for DivisionByZero {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("cannot divide by zero")
    }
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    server!()
        .instructions("A calculator: use add, subtract, multiply and divide for exact arithmetic.")
        .tools(tools![add, subtract, multiply, divide])
        .serve_stdio()
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_runtime::testing::TestClient;
    use serde_json::json;

    #[test]
    fn the_functions_stay_plain_rust() {
        assert_eq!(add(1.0, 2.0), 3.0);
        assert!(divide(1.0, 0.0).is_err());
    }

    #[mcp_runtime::main]
    #[test]
    async fn the_tools_answer_through_the_protocol() {
        let client = TestClient::connect(server!().tools(tools![add, subtract, multiply, divide])).await;
        let result = client.call_tool("divide", json!({"a": 1, "b": 4})).await.unwrap();
        assert_eq!(result.text(), Some("0.25"));
        let result = client.call_tool("divide", json!({"a": 1, "b": 0})).await.unwrap();
        assert!(result.is_error);
        assert_eq!(result.text(), Some("cannot divide by zero"));
    }
}
