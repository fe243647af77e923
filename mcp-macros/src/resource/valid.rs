//! Checks only resources have: a URI (template) that parses, whose variables match the
//! function's parameters one to one, and annotations in range.

use super::attr::ResourceOptions;
use super::template_syntax;
use crate::diagnostics::Errors;
use crate::handler::{HandlerFn, Role};
use proc_macro2::Span;
use syn::LitStr;

pub(crate) fn check(
    resource: &HandlerFn,
    options: &ResourceOptions,
    missing_uri_at: Option<Span>,
    errors: &mut Errors,
) {
    check_annotations(options, errors);
    match &options.uri {
        Some(uri) => check_uri(resource, options, uri, errors),
        None => errors.extend(missing_uri_at.map(|span| syn::Error::new(
            span,
            "a resource needs its URI: `#[mcp_resource(uri = \"docs://readme\")]`, or a template such as `uri = \"notes://{name}\"`",
        ))),
    }
}

/// The URI (template) against the function's parameters and the options that need variables.
fn check_uri(resource: &HandlerFn, options: &ResourceOptions, uri: &LitStr, errors: &mut Errors) {
    let parts = match template_syntax::parse(&uri.value()) {
        Ok(parts) => parts,
        Err(problem) => return errors.error(uri, format!("invalid URI template: {problem}")),
    };
    if !uri.value().contains("://") && !uri.value().contains(':') {
        errors.error(uri, "a resource URI needs a scheme, e.g. `docs://readme` or `file:///{+path}`");
    }
    let variables: Vec<&str> = template_syntax::variables(&parts).collect();
    let template = uri.value();
    // Only the parameters that are arguments whatever their type (given `rename` or `default`)
    // must be variables; any other one that is not is injected (or refused for its type).
    for param in resource.arguments().filter(|p| p.role == Role::Argument) {
        let name = param.wire_name();
        if !variables.contains(&name.as_str()) {
            let message = if variables.is_empty() {
                format!(
                    "`{name}` is not a variable of the URI `{template}`, which has none: a static resource takes only injected parameters (types that implement `FromContext`, such as `Context`); to bind `{name}`, make the URI a template such as `uri = \"{}/{{{name}}}\"`",
                    template.trim_end_matches('/'),
                )
            } else {
                format!(
                    "`{name}` is not a variable of the URI template `{template}` (its variables: {}): add `{{{name}}}` to the template, or remove the parameter",
                    quoted(&variables),
                )
            };
            errors.error(param.name_tokens(), message);
        }
        if let Some(default) = &param.options.default {
            errors.error(default, "template variables arrive as text: make the parameter an `Option<T>` and use `.unwrap_or(...)` for a default");
        }
    }
    for variable in &variables {
        if !resource.arguments().any(|p| p.wire_name() == *variable) {
            errors.error(uri, format!("the URI template variable `{variable}` has no parameter: add `{variable}: String` (or another type that parses from text) to the function"));
        }
    }
    for (name, _) in &options.complete {
        if variables.is_empty() {
            errors.error(name, format!("the URI `{template}` has no variables to complete: remove `complete(...)`, or make the URI a template such as `uri = \"notes://{{name}}\"`"));
        } else if !variables.contains(&name.to_string().as_str()) {
            errors.error(
                name,
                format!(
                    "`{name}` is not a variable of the URI template `{template}`: `complete(...)` names template variables, here {}",
                    quoted(&variables),
                ),
            );
        }
    }
    if let Some(list) = &options.list
        && variables.is_empty()
    {
        errors.error(
            list,
            "`list` enumerates the resources of a URI template; a static resource is listed already: remove `list = ...`",
        );
    }
}

/// The options that describe the resource to clients: annotations, MIME type, caching.
fn check_annotations(options: &ResourceOptions, errors: &mut Errors) {
    if let Some(priority) = &options.priority
        && !priority.base10_parse::<f64>().is_ok_and(|p| (0.0..=1.0).contains(&p))
    {
        errors.error(
            priority,
            "`priority` is between 0.0 (least important) and 1.0 (most important), e.g. `priority = 0.8`",
        );
    }
    for role in options.audience.iter().flatten() {
        if !matches!(role.value().as_str(), "user" | "assistant") {
            errors.error(
                role,
                "an audience is `\"user\"` or `\"assistant\"`, e.g. `audience = [\"user\", \"assistant\"]`",
            );
        }
    }
    if let Some(time) = &options.last_modified
        && !is_rfc3339(&time.value())
    {
        errors.error(
            time,
            "`last_modified` is an ISO 8601 date and time with its offset, e.g. `last_modified = \"2025-01-12T15:00:58Z\"`",
        );
    }
    if let Some(mime_type) = &options.mime_type
        && !is_mime_type(&mime_type.value())
    {
        errors.error(
            mime_type,
            "`mime_type` is a type and a subtype, e.g. `mime_type = \"text/markdown\"` or `\"application/json\"`",
        );
    }
    if let Some(scope) = &options.cache_scope
        && !matches!(scope.value().as_str(), "public" | "private")
    {
        errors.error(
            scope,
            "`cache_scope` is `\"public\"` (any cache may keep the contents) or `\"private\"` (only the requesting user's client may)",
        );
    }
}

/// `2025-01-12T15:00:58Z`, `2025-01-12T15:00:58.123+01:00`: an RFC 3339 date-time, the profile
/// of ISO 8601 that the MCP schema's `lastModified` examples use.
fn is_rfc3339(text: &str) -> bool {
    /// `parts` separated by `separator`, each of exactly `widths[i]` digits.
    fn fields(text: &str, separator: char, widths: &[usize]) -> bool {
        let parts: Vec<&str> = text.split(separator).collect();
        parts.len() == widths.len()
            && parts
                .iter()
                .zip(widths)
                .all(|(part, width)| part.len() == *width && part.bytes().all(|b| b.is_ascii_digit()))
    }
    let Some((date, time)) = text.split_once(['T', 't', ' ']) else { return false };
    let Some(at) = time.find(['Z', 'z', '+', '-']) else { return false };
    let (clock, offset) = time.split_at(at);
    let (clock, fraction) = clock.split_once('.').unwrap_or((clock, "0"));
    fields(date, '-', &[4, 2, 2])
        && fields(clock, ':', &[2, 2, 2])
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && (matches!(offset, "Z" | "z") || fields(&offset[1..], ':', &[2, 2]))
}

/// `type/subtype`, parameters allowed: `text/plain; charset=utf-8`.
fn is_mime_type(text: &str) -> bool {
    let essence = text.split(';').next().unwrap_or_default().trim();
    let token = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&b));
    matches!(essence.split_once('/'), Some((kind, subtype)) if token(kind) && token(subtype))
}

/// `` `a`, `b` ``.
fn quoted(names: &[&str]) -> String {
    names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
}
