//! `prompts/get`.

use super::reply::{parse_params, to_raw};
use super::task::{Handler, PanicAnswer, Route, Task};
use crate::clip::clip;
use crate::jsonrpc::ErrorObject;
use crate::message::Request;
use crate::registry::Registry;
use std::collections::HashMap;

pub(crate) fn get(registry: &Registry, request: &Request<'_>) -> Route<'static> {
    let parsed = request.required_target().and_then(|name| {
        let prompt = registry
            .prompts
            .get(name)
            .ok_or_else(|| ErrorObject::invalid_params(format!("Unknown prompt: {}", clip(name))))?;
        let arguments: HashMap<String, String> = match request.arguments {
            Some(arguments) => parse_params(Some(arguments))
                .map_err(|error| ErrorObject::invalid_params(format!("{} (in `arguments`)", error.message)))?,
            None => HashMap::new(),
        };
        Ok((prompt.clone(), arguments, request.meta_object()?))
    });
    let (prompt, arguments, meta) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return Route::Reply(Err(error)),
    };
    if let Some(missing) = prompt.arguments.iter().find(|a| a.required && !arguments.contains_key(&*a.name)) {
        let message = format!("missing required argument `{}` for prompt `{}`", missing.name, prompt.name);
        return Route::Reply(Err(ErrorObject::invalid_params(message)));
    }
    Route::Spawn(Task {
        meta,
        http: request.http_for(&prompt.required_state),
        on_panic: PanicAnswer::InternalError,
        run: Handler::waiting(move |ctx| async move { to_raw(&(prompt.get)(arguments, ctx).await?) }),
    })
}
