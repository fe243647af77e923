//! Checks only resources have: a URI (template) that parses, whose variables match the
//! function's parameters one to one, and annotations in range.

use super::attr::ResourceOptions;
use super::template_syntax;
use crate::diagnostics::Errors;
use crate::handler::HandlerFn;
use proc_macro2::Span;

pub(crate) fn check(resource: &HandlerFn, options: &ResourceOptions, attr_span: Span, errors: &mut Errors) {
    let Some(uri) = &options.uri else {
        errors.push(syn::Error::new(
            attr_span,
            "a resource needs its URI: `#[mcp_resource(uri = \"docs://readme\")]`, or a template such as `uri = \"notes://{name}\"`",
        ));
        return;
    };
    let parts = match template_syntax::parse(&uri.value()) {
        Ok(parts) => parts,
        Err(problem) => return errors.error(uri, format!("invalid URI template: {problem}")),
    };
    if !uri.value().contains("://") && !uri.value().contains(':') {
        errors.error(uri, "a resource URI needs a scheme, e.g. `docs://readme` or `file:///{+path}`");
    }
    let variables: Vec<&str> = template_syntax::variables(&parts).collect();
    let template = uri.value();
    for param in resource.arguments() {
        let name = param.wire_name();
        if !variables.contains(&name.as_str()) {
            let message = if variables.is_empty() {
                format!(
                    "`{name}` is not a variable of the URI `{template}`, which has none: a static resource takes only injected parameters such as `Context`; to bind `{name}`, make the URI a template such as `uri = \"{}/{{{name}}}\"`",
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
    if let Some(priority) = &options.priority
        && !priority.base10_parse::<f64>().is_ok_and(|p| (0.0..=1.0).contains(&p))
    {
        errors.error(
            priority,
            "`priority` is between 0.0 (least important) and 1.0 (most important), e.g. `priority = 0.8`",
        );
    }
    if let Some(scope) = &options.cache_scope
        && !matches!(scope.value().as_str(), "public" | "private")
    {
        errors.error(scope, "`cache_scope` is `\"public\"` (shareable across users) or `\"private\"` (per user)");
    }
    if let Some(ttl) = &options.ttl_ms
        && ttl.base10_parse::<u64>().is_err()
    {
        errors.error(ttl, "`ttl_ms` is a whole number of milliseconds, e.g. `ttl_ms = 60000`");
    }
    for role in options.audience.iter().flatten() {
        if !matches!(role.value().as_str(), "user" | "assistant") {
            errors.error(
                role,
                "an audience is `\"user\"` or `\"assistant\"`, e.g. `audience = [\"user\", \"assistant\"]`",
            );
        }
    }
}

/// `` `a`, `b` ``.
fn quoted(names: &[&str]) -> String {
    names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
}
