//! Human in the loop: tools marked `#[mcp_tool(confirm)]` ask the user, through elicitation,
//! before they run.

use super::CallToolResult;
use crate::context::Context;
use crate::server_requests::{ClientError, Elicitation};
use crate::settings::ConfirmationFallback;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

/// `Ok` when the call may go ahead; otherwise the result to answer with instead.
pub(crate) async fn confirm(
    ctx: &Context,
    tool: &str,
    arguments: Option<&RawValue>,
    fallback: ConfirmationFallback,
) -> Result<(), CallToolResult> {
    let shown = arguments.map_or("{}", RawValue::get);
    let message = format!("Allow the tool `{tool}` to run with these arguments?\n{shown}");
    let schema: Map<String, Value> = serde_json::from_value(json!({
        "type": "object",
        "properties": {"confirm": {"type": "boolean", "title": "Run it", "description": "Check to let the tool run"}},
        "required": ["confirm"],
    }))
    .unwrap_or_default();
    match ctx.elicit_with_schema(message, schema).await {
        Ok(Elicitation::Accept(content)) if content.get("confirm") == Some(&Value::Bool(true)) => Ok(()),
        Ok(_) => Err(CallToolResult::error(format!("the user did not allow `{tool}` to run; it was not run"))),
        Err(ClientError::Unsupported { .. }) if fallback == ConfirmationFallback::Allow => Ok(()),
        Err(ClientError::Unsupported { .. }) => Err(CallToolResult::error(format!(
            "`{tool}` needs the user's confirmation, but this client cannot ask for it (no elicitation support); it was not run"
        ))),
        Err(err) => {
            Err(CallToolResult::error(format!("could not ask the user to confirm `{tool}`: {err}; it was not run")))
        }
    }
}
