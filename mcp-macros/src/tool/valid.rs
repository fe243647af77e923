//! Checks only tools have: the name's format and a hand-written input schema.

use super::attr::ToolOptions;
use crate::diagnostics::Errors;
use crate::handler::HandlerFn;

pub(crate) fn check(tool: &HandlerFn, options: &ToolOptions, errors: &mut Errors) {
    check_name(tool, options, errors);
    if let Some(schema) = &options.input_schema {
        check_input_schema(schema, errors);
    }
    for scope in options.scopes.iter().flatten() {
        check_scope(scope, errors);
    }
    if let Some(blocking) = options.blocking.as_ref().filter(|b| b.value && tool.is_async()) {
        errors.error(
            blocking,
            "`blocking` is for sync functions, which it moves to tokio's blocking pool; an async tool \
             waits without blocking: remove `blocking`, or make the function a plain `fn`",
        );
    }
}

/// An OAuth scope token (RFC 6749 §3.3): printable ASCII without spaces, `"` or a backslash.
fn check_scope(scope: &syn::LitStr, errors: &mut Errors) {
    let value = scope.value();
    let valid = !value.is_empty() && value.bytes().all(|b| matches!(b, 0x21 | 0x23..=0x5b | 0x5d..=0x7e));
    if !valid {
        errors.error(
            scope,
            format!("invalid scope `{value}`: a scope is one token of printable ASCII without spaces, `\"` or `\\`; list several as `scopes = [\"a\", \"b\"]`"),
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
    match serde_json::from_str::<serde_json::Value>(&schema.value()) {
        Ok(value) if value.get("type").and_then(|t| t.as_str()) == Some("object") => {}
        Ok(_) => {
            errors.error(schema, "`input_schema` must be a JSON Schema object with `\"type\": \"object\"` at its root")
        }
        Err(err) => errors.error(schema, format!("`input_schema` is not valid JSON: {err}")),
    }
}
