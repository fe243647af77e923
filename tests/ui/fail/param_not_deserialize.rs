use mcp_runtime::prelude::*;

struct Point {
    x: f64,
    y: f64,
}

#[mcp_tool]
fn norm(point: Point) -> f64 {
    (point.x * point.x + point.y * point.y).sqrt()
}

fn main() {}
