//! The checks on a tool function. Each error sits on the user's offending tokens and says what
//! to write instead.

use super::ast::ToolFn;
use super::attr::ToolOptions;
use crate::diagnostics::Errors;
use quote::ToTokens;
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{FnArg, ReturnType, Type};

pub(crate) fn check(tool: &ToolFn, options: &ToolOptions, errors: &mut Errors) {
    check_signature(tool, errors);
    check_params(tool, errors);
    check_name(tool, options, errors);
    if let Some(schema) = &options.input_schema {
        check_input_schema(schema, errors);
    }
}

/// The wire name: the `name` option, else the function's name.
pub(crate) fn tool_name(tool: &ToolFn, options: &ToolOptions) -> String {
    match &options.name {
        Some(name) => name.value(),
        None => tool.ident().to_string().trim_start_matches("r#").to_owned(),
    }
}

fn check_signature(tool: &ToolFn, errors: &mut Errors) {
    let sig = &tool.item.sig;
    if let Some(receiver) = sig.inputs.iter().find(|i| matches!(i, FnArg::Receiver(_))) {
        errors.error(
            receiver,
            "a tool must be a free function, not a method: remove `self` and pass what the tool needs as parameters",
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.error(
            &sig.generics,
            "a tool cannot be generic: the input schema needs concrete types; write the parameter types out",
        );
    }
    if let Some(constness) = &sig.constness {
        errors.error(constness, "a tool cannot be a `const fn`: remove `const`");
    }
    if let Some(unsafety) = &sig.unsafety {
        errors.error(unsafety, "a tool cannot be `unsafe`: a client cannot uphold a safety contract; make the function safe and keep the `unsafe` block inside it");
    }
    if let Some(abi) = &sig.abi {
        errors.error(
            abi,
            "a tool cannot have an `extern` ABI: remove `extern` (call the extern function from a plain Rust one)",
        );
    }
    if let Some(variadic) = &sig.variadic {
        errors.error(variadic, "a tool cannot be variadic: take a `Vec<T>` parameter instead");
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Type::ImplTrait(_) = &**ty
    {
        errors.error(ty, "a tool cannot return `impl Trait`: name the concrete return type (e.g. `String`, `Json<T>` or `CallToolResult`)");
    }
}

fn check_params(tool: &ToolFn, errors: &mut Errors) {
    let mut wire_names = HashSet::new();
    for param in &tool.params {
        if param.injected {
            if let Some(rename) = &param.options.rename {
                errors.error(rename, "an injected parameter is not an argument: it takes no `rename`");
            }
            if let Some(default) = &param.options.default {
                errors.error(default, "an injected parameter is not an argument: it takes no `default`");
            }
            continue;
        }
        let mut borrowed = BorrowFinder::default();
        borrowed.visit_type(&param.ty);
        if borrowed.found {
            errors.error(
                &param.ty,
                format!("tool parameters are deserialized into owned values: {}", owned_hint(&param.ty)),
            );
        }
        if let Type::ImplTrait(_) = &param.ty {
            errors.error(&param.ty, "a tool parameter needs a concrete type, not `impl Trait`");
        }
        let wire = param.options.rename.as_ref().map_or_else(|| param.ident.to_string(), syn::LitStr::value);
        if !wire_names.insert(wire.clone()) {
            errors.error(param.options.rename.as_ref().map_or(param.ident.to_token_stream(), ToTokens::to_token_stream), format!("two parameters are both named `{wire}` in the arguments; rename one with `#[mcp(rename = \"...\")]`"));
        }
    }
}

fn owned_hint(ty: &Type) -> String {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) if p.path.is_ident("str") => "use `String` instead of `&str`".to_owned(),
            Type::Slice(s) => format!("use `Vec<{}>` instead of `&[{0}]`", s.elem.to_token_stream()),
            elem => format!("use `{}` instead of a reference", elem.to_token_stream()),
        },
        _ => "use owned types without lifetimes (e.g. `String` rather than `Cow<'a, str>`)".to_owned(),
    }
}

/// Finds references and lifetimes anywhere in a type.
#[derive(Default)]
struct BorrowFinder {
    found: bool,
}

impl<'ast> Visit<'ast> for BorrowFinder {
    fn visit_type_reference(&mut self, _: &'ast syn::TypeReference) {
        self.found = true;
    }
    fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
        self.found |= lifetime.ident != "static";
    }
}

/// 1 to 128 characters of `[A-Za-z0-9_.-]`, as the 2025-11-25 spec asks.
fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn check_name(tool: &ToolFn, options: &ToolOptions, errors: &mut Errors) {
    let name = tool_name(tool, options);
    if is_valid_tool_name(&name) {
        return;
    }
    let message =
        format!("invalid tool name `{name}`: a tool name is 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`");
    match &options.name {
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
