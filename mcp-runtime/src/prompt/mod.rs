//! Prompts: what `#[mcp_prompt]` describes. Arguments arrive as strings and bind to `String`
//! or any `FromStr` parameter; `Option` parameters are optional arguments.

mod result;

pub use result::{GetPromptResult, IntoPromptResult, PromptMessage};

use crate::completion::CompleteFn;
use crate::context::Context;
use crate::jsonrpc::ErrorObject;
use crate::shared_fn::SharedFn;
use crate::tool::Icon;
use crate::tool::Str;
use futures_util::future::BoxFuture;
use serde::Serialize;
use std::collections::HashMap;

/// One argument of a prompt, as `prompts/list` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PromptArgument {
    /// The argument's name.
    pub name: Str,
    /// A display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<Str>,
    /// What it is for (from the parameter's doc comment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Str>,
    /// Whether it must be given.
    pub required: bool,
}

/// The type-erased get function of a descriptor.
pub type GetFn = SharedFn<
    dyn Fn(HashMap<String, String>, Context) -> BoxFuture<'static, Result<GetPromptResult, ErrorObject>> + Send + Sync,
>;

/// Everything the runtime knows about one prompt.
#[derive(Clone)]
pub struct PromptDescriptor {
    /// The wire name.
    pub name: Str,
    /// A display title.
    pub title: Option<Str>,
    /// The description (from the doc comment).
    pub description: Option<Str>,
    /// Icons.
    pub icons: &'static [Icon],
    /// `_meta` of its definition: a JSON object (`#[mcp_prompt(meta = r#"{...}"#)]`, checked by
    /// the macro).
    pub meta: Option<Str>,
    /// OAuth scopes a caller must hold to see it listed, get it and complete its arguments
    /// (HTTP with feature `auth`).
    pub scopes: &'static [&'static str],
    /// Its arguments, in order (its injected parameters are not arguments).
    pub arguments: Vec<PromptArgument>,
    /// The server states its parameters need, checked when the server is built.
    pub required_state: Vec<crate::required_state::RequiredState>,
    /// Renders it.
    pub get: GetFn,
    /// Completion functions per argument.
    pub complete: Vec<(Str, CompleteFn)>,
}

impl PromptDescriptor {
    /// The prompt as `prompts/list` shows it.
    pub(crate) fn wire(&self) -> impl Serialize + '_ {
        #[derive(Serialize)]
        struct Wire<'a> {
            name: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            title: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            description: Option<&'a str>,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            arguments: &'a [PromptArgument],
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            icons: &'a [Icon],
            #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
            meta: Option<&'a serde_json::value::RawValue>,
        }
        Wire {
            name: &self.name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            arguments: &self.arguments,
            icons: self.icons,
            meta: crate::tool::raw_meta(self.meta.as_deref()),
        }
    }
}

/// Implemented by the hidden item `#[mcp_prompt]` puts next to a function.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP prompt",
    note = "put `#[mcp_prompt]` on the function before listing it in `prompts![...]`"
)]
pub trait PromptDef {
    /// The wire name, for the compile-time duplicate check.
    const NAME: &'static str;
    /// The descriptor.
    fn descriptor() -> PromptDescriptor;
}

/// The prompts of a server, in order; built by `prompts![...]`, or collected from descriptors
/// ([`PromptDescriptor::builder`]).
#[derive(Default)]
pub struct PromptSet {
    pub(crate) prompts: Vec<PromptDescriptor>,
}

impl From<PromptDescriptor> for PromptSet {
    fn from(item: PromptDescriptor) -> Self {
        Self { prompts: vec![item] }
    }
}

impl FromIterator<PromptDescriptor> for PromptSet {
    fn from_iter<I: IntoIterator<Item = PromptDescriptor>>(items: I) -> Self {
        Self { prompts: items.into_iter().collect() }
    }
}

impl PromptSet {
    /// What the list macro builds: each item's descriptor function, called once here (a
    /// slice of functions rather than an array of descriptors, which the caller would build
    /// on its stack and copy).
    #[doc(hidden)]
    pub fn from_fns(descriptors: &[fn() -> PromptDescriptor]) -> Self {
        Self { prompts: descriptors.iter().map(|descriptor| descriptor()).collect() }
    }
}
