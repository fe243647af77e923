//! The options of `#[mcp_tool(...)]`.

use crate::handler::options::{CommonOptions, flag, key, parse_options, set};
use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{LitBool, LitInt, LitStr};

#[derive(Default)]
pub(crate) struct ToolOptions {
    pub common: CommonOptions,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub confirm: Option<bool>,
    pub hidden: Option<bool>,
    pub input_schema: Option<LitStr>,
    pub scopes: Option<Vec<LitStr>>,
    pub timeout_ms: Option<LitInt>,
    /// Spanned at the key, to point at it when the function is async.
    pub blocking: Option<LitBool>,
}

const TOOL_OPTIONS: &str = "name, title, description, read_only, destructive, idempotent, open_world, confirm, hidden, icon, input_schema, scopes, timeout_ms, blocking";

impl ToolOptions {
    pub fn parse(attr: TokenStream) -> syn::Result<Self> {
        let mut options = Self::default();
        parse_options(attr, |meta| options.parse_one(meta))?;
        Ok(options)
    }

    fn parse_one(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = key(&meta, TOOL_OPTIONS)?;
        if self.common.parse_one(&key, &meta)? {
            return Ok(());
        }
        match key.as_str() {
            "input_schema" => set(&meta, &mut self.input_schema, meta.value()?.parse()?),
            "read_only" => set(&meta, &mut self.read_only, flag(&meta)?),
            "destructive" => set(&meta, &mut self.destructive, flag(&meta)?),
            "idempotent" => set(&meta, &mut self.idempotent, flag(&meta)?),
            "open_world" => set(&meta, &mut self.open_world, flag(&meta)?),
            "confirm" => set(&meta, &mut self.confirm, flag(&meta)?),
            "hidden" => set(&meta, &mut self.hidden, flag(&meta)?),
            "scopes" => set(&meta, &mut self.scopes, scope_list(&meta)?),
            "blocking" => set(&meta, &mut self.blocking, LitBool::new(flag(&meta)?, meta.path.span())),
            "timeout_ms" => {
                let millis: LitInt = meta.value()?.parse()?;
                if millis.base10_parse::<u64>()? == 0 {
                    return Err(syn::Error::new(millis.span(), "timeout_ms must be a positive number of milliseconds"));
                }
                set(&meta, &mut self.timeout_ms, millis)
            }
            other => Err(meta.error(format!("unknown option `{other}`; expected one of: {TOOL_OPTIONS}"))),
        }
    }
}

/// `scopes = ["a", "b"]`: an array of string literals.
fn scope_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let array: syn::ExprArray = meta.value()?.parse()?;
    array
        .elems
        .iter()
        .map(|element| match element {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(scope), .. }) => Ok(scope.clone()),
            other => Err(syn::Error::new_spanned(other, "a scope is a string literal: `scopes = [\"files:write\"]`")),
        })
        .collect()
}
