//! The options of `#[mcp_resource(...)]`.

use crate::diagnostics::Errors;
use crate::handler::options::{
    CommonOptions, completions, flag, integer, key, number, parse_options, path, string, strings, unknown,
};
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

const RESOURCE_OPTIONS: &str = "uri, name, title, description, mime_type, size, audience, priority, last_modified, icon, meta, scopes, list, complete, allow_dot_segments, ttl_ms, cache_scope, crate";

impl ResourceOptions {
    /// The options that could be read, their mistakes going to `errors`, and whether every
    /// option was read (unreadable tokens stop the parse: a `uri` may follow them).
    pub fn parse(attr: TokenStream, errors: &mut Errors) -> (Self, bool) {
        let mut options = Self::default();
        let complete = parse_options(attr, errors, |meta, errors| options.parse_one(&meta, errors));
        (options, complete)
    }

    fn parse_one(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<()> {
        let key = key(meta, RESOURCE_OPTIONS)?;
        if self.common.parse_one(&key, meta, errors)? {
            return Ok(());
        }
        match key.as_str() {
            "uri" => string(meta, errors, &mut self.uri, "uri = \"docs://readme\""),
            "mime_type" => string(meta, errors, &mut self.mime_type, "mime_type = \"text/markdown\""),
            "size" => integer(meta, errors, &mut self.size, "size = 1024"),
            "audience" => strings(meta, errors, &mut self.audience, "audience = [\"user\", \"assistant\"]"),
            "priority" => number(meta, errors, &mut self.priority, "priority = 0.8"),
            "last_modified" => {
                string(meta, errors, &mut self.last_modified, "last_modified = \"2025-01-12T15:00:58Z\"")
            }
            "list" => path(meta, errors, &mut self.list, "list = list_notes"),
            "complete" => completions(meta, errors, &mut self.complete),
            "allow_dot_segments" => flag(meta, errors, &mut self.allow_dot_segments),
            "ttl_ms" => integer(meta, errors, &mut self.ttl_ms, "ttl_ms = 60000"),
            "cache_scope" => string(meta, errors, &mut self.cache_scope, "cache_scope = \"private\""),
            other => unknown(meta, errors, other, "option", RESOURCE_OPTIONS),
        }
    }
}
