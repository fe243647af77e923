//! Checks only tools have: the name's format, a hand-written input schema, time limits,
//! `blocking`, `task`, `tags`, and (in `headers.rs`) the arguments mirrored in HTTP headers.

use super::attr::ToolOptions;
use crate::diagnostics::Errors;
use crate::handler::HandlerFn;

pub(crate) fn check(tool: &HandlerFn, options: &ToolOptions, errors: &mut Errors) {
    check_name(tool, options, errors);
    super::headers::check(tool, options, errors);
    if let Some(schema) = &options.input_schema {
        check_input_schema(schema, errors);
    }
    if let Some(timeout) = options.timeout_ms.as_ref().filter(|t| t.base10_digits() == "0") {
        errors.error(
            timeout,
            "a tool cannot have a time limit of 0 ms: give it at least 1, e.g. `timeout_ms = 5000`, or remove \
             `timeout_ms` to use the server's default (`Server::tool_timeout`)",
        );
    }
    if let Some(task) = options.task.as_ref().filter(|t| !matches!(t.value().as_str(), "optional" | "required")) {
        errors.error(
            task,
            format!(
                "unknown task support `{}`: write `task = \"optional\"` (the client decides: a task when it \
                 supports them, else a plain call) or `task = \"required\"` (only as a task); leave `task` out \
                 for a tool that never runs as one",
                task.value()
            ),
        );
    }
    for tag in options.tags.iter().flatten().filter(|tag| tag.value().trim().is_empty()) {
        errors.error(
            tag,
            "a tag cannot be empty: name the group the tool belongs to, e.g. `tags = [\"admin\"]`, which \
             `Server::disable_tags([\"admin\"])` switches off",
        );
    }
    if let Some(blocking) = options.blocking.as_ref().filter(|b| b.value && tool.is_async()) {
        errors.error(
            blocking,
            "`blocking` is for sync functions, which it moves to tokio's blocking pool; an async tool \
             waits without blocking: remove `blocking`, or make the function a plain `fn`",
        );
    }
}

/// The wire name: the `name` option, else the function's name.
pub(crate) fn tool_name(tool: &HandlerFn, options: &ToolOptions) -> String {
    options.common.name.as_ref().map_or_else(|| tool.default_name(), syn::LitStr::value)
}

/// 1 to 128 characters of `[A-Za-z0-9_.-]`, as the 2025-11-25 spec asks.
fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn check_name(tool: &HandlerFn, options: &ToolOptions, errors: &mut Errors) {
    let name = tool_name(tool, options);
    if is_valid_tool_name(&name) {
        return;
    }
    let message =
        format!("invalid tool name `{name}`: a tool name is 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`");
    match &options.common.name {
        Some(lit) => errors.error(lit, message),
        None => errors.error(tool.ident(), format!("{message}; set one with `#[mcp_tool(name = \"...\")]`")),
    }
}

fn check_input_schema(schema: &syn::LitStr, errors: &mut Errors) {
    const EXAMPLE: &str = r##"input_schema = r#"{"type": "object", "properties": {"text": {"type": "string"}}}"#"##;
    match serde_json::from_str::<serde_json::Value>(&schema.value()) {
        Ok(value) if value.get("type").and_then(|t| t.as_str()) == Some("object") => {}
        Ok(value) => {
            let found = match value.get("type") {
                Some(found) => format!("this one has `\"type\": {found}`"),
                None if value.is_object() => "this one has no `type`".to_owned(),
                None => format!("this one is {}", kind(&value)),
            };
            errors.error(
                schema,
                format!("a tool's arguments are a JSON object, so `input_schema` needs `\"type\": \"object\"` at its root ({found}): write e.g. `{EXAMPLE}`"),
            );
        }
        Err(err) => errors
            .error(schema, format!("`input_schema` is not valid JSON: {err}; write a JSON Schema, e.g. `{EXAMPLE}`")),
    }
}

/// `a string`, `an array`... for messages.
fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "`null`",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
