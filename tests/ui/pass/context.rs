use mcp_runtime::CancellationToken;
use mcp_runtime::prelude::*;

/// Report progress while working.
#[mcp_tool]
async fn work(ctx: Context, steps: u32) -> String {
    for step in 0..steps {
        ctx.progress(f64::from(step), f64::from(steps)).await;
    }
    format!("done {}", ctx.is_cancelled())
}

#[mcp_tool]
fn cancellable(token: CancellationToken, #[mcp(inject)] ctx: mcp_runtime::Context) -> bool {
    let _ = ctx;
    token.is_cancelled()
}

fn main() {
    let _ = tools![work, cancellable];
}
