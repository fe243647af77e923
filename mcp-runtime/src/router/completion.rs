//! `completion/complete`: finds the completion function of a prompt argument or a resource
//! template variable; none means no suggestions.

use super::{Handler, PanicAnswer, Route, Task, parse_params, to_raw};
use crate::clip::clip;
use crate::completion::{Completion, CompletionRequest};
use crate::jsonrpc::ErrorObject;
use crate::registry::Registry;
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use std::collections::HashMap;

#[derive(Deserialize)]
#[serde(tag = "type")]
enum Reference {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

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

#[derive(Deserialize)]
struct CompleteParams {
    #[serde(rename = "ref")]
    reference: Reference,
    argument: Argument,
    #[serde(default)]
    context: Option<CompletionContext>,
}

pub(crate) fn complete(registry: &Registry, params: Option<&RawValue>) -> Route<'static> {
    let params: CompleteParams = match parse_params(params) {
        Ok(params) => params,
        Err(error) => return Route::Reply(Err(error)),
    };
    let completers = match &params.reference {
        Reference::Prompt { name } => match registry.prompts.get(name) {
            Some(prompt) => &prompt.complete,
            None => return Route::Reply(Err(ErrorObject::invalid_params(format!("Unknown prompt: {}", clip(name))))),
        },
        Reference::Resource { uri } => match registry.templates.get(uri) {
            Some(template) => &template.descriptor.complete,
            None => {
                return Route::Reply(Err(ErrorObject::invalid_params(format!(
                    "Unknown resource template: {}",
                    clip(uri)
                ))));
            }
        },
    };
    let completer = completers.iter().find(|(name, _)| *name == params.argument.name).map(|(_, f)| f.clone());
    let request = CompletionRequest {
        argument: params.argument.name,
        value: params.argument.value,
        arguments: params.context.unwrap_or_default().arguments,
    };
    Route::Spawn(Task {
        meta: None,
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
