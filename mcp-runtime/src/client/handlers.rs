//! The client's answers to the server: sampling, elicitation and roots handlers, and the
//! notification callback. Which handlers are set decides the capabilities the client declares.

use super::types::{ElicitationRequest, Notification};
use crate::jsonrpc::ErrorObject;
use crate::server_requests::{Elicitation, Root, Sampled, Sampling};
use crate::sync::lock;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};

pub(crate) type SamplingFn = Arc<dyn Fn(Sampling) -> BoxFuture<'static, Result<Sampled, ErrorObject>> + Send + Sync>;
pub(crate) type ElicitationFn = Arc<
    dyn Fn(ElicitationRequest) -> BoxFuture<'static, Result<Elicitation<Map<String, Value>>, ErrorObject>>
        + Send
        + Sync,
>;
pub(crate) type NotificationFn = Arc<dyn Fn(Notification) + Send + Sync>;
/// Answers a server's request (method, params) on behalf of one call: a mounted server's
/// requests go to the client of the call that caused them.
pub(crate) type AnswerFn = Arc<dyn Fn(String, Value) -> BoxFuture<'static, Result<Value, ErrorObject>> + Send + Sync>;

/// The handlers a client was built with.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub sampling: Option<SamplingFn>,
    pub elicitation: Option<ElicitationFn>,
    /// `Some` when the client offers roots (possibly none yet).
    pub roots: Option<Arc<Mutex<Vec<Root>>>>,
    pub notification: Option<NotificationFn>,
    /// Declares sampling, elicitation and roots whatever the handlers: the server's requests
    /// are answered by the call that caused them ([`ClientBuilder::forward_server_requests`](super::ClientBuilder::forward_server_requests)).
    pub forward: bool,
}

impl Handlers {
    /// The capabilities these handlers let the client declare.
    pub fn capabilities(&self) -> Value {
        let mut capabilities = Map::new();
        if self.sampling.is_some() || self.forward {
            capabilities.insert("sampling".into(), json!({}));
        }
        if self.elicitation.is_some() || self.forward {
            capabilities.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        }
        if self.roots.is_some() || self.forward {
            capabilities.insert("roots".into(), json!({"listChanged": true}));
        }
        Value::Object(capabilities)
    }

    /// Answers one request of the server (in a session, or inside an input-required result).
    pub async fn answer(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let not_offered =
            || ErrorObject::new(-32601, format!("Method not found: {method} (no handler in this client)"));
        let invalid = |why: String| ErrorObject::invalid_params(format!("Invalid params: {why}"));
        match method {
            "ping" => Ok(json!({})),
            "sampling/createMessage" => {
                let handler = self.sampling.as_ref().ok_or_else(not_offered)?;
                let request: Sampling = serde_json::from_value(params).map_err(|e| invalid(e.to_string()))?;
                let answer = handler(request).await?;
                serde_json::to_value(answer).map_err(|e| ErrorObject::new(-32603, e.to_string()))
            }
            "elicitation/create" => {
                let handler = self.elicitation.as_ref().ok_or_else(not_offered)?;
                let request = ElicitationRequest::from_params(&params)
                    .ok_or_else(|| invalid("url elicitation without url".into()))?;
                let defaults = match &request {
                    ElicitationRequest::Form { requested_schema, .. } => form_defaults(requested_schema),
                    ElicitationRequest::Url { .. } => Map::new(),
                };
                let answer = handler(request).await?.map(|mut content| {
                    for (field, default) in defaults {
                        content.entry(field).or_insert(default);
                    }
                    Some(content)
                });
                Ok(elicitation_result(answer))
            }
            "roots/list" => {
                let roots = self.roots.as_ref().ok_or_else(not_offered)?;
                let roots = lock(roots).clone();
                Ok(json!({ "roots": roots }))
            }
            _ => Err(not_offered()),
        }
    }

    pub fn notify(&self, notification: Notification) {
        if let Some(handler) = &self.notification {
            handler(notification);
        }
    }
}

/// The `default` of each field of a form (SEP-1034): an accepted form's content gets those
/// its handler left out, so the server sees what the user would have seen pre-filled.
fn form_defaults(requested_schema: &Map<String, Value>) -> Map<String, Value> {
    let Some(properties) = requested_schema.get("properties").and_then(Value::as_object) else {
        return Map::new();
    };
    properties.iter().filter_map(|(field, schema)| Some((field.clone(), schema.get("default")?.clone()))).collect()
}

/// An `elicitation/create` result: the action, and the form's content when there is one.
pub(crate) fn elicitation_result(answer: Elicitation<Option<Map<String, Value>>>) -> Value {
    match answer {
        Elicitation::Accept(Some(content)) => json!({"action": "accept", "content": content}),
        Elicitation::Accept(None) => json!({"action": "accept"}),
        Elicitation::Decline => json!({"action": "decline"}),
        Elicitation::Cancel => json!({"action": "cancel"}),
    }
}
