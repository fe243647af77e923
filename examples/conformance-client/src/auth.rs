//! The authorization scenarios (`auth/*`): the client's OAuth flow against the suite's
//! authorization servers. Not written yet: the flow itself (`mcp_runtime::client`, feature
//! `oauth`) comes first, and each scenario then gets its function here.

use super::{Outcome, Run};

/// Runs the authorization scenario `name`.
pub async fn run(_run: &Run, name: &str) -> Outcome {
    Err(format!("{name}: not yet: the client has no OAuth flow yet").into())
}
