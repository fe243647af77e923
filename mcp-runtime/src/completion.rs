//! Argument completion (`completion/complete`): functions that suggest values for a prompt
//! argument or a resource template variable, given what the user typed so far.

use crate::context::Context;
use crate::jsonrpc::{ErrorObject, without_position};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::future::Future;

/// The protocol's cap on values in one completion answer.
pub const MAX_VALUES: usize = 100;

/// What a `completion/complete` request completes: its `ref`, read by the request's one
/// decode (`message::Request::reference`) and resolved by `Registry::referenced`.
#[derive(Deserialize)]
#[serde(tag = "type")]
pub(crate) enum Reference {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

impl Reference {
    /// Parses a request's `params.ref`, or -32602 saying what is wrong with it.
    pub(crate) fn parse(raw: Option<&RawValue>) -> Result<Self, ErrorObject> {
        let raw = raw.ok_or_else(|| ErrorObject::invalid_params("Invalid params: missing field `ref`"))?;
        serde_json::from_str(raw.get())
            .map_err(|err| ErrorObject::invalid_params(format!("Invalid params: `ref`: {}", without_position(&err))))
    }
}

/// What a completion function is asked.
#[derive(Clone, Debug, Default)]
pub struct CompletionRequest {
    /// The argument or variable being completed.
    pub argument: String,
    /// What the user has typed so far.
    pub value: String,
    /// Values already chosen for the other arguments (`context.arguments`).
    pub arguments: HashMap<String, String>,
}

impl CompletionRequest {
    /// `candidates` that start with the typed value (case-insensitively), in order.
    pub fn filter<'a>(&self, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let typed = self.value.to_lowercase();
        candidates.into_iter().filter(|c| c.to_lowercase().starts_with(&typed)).map(str::to_owned).collect()
    }
}

/// Suggested values (the `completion` object of the result).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values.
    pub values: Vec<String>,
    /// How many values exist in all, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether there are more values than these.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub has_more: bool,
}

impl Completion {
    /// Keeps the first 100 values, recording how many there were.
    pub fn from_values(mut values: Vec<String>) -> Self {
        let total = values.len();
        if total > MAX_VALUES {
            values.truncate(MAX_VALUES);
            return Self { values, total: Some(total as u64), has_more: true };
        }
        Self { values, total: None, has_more: false }
    }
}

/// What a completion function may return.
pub trait IntoCompletion {
    /// The conversion.
    fn into_completion(self) -> Completion;
}

impl IntoCompletion for Completion {
    fn into_completion(self) -> Completion {
        self
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Completion {
        Completion::from_values(self)
    }
}

impl IntoCompletion for Vec<&str> {
    fn into_completion(self) -> Completion {
        Completion::from_values(self.into_iter().map(str::to_owned).collect())
    }
}

/// A type-erased completion function, as descriptors store it.
pub type CompleteFn =
    crate::shared_fn::SharedFn<dyn Fn(CompletionRequest, Context) -> BoxFuture<'static, Completion> + Send + Sync>;

/// A user completion function: `fn(CompletionRequest) -> impl IntoCompletion`, or with a second
/// `Context` parameter (for state), sync or async. `M` only tells the shapes apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete arguments",
    note = "a completion function looks like `fn(request: CompletionRequest) -> Vec<String>` or `async fn(request: CompletionRequest, ctx: Context) -> Vec<String>`"
)]
pub trait Completer<M>: Copy + Send + 'static {
    /// Runs the function.
    fn complete(self, request: CompletionRequest, ctx: Context) -> BoxFuture<'static, Completion>;
}

#[doc(hidden)]
pub struct SyncCompleter;
#[doc(hidden)]
pub struct AsyncCompleter;
#[doc(hidden)]
pub struct SyncCompleterWithContext;
#[doc(hidden)]
pub struct AsyncCompleterWithContext;

impl<F, R> Completer<(SyncCompleter, R)> for F
where
    F: Fn(CompletionRequest) -> R + Copy + Send + 'static,
    R: IntoCompletion,
{
    fn complete(self, request: CompletionRequest, _: Context) -> BoxFuture<'static, Completion> {
        Box::pin(std::future::ready(self(request).into_completion()))
    }
}

impl<F, Fut> Completer<(AsyncCompleter, Fut)> for F
where
    F: Fn(CompletionRequest) -> Fut + Copy + Send + 'static,
    Fut: Future<Output: IntoCompletion> + Send + 'static,
{
    fn complete(self, request: CompletionRequest, _: Context) -> BoxFuture<'static, Completion> {
        let future = self(request);
        Box::pin(async move { future.await.into_completion() })
    }
}

impl<F, R> Completer<(SyncCompleterWithContext, R)> for F
where
    F: Fn(CompletionRequest, Context) -> R + Copy + Send + 'static,
    R: IntoCompletion,
{
    fn complete(self, request: CompletionRequest, ctx: Context) -> BoxFuture<'static, Completion> {
        Box::pin(std::future::ready(self(request, ctx).into_completion()))
    }
}

impl<F, Fut> Completer<(AsyncCompleterWithContext, Fut)> for F
where
    F: Fn(CompletionRequest, Context) -> Fut + Copy + Send + 'static,
    Fut: Future<Output: IntoCompletion> + Send + 'static,
{
    fn complete(self, request: CompletionRequest, ctx: Context) -> BoxFuture<'static, Completion> {
        let future = self(request, ctx);
        Box::pin(async move { future.await.into_completion() })
    }
}

/// Runs a user completion function (the generated shims call this).
pub fn run_completer<M, C: Completer<M>>(
    completer: C,
    request: CompletionRequest,
    ctx: Context,
) -> BoxFuture<'static, Completion> {
    completer.complete(request, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_capped_at_one_hundred_values() {
        let completion = Completion::from_values((0..150).map(|i| i.to_string()).collect());
        assert_eq!((completion.values.len(), completion.total, completion.has_more), (100, Some(150), true));
        let small = Completion::from_values(vec!["a".into()]);
        assert_eq!(serde_json::to_value(&small).unwrap(), serde_json::json!({"values": ["a"]}));
    }

    #[test]
    fn filtering_is_by_prefix_ignoring_case() {
        let request = CompletionRequest { value: "py".into(), ..Default::default() };
        assert_eq!(request.filter(["Python", "Rust", "pyre"]), ["Python", "pyre"]);
    }
}
