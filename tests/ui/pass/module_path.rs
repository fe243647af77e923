use mcp_runtime::prelude::*;

mod math {
    use mcp_runtime::prelude::*;

    /// Divide `a` by `b`.
    #[mcp_tool(name = "math.divide")]
    pub fn divide(a: f64, b: f64) -> Result<f64, String> {
        if b == 0.0 { Err("cannot divide by zero".to_owned()) } else { Ok(a / b) }
    }

    pub mod nested {
        use mcp_runtime::prelude::*;

        #[mcp_tool]
        pub fn negate(x: f64) -> f64 {
            -x
        }
    }
}

#[mcp_tool]
fn divide(a: i64, b: i64) -> i64 {
    a / b
}

fn main() {
    // Same function name, different wire names: no duplicate.
    let tools = tools![divide, math::divide, math::nested::negate];
    assert_eq!(tools.len(), 3);
    assert_eq!(math::divide(1.0, 4.0), Ok(0.25));
}
