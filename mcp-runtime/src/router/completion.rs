//! `completion/complete`: finds the completion function of a prompt argument or a resource
//! template variable; none means no suggestions.

use super::reply::{parse_params, to_raw};
use super::task::{Handler, PanicAnswer, Route, Task};
use crate::completion::{Completion, CompletionRequest, Reference};
use crate::message::Request;
use crate::registry::Registry;
use serde::Deserialize;
use serde_json::json;
use std::collections::HashMap;

#[derive(Deserialize)]
struct Argument {
    name: String,
    value: String,
}

#[derive(Deserialize, Default)]
struct CompletionContext {
    #[serde(default)]
    arguments: HashMap<String, String>,
}

/// The params besides `ref`, which the request's decode read.
#[derive(Deserialize)]
struct CompleteParams {
    argument: Argument,
    #[serde(default)]
    context: Option<CompletionContext>,
}

pub(crate) fn complete(registry: &Registry, request: &Request<'_>) -> Route<'static> {
    // The item the caller's scopes were checked against (`transport/http/policy.rs`): the
    // same decoded `ref`, resolved the same way.
    let parsed = Reference::parse(request.reference)
        .and_then(|reference| registry.referenced(&reference))
        .and_then(|referenced| Ok((referenced.completers(), parse_params::<CompleteParams>(request.params)?)));
    let (completers, params) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return Route::Reply(Err(error)),
    };
    let completer = completers.iter().find(|(name, _)| *name == params.argument.name).map(|(_, f)| f.clone());
    let request = CompletionRequest {
        argument: params.argument.name,
        value: params.argument.value,
        arguments: params.context.unwrap_or_default().arguments,
    };
    Route::Spawn(Task {
        meta: None,
        http: Default::default(),
        on_panic: PanicAnswer::InternalError,
        run: Handler::waiting(move |ctx| async move {
            let completion = match completer {
                Some(complete) => complete(request, ctx).await,
                None => Completion::default(),
            };
            to_raw(&json!({ "completion": completion }))
        }),
    })
}
