//! Attribute parsing shared by the macros: `#[mcp(...)]` on a parameter, and the helpers each
//! macro's own options use.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Expr, LitBool, LitStr};

/// Options on a parameter: `#[mcp(rename = "...", default = expr, description = "...", inject)]`.
#[derive(Default)]
pub(crate) struct ParamOptions {
    pub rename: Option<LitStr>,
    pub default: Option<Expr>,
    pub description: Option<LitStr>,
    pub inject: Option<Span>,
}

const PARAM_OPTIONS: &str = "rename, default, description, inject";

impl ParamOptions {
    pub fn parse_into(&mut self, attr: &syn::Attribute) -> syn::Result<()> {
        attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match key.as_str() {
                "rename" => set(&meta, &mut self.rename, meta.value()?.parse()?),
                "default" => set(&meta, &mut self.default, meta.value()?.parse()?),
                "description" => set(&meta, &mut self.description, meta.value()?.parse()?),
                "inject" => {
                    set(&meta, &mut self.inject, meta.path.get_ident().map_or_else(Span::call_site, |i| i.span()))
                }
                other => {
                    Err(meta.error(format!("unknown parameter option `{other}`; expected one of: {PARAM_OPTIONS}")))
                }
            }
        })
    }
}

/// Options every macro has: `name`, `title`, `description`, `icon` (repeatable).
#[derive(Default)]
pub(crate) struct CommonOptions {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub icons: Vec<LitStr>,
}

impl CommonOptions {
    /// Consumes `key` if it is a common option; `Ok(false)` if it is not.
    pub fn parse_one(&mut self, key: &str, meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
        match key {
            "name" => set(meta, &mut self.name, meta.value()?.parse()?)?,
            "title" => set(meta, &mut self.title, meta.value()?.parse()?)?,
            "description" => set(meta, &mut self.description, meta.value()?.parse()?)?,
            "icon" => self.icons.push(meta.value()?.parse()?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// Parses `#[macro(a = ..., b, ...)]` with `parse_one` handling each option.
pub(crate) fn parse_options(
    attr: proc_macro2::TokenStream,
    parse_one: impl FnMut(ParseNestedMeta<'_>) -> syn::Result<()>,
) -> syn::Result<()> {
    let parser = syn::meta::parser(parse_one);
    syn::parse::Parser::parse2(parser, attr)
}

/// Stores an option, refusing it twice.
pub(crate) fn set<T>(meta: &ParseNestedMeta<'_>, slot: &mut Option<T>, value: T) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("this option is given twice; keep one"));
    }
    *slot = Some(value);
    Ok(())
}

/// `read_only` or `read_only = true/false`.
pub(crate) fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) { Ok(meta.value()?.parse::<LitBool>()?.value) } else { Ok(true) }
}

/// The option's key, or an error listing the valid ones.
pub(crate) fn key(meta: &ParseNestedMeta<'_>, expected: &str) -> syn::Result<String> {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .ok_or_else(|| meta.error(format!("unknown option; expected one of: {expected}")))
}

/// `complete(arg = path, other = path)`: completion functions by argument name.
pub(crate) fn parse_completions(
    meta: &ParseNestedMeta<'_>,
    into: &mut Vec<(syn::Ident, syn::Path)>,
) -> syn::Result<()> {
    meta.parse_nested_meta(|inner| {
        let Some(name) = inner.path.get_ident().cloned() else {
            return Err(inner.error("write `complete(argument = completion_function)`"));
        };
        let function: syn::Path = inner.value()?.parse()?;
        into.push((name, function));
        Ok(())
    })
}
