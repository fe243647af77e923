//! The options of `#[mcp_tool(...)]` and of `#[mcp(...)]` on a parameter.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::{Expr, LitBool, LitStr};

/// Options on the function.
#[derive(Default)]
pub(crate) struct ToolOptions {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub icons: Vec<LitStr>,
    pub input_schema: Option<LitStr>,
}

const TOOL_OPTIONS: &str =
    "name, title, description, read_only, destructive, idempotent, open_world, icon, input_schema";

impl ToolOptions {
    pub fn parse(attr: TokenStream) -> syn::Result<Self> {
        let mut options = Self::default();
        let parser = syn::meta::parser(|meta| options.parse_one(meta));
        syn::parse::Parser::parse2(parser, attr)?;
        Ok(options)
    }

    fn parse_one(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
            return Err(meta.error(format!("unknown option; expected one of: {TOOL_OPTIONS}")));
        };
        match key.as_str() {
            "name" => set(&meta, &mut self.name, meta.value()?.parse()?),
            "title" => set(&meta, &mut self.title, meta.value()?.parse()?),
            "description" => set(&meta, &mut self.description, meta.value()?.parse()?),
            "input_schema" => set(&meta, &mut self.input_schema, meta.value()?.parse()?),
            "icon" => {
                self.icons.push(meta.value()?.parse()?);
                Ok(())
            }
            "read_only" => set(&meta, &mut self.read_only, flag(&meta)?),
            "destructive" => set(&meta, &mut self.destructive, flag(&meta)?),
            "idempotent" => set(&meta, &mut self.idempotent, flag(&meta)?),
            "open_world" => set(&meta, &mut self.open_world, flag(&meta)?),
            other => Err(meta.error(format!("unknown option `{other}`; expected one of: {TOOL_OPTIONS}"))),
        }
    }
}

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

fn set<T>(meta: &ParseNestedMeta<'_>, slot: &mut Option<T>, value: T) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("this option is given twice; keep one"));
    }
    *slot = Some(value);
    Ok(())
}

/// `read_only` or `read_only = true/false`.
fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) { Ok(meta.value()?.parse::<LitBool>()?.value) } else { Ok(true) }
}
