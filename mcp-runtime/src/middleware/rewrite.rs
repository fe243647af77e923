//! Rewriting: what a [`Middleware`](super::Middleware) changes in a request (its params, before
//! it is routed) and in its result (after the handler, before the era's decorations).
//!
//! A decoded request borrows its params from the message's bytes, so a request whose params
//! change is encoded again (same id, method and `_meta`) for the engine to decode and route; a
//! result is shown to the rewriters as plain JSON. Neither costs anything unless a middleware
//! rewrites.

use crate::jsonrpc::{ErrorObject, code};
use crate::message::Request;
use crate::protocol::{Method, Target};
use crate::router::reply::{Outcome, to_raw};
use serde_json::{Map, Value};

/// Rewrites a request's result (or its error): called with what the handler answered, its
/// return is what the client gets.
pub(crate) type ResultRewriter = Box<dyn FnOnce(Result<Value, ErrorObject>) -> Result<Value, ErrorObject> + Send>;

/// What a middleware changes in a request: its params (or only its `arguments`) before it is
/// routed, and its result after it is handled. Return it as a verdict (`Rewrite::new()...into()`).
///
/// The request keeps its id, its method, its target (the tool's or prompt's `name`, the `uri`)
/// and its `_meta`, whatever the new params say; the middlewares after this one see
/// the new params. A result rewriter sees the plain result (a tool's `CallToolResult` object,
/// a list), before the server adds what the protocol version asks for, or the JSON-RPC error;
/// the innermost middleware's rewriter runs first.
///
/// ```
/// use mcp_runtime::middleware::{Middleware, RequestInfo, Rewrite, Verdict};
/// use serde_json::json;
///
/// /// Calls `search` with `limit: 10` unless the client chose one, and signs every answer.
/// struct Defaults;
///
/// impl Middleware for Defaults {
///     fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
///         if request.method() != "tools/call" || request.target() != Some("search") {
///             return Verdict::Continue;
///         }
///         let mut arguments = request.arguments_value().unwrap_or_else(|| json!({}));
///         if let Some(members) = arguments.as_object_mut() {
///             members.entry("limit").or_insert(json!(10));
///         }
///         Rewrite::new()
///             .arguments(arguments)
///             .result(|result| {
///                 result.map(|mut result| {
///                     if let Some(content) = result["content"].as_array_mut() {
///                         content.push(json!({"type": "text", "text": "(searched by Defaults)"}));
///                     }
///                     result
///                 })
///             })
///             .into()
///     }
/// }
/// # let _ = mcp_runtime::Server::new("s", "1").middleware(Defaults);
/// ```
#[derive(Default)]
#[must_use = "a rewrite does nothing until returned as a verdict"]
pub struct Rewrite {
    params: Option<Map<String, Value>>,
    arguments: Option<Value>,
    result: Option<ResultRewriter>,
}

impl Rewrite {
    /// A rewrite that changes nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Handles the request with these params instead (its target and `_meta` are kept as sent).
    pub fn params(mut self, params: Map<String, Value>) -> Self {
        self.params = Some(params);
        self
    }

    /// Handles the request with these `arguments` (a tool's or a prompt's), its other params
    /// as they are.
    pub fn arguments(mut self, arguments: Value) -> Self {
        self.arguments = Some(arguments);
        self
    }

    /// Rewrites the request's result, or its error, before it is sent.
    pub fn result(
        mut self,
        rewriter: impl FnOnce(Result<Value, ErrorObject>) -> Result<Value, ErrorObject> + Send + 'static,
    ) -> Self {
        self.result = Some(Box::new(rewriter));
        self
    }

    /// Whether the request's params change.
    pub(super) fn changes_params(&self) -> bool {
        self.params.is_some() || self.arguments.is_some()
    }

    /// The part the chain keeps: the result rewriter.
    pub(super) fn take_result(&mut self) -> Option<ResultRewriter> {
        self.result.take()
    }

    /// `request` encoded again with the new params, for the engine to decode.
    pub(super) fn encode(self, request: &Request<'_>) -> Vec<u8> {
        let mut params = self
            .params
            .unwrap_or_else(|| request.params.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default());
        if let Some(arguments) = self.arguments {
            params.insert("arguments".into(), arguments);
        }
        // `_meta` says which era the request is of and carries its progress token; the target
        // (and a completion's `ref`) is what the HTTP edge checked the caller's scopes against:
        // all as sent.
        let target = match request.method.map(Method::target) {
            Some(Target::Name) => Some("name"),
            Some(Target::Uri) => Some("uri"),
            Some(Target::TaskId) => Some("taskId"),
            Some(Target::None) | None => None,
        };
        for (member, sent) in [("_meta", request.meta), ("ref", request.reference)] {
            match sent.and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok()) {
                Some(value) => params.insert(member.into(), value),
                None => params.remove(member),
            };
        }
        if let Some(member) = target {
            match &request.target {
                Some(sent) => params.insert(member.into(), Value::String(sent.to_string())),
                None => params.remove(member),
            };
        }
        let message = serde_json::json!({
            "jsonrpc": "2.0",
            "id": request.id,
            "method": request.name,
            "params": params,
        });
        serde_json::to_vec(&message).expect("a JSON value serializes")
    }
}

/// Runs `rewriters` over a result, innermost first; a rewriter that panics fails the request.
pub(crate) fn apply(rewriters: Vec<ResultRewriter>, result: Result<Value, ErrorObject>) -> Result<Value, ErrorObject> {
    rewriters.into_iter().rev().fold(result, |result, rewriter| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rewriter(result))).unwrap_or_else(|_| {
            tracing::error!("a middleware's result rewriter panicked");
            Err(failed())
        })
    })
}

/// [`apply`] to a handler's serialized outcome: parsed, rewritten, serialized again.
pub(crate) fn apply_to_outcome(rewriters: Vec<ResultRewriter>, outcome: Outcome) -> Outcome {
    let result = outcome.and_then(|serialized| {
        serde_json::from_str(serialized.get())
            .map_err(|e| ErrorObject::new(code::INTERNAL_ERROR, format!("Internal error: a result is not JSON: {e}")))
    });
    apply(rewriters, result).and_then(|value| to_raw(&value))
}

/// The answer to a request a middleware failed on (it panicked, or its rewriter did).
pub(crate) fn failed() -> ErrorObject {
    ErrorObject::new(code::INTERNAL_ERROR, "Internal error: a middleware failed")
}

#[cfg(test)]
mod tests {
    use super::super::Pass;
    use crate::router::reply::to_raw;
    use serde_json::json;

    #[test]
    fn a_result_nobody_rewrites_is_handed_on_as_it_was_serialized() {
        assert!(Pass::default().into_watch().is_none(), "no middleware watching or rewriting: no watch at all");
        let mut pass = Pass::default();
        pass.watched_by(Box::new(|_| {}));
        let watch = pass.into_watch().unwrap();
        assert!(!watch.rewrites());
        let outcome = to_raw(&json!({"content": []})).unwrap();
        let before = outcome.get().as_ptr();
        let after = watch.rewrite_outcome(Ok(outcome)).unwrap();
        assert_eq!(after.get().as_ptr(), before, "the same buffer: not parsed, not serialized again");
    }

    #[test]
    fn rewriters_run_innermost_first_once_and_a_panicking_one_fails_the_request() {
        let mut pass = Pass::default();
        for name in ["outer", "inner"] {
            let mut rewrite =
                super::Rewrite::new().result(move |r| r.map(|v| json!(format!("{} {name}", v.as_str().unwrap()))));
            pass.rewriters.extend(rewrite.take_result());
        }
        let watch = pass.into_watch().unwrap();
        let rewritten = watch.rewrite_outcome(to_raw(&json!("handler"))).unwrap();
        assert_eq!(rewritten.get(), r#""handler inner outer""#);
        assert!(!watch.rewrites(), "each rewriter runs once");
        let broken = super::apply(vec![Box::new(|_| panic!("a bug"))], Ok(json!({})));
        assert_eq!(broken.unwrap_err().message, "Internal error: a middleware failed");
    }
}
