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
    for param in resource.arguments() {
        let name = param.wire_name();
        if !variables.contains(&name.as_str()) {
            let message = if variables.is_empty() {
                format!(
                    "`{name}` is not a variable of the URI `{}`, which has none: a static resource takes only injected parameters such as `Context`; use a template like `uri = \"scheme://{{{name}}}\"` to bind `{name}`",
                    uri.value()
                )
            } else {
                format!(
                    "`{name}` is not a variable of the URI template `{}`; its variables are: {}",
                    uri.value(),
                    variables.join(", ")
                )
            };
            errors.error(&param.ty, message);
        }
        if let Some(default) = &param.options.default {
            errors.error(default, "template variables arrive as text: make the parameter an `Option<T>` and use `.unwrap_or(...)` for a default");
        }
    }
    for variable in &variables {
        if !resource.arguments().any(|p| p.wire_name() == *variable) {
            errors.error(uri, format!("the URI template variable `{variable}` has no parameter: add `{variable}: String` (or any `FromStr` type) to the function"));
        }
    }
    for (name, _) in &options.complete {
        if !variables.contains(&name.to_string().as_str()) {
            errors.error(
                name,
                format!(
                    "`{name}` is not a variable of the URI template; completion is for template variables: {}",
                    variables.join(", ")
                ),
            );
        }
    }
    if options.list.is_some() && variables.is_empty() {
        errors.error(
            options.list.as_ref().unwrap_or_else(|| unreachable!()),
            "`list` enumerates a template's resources; a static resource is listed already",
        );
    }
    if let Some(priority) = &options.priority
        && !priority.base10_parse::<f64>().is_ok_and(|p| (0.0..=1.0).contains(&p))
    {
        errors.error(priority, "`priority` is between 0.0 (optional) and 1.0 (required)");
    }
    for role in options.audience.iter().flatten() {
        if !matches!(role.value().as_str(), "user" | "assistant") {
            errors.error(role, "an audience is `\"user\"` or `\"assistant\"`");
        }
    }
}
