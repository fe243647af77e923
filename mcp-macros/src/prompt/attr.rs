//! The options of `#[mcp_prompt(...)]`.

use crate::diagnostics::Errors;
use crate::handler::options::{CommonOptions, completions, key, parse_options, unknown};
use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;

#[derive(Default)]
pub(crate) struct PromptOptions {
    pub common: CommonOptions,
    pub complete: Vec<(syn::Ident, syn::Path)>,
}

const PROMPT_OPTIONS: &str = "name, title, description, icon, meta, scopes, complete, crate";

impl PromptOptions {
    /// The options that could be read; their mistakes go to `errors`.
    pub fn parse(attr: TokenStream, errors: &mut Errors) -> Self {
        let mut options = Self::default();
        parse_options(attr, errors, |meta, errors| options.parse_one(&meta, errors));
        options
    }

    fn parse_one(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<()> {
        let key = key(meta, PROMPT_OPTIONS)?;
        if self.common.parse_one(&key, meta, errors)? {
            return Ok(());
        }
        match key.as_str() {
            "complete" => completions(meta, errors, &mut self.complete),
            other => unknown(meta, errors, other, "option", PROMPT_OPTIONS),
        }
    }
}
