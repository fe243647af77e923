//! [`PromptBuilder`]: a prompt rendered by a closure.

use super::interned;
use crate::__private::prompt_result;
use crate::completion::{CompleteFn, CompletionRequest, IntoCompletion};
use crate::context::Context;
use crate::error::{Error, ErrorKind, Result};
use crate::prompt::{GetFn, IntoPromptResult, PromptArgument, PromptDescriptor};
use crate::tool::Str;
use futures_util::FutureExt as _;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

/// Builds a [`PromptDescriptor`] at run time: what `#[mcp_prompt]` generates. A `prompts/get`
/// that leaves out a required argument is refused (-32602, naming it) before the closure runs,
/// as for a macro prompt.
///
/// ```
/// use mcp_runtime::{PromptDescriptor, Server};
///
/// # fn main() -> mcp_runtime::Result<()> {
/// let review = PromptDescriptor::builder("review")
///     .description("Review a piece of code.")
///     .argument("code", "The code to review", true)
///     .get(|arguments, _ctx| async move { format!("Please review:\n{}", arguments["code"]) })
///     .build()?;
/// let server = Server::new("reviewer", "1.0").prompts(review.into());
/// # let _ = server; Ok(()) }
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct PromptBuilder {
    name: String,
    title: Option<String>,
    description: Option<String>,
    meta: Option<Map<String, Value>>,
    scopes: Vec<String>,
    arguments: Vec<PromptArgument>,
    complete: Vec<(Str, CompleteFn)>,
    get: Option<GetFn>,
}

impl PromptDescriptor {
    /// A prompt named `name`, to be described and given a get function: see [`PromptBuilder`].
    pub fn builder(name: impl Into<String>) -> PromptBuilder {
        PromptBuilder {
            name: name.into(),
            title: None,
            description: None,
            meta: None,
            scopes: Vec::new(),
            arguments: Vec::new(),
            complete: Vec::new(),
            get: None,
        }
    }
}

impl PromptBuilder {
    /// A display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the prompt is for.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// `_meta` of its definition.
    pub fn meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// OAuth scopes a caller must hold to see it listed, get it and complete its arguments
    /// (HTTP with feature `auth`).
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Adds an argument (they are listed in the order added).
    pub fn argument(mut self, name: impl Into<String>, description: impl Into<String>, required: bool) -> Self {
        let description = Some(Str::from(description.into())).filter(|d| !d.is_empty());
        self.arguments.push(PromptArgument { name: name.into().into(), title: None, description, required });
        self
    }

    /// Completes the values of its argument `argument`.
    pub fn complete<F, Fut>(mut self, argument: impl Into<String>, complete: F) -> Self
    where
        F: Fn(CompletionRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output: IntoCompletion> + Send + 'static,
    {
        let complete =
            CompleteFn::Arc(Arc::new(move |request, ctx| complete(request, ctx).map(|c| c.into_completion()).boxed()));
        self.complete.push((Str::from(argument.into()), complete));
        self
    }

    /// What a `prompts/get` renders: an async closure given the arguments (every required one
    /// present) and the [`Context`], returning anything a prompt function may
    /// ([`IntoPromptResult`]: text, messages, `Result<T, E: Display>`...).
    pub fn get<F, Fut>(mut self, get: F) -> Self
    where
        F: Fn(HashMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output: IntoPromptResult> + Send + 'static,
    {
        self.get = Some(GetFn::Arc(Arc::new(move |arguments, ctx| get(arguments, ctx).map(prompt_result).boxed())));
        self
    }

    /// The descriptor; an error of kind [`Config`](ErrorKind::Config) names what is wrong: an
    /// invalid name, an argument given twice, a completion of an argument it does not have, no
    /// get function.
    pub fn build(self) -> Result<PromptDescriptor> {
        let name = self.name;
        let refused = |what: String| Error::new(ErrorKind::Config, format!("prompt `{name}`: {what}"));
        if !super::tool::is_valid_tool_name(&name) {
            return Err(refused("a prompt name is 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`".into()));
        }
        for (i, argument) in self.arguments.iter().enumerate() {
            if self.arguments[..i].iter().any(|earlier| earlier.name == argument.name) {
                return Err(refused(format!("argument `{}` is given twice", argument.name)));
            }
        }
        if let Some((unknown, _)) =
            self.complete.iter().find(|(argument, _)| !self.arguments.iter().any(|a| a.name == *argument))
        {
            return Err(refused(format!("completes `{unknown}`, which is not one of its arguments")));
        }
        let get = self.get.ok_or_else(|| refused("no get function: give one with `PromptBuilder::get`".into()))?;
        Ok(PromptDescriptor {
            name: name.into(),
            title: self.title.map(Str::from),
            description: self.description.map(Str::from),
            icons: &[],
            meta: self.meta.map(|meta| Value::Object(meta).to_string().into()),
            scopes: interned::scopes(self.scopes),
            arguments: self.arguments,
            required_state: Vec::new(),
            get,
            complete: self.complete,
        })
    }
}
