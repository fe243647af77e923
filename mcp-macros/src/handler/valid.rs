//! Checks every annotated function gets. Each error sits on the user's offending tokens and
//! says what to write instead.

use super::options::CommonOptions;
use super::{HandlerFn, Kind, Role};
use crate::diagnostics::Errors;
use quote::ToTokens;
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{FnArg, ReturnType, Type};

pub(crate) fn check(handler: &HandlerFn, kind: Kind, errors: &mut Errors) {
    check_signature(handler, kind, errors);
    check_params(handler, kind, errors);
}

/// The options every macro has: `meta` and `scopes`.
pub(crate) fn check_common(options: &CommonOptions, errors: &mut Errors) {
    check_meta(options.meta.as_ref(), errors);
    for scope in options.scopes.iter().flatten() {
        check_scope(scope, errors);
    }
}

/// `meta = "..."` is a JSON object: a definition's `_meta` is one.
fn check_meta(meta: Option<&syn::LitStr>, errors: &mut Errors) {
    const EXAMPLE: &str = r##"meta = r#"{"com.example/ui": {"panel": "wide"}}"#"##;
    let Some(meta) = meta else { return };
    match serde_json::from_str::<serde_json::Value>(&meta.value()) {
        Ok(serde_json::Value::Object(_)) => {}
        Ok(_) => errors
            .error(meta, format!("`meta` must be a JSON object, with keys of your own prefix: write e.g. `{EXAMPLE}`")),
        Err(err) => {
            errors.error(meta, format!("`meta` is not valid JSON: {err}; write a JSON object, e.g. `{EXAMPLE}`"))
        }
    }
}

/// An OAuth scope token (RFC 6749 §3.3): printable ASCII without spaces, `"` or a backslash.
fn check_scope(scope: &syn::LitStr, errors: &mut Errors) {
    let value = scope.value();
    if value.is_empty() {
        return errors
            .error(scope, "a scope cannot be empty: write one such as `scopes = [\"files:write\"]`, or remove it");
    }
    if !value.bytes().all(|b| matches!(b, 0x21 | 0x23..=0x5b | 0x5d..=0x7e)) {
        errors.error(
            scope,
            format!("invalid scope `{value}`: a scope is one token of printable ASCII without spaces, `\"` or `\\`; list several as `scopes = [\"a\", \"b\"]`"),
        );
    }
}

fn check_signature(handler: &HandlerFn, kind: Kind, errors: &mut Errors) {
    let sig = &handler.item.sig;
    let noun = kind.noun();
    if let Some(receiver) = sig.inputs.iter().find(|i| matches!(i, FnArg::Receiver(_))) {
        errors.error(
            receiver,
            format!("a {noun} must be a free function, not a method: remove `self` and pass what the {noun} needs as parameters"),
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let why = match kind {
            Kind::Tool => "the input schema needs concrete types",
            Kind::Resource | Kind::Prompt => "its arguments need concrete types",
        };
        errors.error(&sig.generics, format!("a {noun} cannot be generic: {why}; write the parameter types out"));
    }
    if let Some(constness) = &sig.constness {
        errors.error(constness, format!("a {noun} cannot be a `const fn`: remove `const`"));
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        errors.error(unsafety, format!("a {noun} cannot be `unsafe`: a client cannot uphold a safety contract; make the function safe and keep the `unsafe` block inside it"));
    }
    if let Some(abi) = &sig.abi {
        errors.error(
            abi,
            format!(
                "a {noun} cannot have an `extern` ABI: remove `extern` (call the extern function from a plain Rust one)"
            ),
        );
    }
    if let Some(variadic) = &sig.variadic {
        errors.error(variadic, format!("a {noun} cannot be variadic: take a `Vec<T>` parameter instead"));
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Type::ImplTrait(_) = &**ty
    {
        let examples = match kind {
            Kind::Tool => "`String`, `Json<T>` or `CallToolResult`",
            Kind::Resource => "`String`, `Vec<u8>` or `ReadResourceResult`",
            Kind::Prompt => "`String`, `Vec<PromptMessage>` or `GetPromptResult`",
        };
        errors
            .error(ty, format!("a {noun} cannot return `impl Trait`: name the concrete return type (e.g. {examples})"));
    }
}

fn check_params(handler: &HandlerFn, kind: Kind, errors: &mut Errors) {
    let noun = kind.noun();
    let mut wire_names = HashSet::new();
    for param in &handler.params {
        if let Some(header) = param.options.header.as_ref().filter(|_| kind != Kind::Tool) {
            errors.error(
                header,
                format!("`header` is for tool arguments, which a client mirrors in `Mcp-Param-...` HTTP headers; a {noun}'s arguments have no such header: remove it"),
            );
        }
        let constraint = [param.options.range.as_ref(), param.options.length.as_ref()]
            .into_iter()
            .flatten()
            .map(ToTokens::to_token_stream)
            .chain(param.options.pattern.as_ref().map(ToTokens::to_token_stream))
            .next();
        if let Some(constraint) = &constraint {
            if kind != Kind::Tool {
                errors.error(
                    constraint,
                    format!("`range`, `length` and `pattern` constrain tool arguments (in the input schema); a {noun}'s arguments are text: check them in the function"),
                );
            } else if param.role == Role::Injected {
                errors.error(
                    constraint,
                    "an injected parameter is not an argument: it takes no `range`, `length` or `pattern`",
                );
            }
        }
        if let Some(flatten) = param.options.flatten {
            check_flatten(param, flatten, kind, errors);
        }
        if param.role == Role::Injected {
            if let Some(header) = &param.options.header {
                errors.error(header, "an injected parameter is not an argument: it takes no `header`");
            }
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
                format!("{noun} parameters are deserialized into owned values: {}", owned_hint(&param.ty)),
            );
        }
        if let Type::ImplTrait(_) = &param.ty {
            errors.error(
                &param.ty,
                format!("a {noun} parameter needs a concrete type, not `impl Trait`: name the type the client sends, e.g. `String`"),
            );
        }
        let wire = param.wire_name();
        if param.options.flatten.is_none() && !wire_names.insert(wire.clone()) {
            errors.error(param.name_tokens(), format!("two parameters are both named `{wire}` in the arguments; rename one with `#[mcp(rename = \"...\")]`"));
        }
    }
}

/// `flatten`: a tool argument (not injected), whose fields are the arguments, so it has no name,
/// description, default or constraint of its own (its fields carry theirs).
fn check_flatten(param: &crate::handler::Param, flatten: proc_macro2::Span, kind: Kind, errors: &mut Errors) {
    if kind != Kind::Tool {
        let noun = kind.noun();
        let message = format!(
            "`flatten` is for tool arguments (an object whose fields become the tool's arguments); a {noun}'s arguments are text: remove it"
        );
        errors.push(syn::Error::new(flatten, message));
        return;
    }
    if param.options.inject.is_some() || param.ident.is_none() {
        errors.push(syn::Error::new(flatten, "an injected parameter is not an argument: it takes no `flatten`"));
        return;
    }
    let options = &param.options;
    let own = [
        options.rename.as_ref().map(|_| "rename"),
        options.description.as_ref().map(|_| "description"),
        options.default.as_ref().map(|_| "default"),
        options.header.as_ref().map(|_| "header"),
        options.range.as_ref().map(|_| "range"),
        options.length.as_ref().map(|_| "length"),
        options.pattern.as_ref().map(|_| "pattern"),
    ];
    for option in own.into_iter().flatten() {
        errors.push(syn::Error::new(
            flatten,
            format!("a flattened argument's fields are the tool's arguments, so it takes no `{option}`: put it on the field (`#[schemars(..)]`, `#[serde(..)]`)"),
        ));
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
