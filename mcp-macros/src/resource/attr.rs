//! The options of `#[mcp_resource(...)]`.

use crate::handler::options::{CommonOptions, flag, key, parse_completions, parse_options, set};
use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::{LitFloat, LitInt, LitStr};

#[derive(Default)]
pub(crate) struct ResourceOptions {
    pub common: CommonOptions,
    pub uri: Option<LitStr>,
    pub mime_type: Option<LitStr>,
    pub size: Option<LitInt>,
    pub audience: Option<Vec<LitStr>>,
    pub priority: Option<LitFloat>,
    pub last_modified: Option<LitStr>,
    pub list: Option<syn::Path>,
    pub complete: Vec<(syn::Ident, syn::Path)>,
    pub allow_dot_segments: Option<bool>,
    pub ttl_ms: Option<LitInt>,
    pub cache_scope: Option<LitStr>,
}

const RESOURCE_OPTIONS: &str = "uri, name, title, description, mime_type, size, audience, priority, last_modified, icon, list, complete, allow_dot_segments, ttl_ms, cache_scope";

impl ResourceOptions {
    /// The options, and the first error if one stopped the parse (the options before it are
    /// kept, so their checks still run).
    pub fn parse(attr: TokenStream) -> (Self, Option<syn::Error>) {
        let mut options = Self::default();
        let error = parse_options(attr, |meta| options.parse_one(meta)).err();
        (options, error)
    }

    fn parse_one(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let key = key(&meta, RESOURCE_OPTIONS)?;
        if self.common.parse_one(&key, &meta)? {
            return Ok(());
        }
        match key.as_str() {
            "uri" => set(&meta, &mut self.uri, meta.value()?.parse()?),
            "mime_type" => set(&meta, &mut self.mime_type, meta.value()?.parse()?),
            "size" => set(&meta, &mut self.size, meta.value()?.parse()?),
            "priority" => set(&meta, &mut self.priority, meta.value()?.parse()?),
            "last_modified" => set(&meta, &mut self.last_modified, meta.value()?.parse()?),
            "list" => set(&meta, &mut self.list, meta.value()?.parse()?),
            "allow_dot_segments" => set(&meta, &mut self.allow_dot_segments, flag(&meta)?),
            "ttl_ms" => set(&meta, &mut self.ttl_ms, meta.value()?.parse()?),
            "cache_scope" => set(&meta, &mut self.cache_scope, meta.value()?.parse()?),
            "audience" => {
                let value = meta.value()?;
                let content;
                syn::bracketed!(content in value);
                let roles = content.parse_terminated(<LitStr as syn::parse::Parse>::parse, syn::Token![,])?;
                set(&meta, &mut self.audience, roles.into_iter().collect())
            }
            "complete" => parse_completions(&meta, &mut self.complete),
            other => Err(meta.error(format!("unknown option `{other}`; expected one of: {RESOURCE_OPTIONS}"))),
        }
    }
}
