//! The options of `#[mcp_prompt(...)]`.

use crate::handler::options::{CommonOptions, key, parse_completions, parse_options};
use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;

#[derive(Default)]
pub(crate) struct PromptOptions {
    pub common: CommonOptions,
    pub complete: Vec<(syn::Ident, syn::Path)>,
}

const PROMPT_OPTIONS: &str = "name, title, description, icon, complete";

impl PromptOptions {
    pub fn parse(attr: TokenStream) -> syn::Result<Self> {
        let mut options = Self::default();
        parse_options(attr, |meta| options.parse_one(meta))?;
        Ok(options)
    }

    fn parse_one(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = key(&meta, PROMPT_OPTIONS)?;
        if self.common.parse_one(&key, &meta)? {
            return Ok(());
        }
        match key.as_str() {
            "complete" => parse_completions(&meta, &mut self.complete),
            other => Err(meta.error(format!("unknown option `{other}`; expected one of: {PROMPT_OPTIONS}"))),
        }
    }
}
