//! `prompts/get`.

use super::{Handler, PanicAnswer, Route, Task, parse_params, to_raw};
use crate::jsonrpc::ErrorObject;
use crate::registry::Registry;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::HashMap;

pub(crate) fn get(registry: &Registry, params: Option<&RawValue>) -> Route<'static> {
    #[derive(Deserialize)]
    struct GetParams {
        name: String,
        #[serde(default)]
        arguments: HashMap<String, String>,
        #[serde(rename = "_meta")]
        meta: Option<Map<String, Value>>,
    }
    let params: GetParams = match parse_params(params) {
        Ok(params) => params,
        Err(error) => return Route::Reply(Err(error)),
    };
    let Some(prompt) = registry.prompts.get(&params.name).cloned() else {
        return Route::Reply(Err(ErrorObject::invalid_params(format!("Unknown prompt: {}", params.name))));
    };
    if let Some(missing) = prompt.arguments.iter().find(|a| a.required && !params.arguments.contains_key(a.name)) {
        let message = format!("missing required argument `{}` for prompt `{}`", missing.name, prompt.name);
        return Route::Reply(Err(ErrorObject::invalid_params(message)));
    }
    let arguments = params.arguments;
    Route::Spawn(Task {
        meta: params.meta,
        on_panic: PanicAnswer::InternalError,
        run: Handler::waiting(move |ctx| async move { to_raw(&(prompt.get)(arguments, ctx).await?) }),
    })
}
