//! Attribute parsing shared by the macros: `#[mcp(...)]` on a parameter, and the readers each
//! macro's own options use.
//!
//! A mistake in one option does not hide the others: a value of the wrong kind, an option given
//! twice or an unknown option is recorded and the parse goes on to the next option. Only tokens
//! that cannot be read at all (`name = ,`) stop the parse, as they leave nothing to resume from.

use crate::diagnostics::Errors;
use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, Lit, LitBool, LitFloat, LitInt, LitStr};

/// Options on a parameter: `#[mcp(rename = "...", default = expr, description = "...", inject,
/// header = "...", flatten)]`.
#[derive(Default)]
pub(crate) struct ParamOptions {
    pub rename: Option<LitStr>,
    pub default: Option<Expr>,
    pub description: Option<LitStr>,
    pub inject: Option<Span>,
    /// A tool argument mirrored in the `Mcp-Param-{header}` HTTP header (`x-mcp-header`).
    pub header: Option<LitStr>,
    /// Constraints on a tool argument, put in its schema (and checked before the call, with
    /// the runtime's feature `validation`, on by default): `range(min = 1, max = 5)`, `length(min = 1, max = 80)`,
    /// `pattern = "^[a-z]+$"`, as schemars spells them.
    pub range: Option<TokenStream>,
    pub length: Option<TokenStream>,
    pub pattern: Option<LitStr>,
    /// A tool argument whose fields are the tool's arguments (`#[serde(flatten)]`), rather than
    /// one argument holding them.
    pub flatten: Option<Span>,
}

const PARAM_OPTIONS: &str = "rename, default, description, inject, header, range, length, pattern, flatten";

impl ParamOptions {
    /// Reads one `#[mcp(...)]` attribute; a parameter may carry several, and an option repeated
    /// across them is as much an error as one repeated inside one.
    pub fn parse_into(&mut self, attr: &syn::Attribute) -> syn::Result<()> {
        let mut errors = Errors::default();
        let read = attr.parse_nested_meta(|meta| {
            let key = key(&meta, PARAM_OPTIONS)?;
            let errors = &mut errors;
            match key.as_str() {
                "rename" => string(&meta, errors, &mut self.rename, "#[mcp(rename = \"userName\")]"),
                "description" => string(&meta, errors, &mut self.description, "#[mcp(description = \"...\")]"),
                "header" => string(&meta, errors, &mut self.header, "#[mcp(header = \"Region\")]"),
                "pattern" => string(&meta, errors, &mut self.pattern, "#[mcp(pattern = \"^[a-z]+$\")]"),
                "range" => bounds(&meta, errors, &mut self.range, "#[mcp(range(min = 1, max = 5))]"),
                "length" => bounds(&meta, errors, &mut self.length, "#[mcp(length(min = 1, max = 80))]"),
                "default" => {
                    let value = value(&meta, errors, "#[mcp(default = 10)]")?;
                    store(&meta, errors, &mut self.default, value);
                    Ok(())
                }
                "inject" => marker(&meta, errors, &mut self.inject, "#[mcp(inject)]"),
                "flatten" => marker(&meta, errors, &mut self.flatten, "#[mcp(flatten)]"),
                other => unknown(&meta, errors, other, "parameter option", PARAM_OPTIONS),
            }
        });
        errors.extend(read.err());
        errors.finish()
    }
}

/// A parameter option that takes no value (`inject`, `flatten`): where it was written.
fn marker(meta: &ParseNestedMeta<'_>, errors: &mut Errors, slot: &mut Option<Span>, example: &str) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
        let name = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
        errors.push(meta.error(format!("`{name}` takes no value: write `{example}`")));
        skip_value(meta)?;
    }
    store(meta, errors, slot, Some(meta.path.span()));
    Ok(())
}

/// `key(min = a, max = b)` (either bound may be left out): the tokens inside the parentheses,
/// each bound checked to be `min` or `max` with a value.
fn bounds(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    slot: &mut Option<TokenStream>,
    example: &str,
) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        errors.push(meta.error(format!("write the bounds in parentheses, e.g. `{example}`")));
        return skip_value(meta);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let tokens: TokenStream = content.parse()?;
    let bounds = syn::parse::Parser::parse2(
        syn::punctuated::Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated,
        tokens.clone(),
    );
    match bounds {
        Ok(bounds) if !bounds.is_empty() && bounds.iter().all(|b| b.path.is_ident("min") || b.path.is_ident("max")) => {
            store(meta, errors, slot, Some(tokens));
        }
        _ => errors.push(syn::Error::new_spanned(
            &tokens,
            format!("bounds are `min = ...` and/or `max = ...`, e.g. `{example}`"),
        )),
    }
    Ok(())
}

/// Options every macro has: `name`, `title`, `description`, `icon` (repeatable), `meta`,
/// `scopes`, `crate`.
#[derive(Default)]
pub(crate) struct CommonOptions {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub icons: Vec<LitStr>,
    /// `meta = r#"{...}"#`: the definition's `_meta`, a JSON object (checked in `valid.rs`).
    pub meta: Option<LitStr>,
    /// `scopes = ["files:write"]`: the OAuth scopes a caller needs to see and use the item
    /// (checked in `valid.rs`).
    pub scopes: Option<Vec<LitStr>>,
    /// `crate = "..."`: the path generated code reaches the runtime by (checked to parse).
    pub krate: Option<LitStr>,
}

impl CommonOptions {
    /// Consumes `key` if it is a common option; `Ok(false)` if it is not.
    pub fn parse_one(&mut self, key: &str, meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<bool> {
        match key {
            "name" => string(meta, errors, &mut self.name, "name = \"search_notes\"")?,
            "title" => string(meta, errors, &mut self.title, "title = \"Search notes\"")?,
            "description" => string(meta, errors, &mut self.description, "description = \"...\"")?,
            "icon" => {
                let mut icon = None;
                string(meta, errors, &mut icon, "icon = \"https://example.com/icon.png\"")?;
                self.icons.extend(icon);
            }
            "meta" => string(meta, errors, &mut self.meta, "meta = r#\"{\"com.example/ui\": \"panel\"}\"#")?,
            "scopes" => strings(meta, errors, &mut self.scopes, "scopes = [\"files:write\"]")?,
            "crate" => crate_option(meta, errors, &mut self.krate)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// Parses `#[macro(a = ..., b, ...)]`, `parse_one` handling each option and recording its
/// mistakes in `errors`. Returns whether the parse read every option (`false` when unreadable
/// tokens stopped it, so an option that seems missing may just not have been reached).
pub(crate) fn parse_options(
    attr: TokenStream,
    errors: &mut Errors,
    mut parse_one: impl FnMut(ParseNestedMeta<'_>, &mut Errors) -> syn::Result<()>,
) -> bool {
    let parser = syn::meta::parser(|meta| parse_one(meta, errors));
    match syn::parse::Parser::parse2(parser, attr) {
        Ok(()) => true,
        Err(error) => {
            errors.push(error);
            false
        }
    }
}

/// The option's key, or an error listing the valid ones.
pub(crate) fn key(meta: &ParseNestedMeta<'_>, expected: &str) -> syn::Result<String> {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .ok_or_else(|| meta.error(format!("unknown option; expected one of: {expected}")))
}

/// Records an unknown option (`what` is `option` or `parameter option`) and skips its value.
pub(crate) fn unknown(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    key: &str,
    what: &str,
    expected: &str,
) -> syn::Result<()> {
    errors.push(meta.error(format!("unknown {what} `{key}`; expected one of: {expected}")));
    skip_value(meta)
}

/// Stores an option's value; a second one for the same option is an error on its key.
pub(crate) fn store<T>(meta: &ParseNestedMeta<'_>, errors: &mut Errors, slot: &mut Option<T>, value: Option<T>) {
    if slot.is_some() {
        errors.error(&meta.path, format!("`{}` is given twice: keep one", written(meta)));
    } else if value.is_some() {
        *slot = value;
    }
}

/// `key = "text"`.
pub(crate) fn string(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    slot: &mut Option<LitStr>,
    example: &str,
) -> syn::Result<()> {
    let value = literal(meta, errors, example, "a string literal", |lit| match lit {
        Lit::Str(s) => Some(s.clone()),
        _ => None,
    })?;
    store(meta, errors, slot, value);
    Ok(())
}

/// `key = 42`: a whole number that fits a `u64`.
pub(crate) fn integer(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    slot: &mut Option<LitInt>,
    example: &str,
) -> syn::Result<()> {
    let value = literal(meta, errors, example, "a whole number", |lit| match lit {
        Lit::Int(i) if i.base10_parse::<u64>().is_ok() => Some(i.clone()),
        _ => None,
    })?;
    store(meta, errors, slot, value);
    Ok(())
}

/// `key = 0.5` or `key = 1`: a number, written as the `f64` literal it becomes.
pub(crate) fn number(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    slot: &mut Option<LitFloat>,
    example: &str,
) -> syn::Result<()> {
    let value = literal(meta, errors, example, "a number", |lit| {
        let (number, span) = match lit {
            Lit::Float(f) => (f.base10_parse::<f64>().ok()?, f.span()),
            Lit::Int(i) => (i.base10_parse::<f64>().ok()?, i.span()),
            _ => return None,
        };
        Some(LitFloat::new(&format!("{number:?}"), span))
    })?;
    store(meta, errors, slot, value);
    Ok(())
}

/// `key`, `key = true` or `key = false`.
pub(crate) fn flag(meta: &ParseNestedMeta<'_>, errors: &mut Errors, slot: &mut Option<bool>) -> syn::Result<()> {
    let value = read_flag(meta, errors)?;
    store(meta, errors, slot, value.map(|flag| flag.value));
    Ok(())
}

/// A [`flag`] that keeps the key's span, for an error about the option itself.
pub(crate) fn spanned_flag(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    slot: &mut Option<LitBool>,
) -> syn::Result<()> {
    let value = read_flag(meta, errors)?;
    store(meta, errors, slot, value);
    Ok(())
}

fn read_flag(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Option<LitBool>> {
    let key = written(meta);
    let example = format!("{key}` or `{key} = false");
    let value = if meta.input.peek(syn::Token![=]) {
        literal(meta, errors, &example, "`true` or `false`", |lit| match lit {
            Lit::Bool(b) => Some(b.value),
            _ => None,
        })?
    } else if meta.input.peek(syn::token::Paren) {
        errors.push(meta.error(format!("write `{example}`")));
        skip_value(meta)?;
        None
    } else {
        Some(true)
    };
    Ok(value.map(|value| LitBool::new(value, meta.path.span())))
}

/// `key = ["a", "b"]`: an array of string literals.
pub(crate) fn strings(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    slot: &mut Option<Vec<LitStr>>,
    example: &str,
) -> syn::Result<()> {
    let Some(expr) = value(meta, errors, example)? else { return Ok(()) };
    let key = written(meta);
    let Expr::Array(array) = &expr else {
        errors.error(&expr, format!("`{key}` takes an array of string literals: write `{example}`"));
        return Ok(());
    };
    let mut items = Vec::new();
    for element in &array.elems {
        match element {
            Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => items.push(s.clone()),
            other => errors.error(other, format!("`{key}` takes string literals: write `{example}`")),
        }
    }
    store(meta, errors, slot, Some(items));
    Ok(())
}

/// `key = path::to::function`.
pub(crate) fn path(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    slot: &mut Option<syn::Path>,
    example: &str,
) -> syn::Result<()> {
    let Some(expr) = value(meta, errors, example)? else { return Ok(()) };
    let value = match expr {
        Expr::Path(path) if path.qself.is_none() => Some(path.path),
        other => {
            let key = written(meta);
            errors.error(&other, format!("`{key}` takes the path of a function: write `{example}`"));
            None
        }
    };
    store(meta, errors, slot, value);
    Ok(())
}

/// `complete(arg = path, other = path)`: completion functions by argument name.
pub(crate) fn completions(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    into: &mut Vec<(syn::Ident, syn::Path)>,
) -> syn::Result<()> {
    const EXAMPLE: &str = "complete(argument = completion_function)";
    if !meta.input.peek(syn::token::Paren) {
        errors.push(meta.error(format!("write `{EXAMPLE}`")));
        return skip_value(meta);
    }
    meta.parse_nested_meta(|inner| {
        let Some(name) = inner.path.get_ident().cloned() else {
            errors.push(inner.error(format!("name an argument: write `{EXAMPLE}`")));
            return skip_value(&inner);
        };
        let mut function = None;
        path(&inner, errors, &mut function, EXAMPLE)?;
        if let Some(earlier) = into.iter().find(|(earlier, _)| *earlier == name) {
            errors.error(&name, format!("`{}` has two completion functions: keep one", earlier.0));
        } else if let Some(function) = function {
            into.push((name, function));
        }
        Ok(())
    })
}

/// The value after `key =`, any expression; without `=`, an error showing `example` (and
/// `None`).
fn value(meta: &ParseNestedMeta<'_>, errors: &mut Errors, example: &str) -> syn::Result<Option<Expr>> {
    if meta.input.peek(syn::Token![=]) {
        return meta.value()?.parse().map(Some);
    }
    errors.push(meta.error(format!("`{}` needs a value: write `{example}`", written(meta))));
    skip_value(meta)?;
    Ok(None)
}

/// The value as a literal `accept` takes; else an error saying it takes `what` and showing
/// `example` (and `None`).
fn literal<T>(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    example: &str,
    what: &str,
    accept: impl FnOnce(&Lit) -> Option<T>,
) -> syn::Result<Option<T>> {
    let Some(expr) = value(meta, errors, example)? else { return Ok(None) };
    let accepted = match &expr {
        Expr::Lit(ExprLit { lit, .. }) => accept(lit),
        _ => None,
    };
    if accepted.is_none() {
        errors.error(&expr, format!("`{}` takes {what}: write `{example}`", written(meta)));
    }
    Ok(accepted)
}

/// Consumes what follows an option's key (`= expr` or `(...)`), so the next option can be read.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

/// The key as the user wrote it.
fn written(meta: &ParseNestedMeta<'_>) -> String {
    quote::ToTokens::to_token_stream(&meta.path).to_string().replace(' ', "")
}

/// Reads `crate = "path"`: the path the runtime is known by where the macro is used (a renamed
/// dependency, a re-export), as `#[serde(crate = "...")]`; it must parse as a path.
pub(crate) fn crate_option(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
    slot: &mut Option<LitStr>,
) -> syn::Result<()> {
    let before = slot.is_some();
    string(meta, errors, slot, "crate = \"mcp_renamed\"")?;
    if let Some(path) = slot.as_ref().filter(|_| !before)
        && path.parse::<syn::Path>().is_err()
    {
        errors.error(path, "`crate` is the path the runtime is known by here, e.g. `crate = \"mcp_renamed\"` or `crate = \"::facade::mcp\"`");
        *slot = None;
    }
    Ok(())
}

/// The path generated code reaches the runtime by: `crate = "..."`, else `::mcp_runtime`.
pub(crate) fn crate_path(krate: Option<&LitStr>) -> TokenStream {
    match krate.and_then(|path| path.parse::<syn::Path>().ok()) {
        Some(path) => quote::quote!(#path),
        None => quote::quote!(::mcp_runtime),
    }
}
