//! The options of `#[mcp_tool(...)]`.

use crate::diagnostics::Errors;
use crate::handler::options::{
    CommonOptions, flag, integer, key, parse_options, spanned_flag, string, strings, unknown,
};
use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
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
    pub timeout_ms: Option<LitInt>,
    /// Spanned at the key, to point at it when the function is async.
    pub blocking: Option<LitBool>,
    /// `"optional"` or `"required"`: the call may (must) run as a task (checked in `valid.rs`).
    pub task: Option<LitStr>,
    /// `tags = ["admin"]`: labels that switch the tool off and on with others.
    pub tags: Option<Vec<LitStr>>,
}

const TOOL_OPTIONS: &str = "name, title, description, read_only, destructive, idempotent, open_world, confirm, hidden, icon, meta, input_schema, scopes, tags, timeout_ms, blocking, task, crate";

impl ToolOptions {
    /// The options that could be read; their mistakes go to `errors`.
    pub fn parse(attr: TokenStream, errors: &mut Errors) -> Self {
        let mut options = Self::default();
        parse_options(attr, errors, |meta, errors| options.parse_one(&meta, errors));
        options
    }

    fn parse_one(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<()> {
        let key = key(meta, TOOL_OPTIONS)?;
        if self.common.parse_one(&key, meta, errors)? {
            return Ok(());
        }
        match key.as_str() {
            "input_schema" => {
                string(meta, errors, &mut self.input_schema, "input_schema = r#\"{\"type\": \"object\"}\"#")
            }
            "read_only" => flag(meta, errors, &mut self.read_only),
            "destructive" => flag(meta, errors, &mut self.destructive),
            "idempotent" => flag(meta, errors, &mut self.idempotent),
            "open_world" => flag(meta, errors, &mut self.open_world),
            "confirm" => flag(meta, errors, &mut self.confirm),
            "hidden" => flag(meta, errors, &mut self.hidden),
            "blocking" => spanned_flag(meta, errors, &mut self.blocking),
            "timeout_ms" => integer(meta, errors, &mut self.timeout_ms, "timeout_ms = 5000"),
            "task" => string(meta, errors, &mut self.task, "task = \"optional\""),
            "tags" => strings(meta, errors, &mut self.tags, "tags = [\"admin\", \"beta\"]"),
            other => unknown(meta, errors, other, "option", TOOL_OPTIONS),
        }
    }
}
