//! Which tools a caller may see and call: `#[mcp_tool(scopes = [...])]` against the scopes of
//! the caller's token.

use super::{AuthInfo, current_caller};
use crate::registry::Registry;
use serde_json::Value;
use serde_json::value::RawValue;

/// The scopes in `required` that `caller` was not granted.
pub(crate) fn missing<'a>(required: &[&'a str], caller: &AuthInfo) -> Vec<&'a str> {
    required.iter().copied().filter(|scope| !caller.has_scope(scope)).collect()
}

/// A `tools/list` page without the tools the current caller lacks scopes for; `None` when
/// the page stands as it is (no verified caller, or nothing to hide).
pub(crate) fn visible_tools(registry: &Registry, page: &RawValue) -> Option<Value> {
    let caller = current_caller()?;
    let hidden = |name: &str| registry.tools.get(name).is_some_and(|tool| !missing(tool.scopes, &caller).is_empty());
    if !registry.tools.items().any(|tool| hidden(&tool.name)) {
        return None;
    }
    let mut page: Value = serde_json::from_str(page.get()).ok()?;
    if let Some(tools) = page.get_mut("tools").and_then(Value::as_array_mut) {
        tools.retain(|tool| !tool.get("name").and_then(Value::as_str).is_some_and(hidden));
    }
    Some(page)
}
