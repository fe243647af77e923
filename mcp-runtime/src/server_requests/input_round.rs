//! Requests to the client in the 2026-07-28 era (multi round-trip requests): a handler's
//! `ctx.elicit(...)` either finds the client's answer among the request's `inputResponses`
//! (or the answers sealed in its `requestState`) or records an input request and waits for
//! ever; the engine then drops the handler and answers with an input-required result. On the
//! client's retry the handler runs again from the start, this time finding its answers.
//!
//! Inside a task (the tasks extension) nobody drops the handler: the task shows the requests
//! as `inputRequests`, and `tasks/update` [`supply`](InputRound::supply)s the answers, which
//! wakes the waiting requests where they stand.

use super::client_error::{ClientError, declared, without_meta};
use crate::jsonrpc::ErrorObject;
use crate::sync::lock;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The input state of one stateless request.
pub(crate) struct InputRound {
    /// Answers by key: from the sealed state of earlier rounds and this round's responses
    /// (and, in a task, from `tasks/update`).
    answers: Mutex<Map<String, Value>>,
    /// Woken when answers are supplied.
    supplied: tokio::sync::Notify,
    /// Requests the handler made that have no answer yet, in order.
    requested: Mutex<Map<String, Value>>,
    /// Numbers keys the handler did not choose.
    next_key: AtomicUsize,
    /// A failure that ends the request with a JSON-RPC error (a missing client capability).
    failure: Mutex<Option<ErrorObject>>,
    /// Whoever polls the handler: woken by a request made off the handler's own future (a
    /// task it spawned, a mounted server's request), which would otherwise go unseen.
    watcher: Mutex<Option<std::task::Waker>>,
}

/// The JSON-RPC error for a request that needs a capability the client did not declare.
pub(crate) fn missing_capability(path: &[&str]) -> ErrorObject {
    let required = path.iter().rev().fold(json!({}), |inner, key| json!({ *key: inner }));
    ErrorObject {
        code: -32021,
        message: format!("Missing required client capability: {}", path.join(".")),
        data: Some(json!({ "requiredCapabilities": required })),
    }
}

impl InputRound {
    pub fn new(answers: Map<String, Value>) -> Self {
        Self {
            answers: Mutex::new(answers),
            supplied: tokio::sync::Notify::new(),
            requested: Mutex::default(),
            next_key: AtomicUsize::new(1),
            failure: Mutex::default(),
            watcher: Mutex::default(),
        }
    }

    /// Wakes `waker` when the handler records a request from now on.
    pub fn watch(&self, waker: &std::task::Waker) {
        let mut watcher = lock(&self.watcher);
        if !watcher.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *watcher = Some(waker.clone());
        }
    }

    /// The answer under `key`, decoded; or records the request and never returns.
    pub async fn ask<R: DeserializeOwned>(
        &self,
        key: Option<String>,
        capability: (&'static str, &[&str]),
        method: &str,
        params: &(impl Serialize + ?Sized),
        capabilities: Option<&Map<String, Value>>,
    ) -> Result<R, ClientError> {
        if !declared(capabilities, capability.1) {
            *lock(&self.failure) = Some(missing_capability(capability.1));
            return Err(ClientError::Unsupported { capability: capability.0 });
        }
        let key = key.unwrap_or_else(|| {
            let short = method.split('/').next().unwrap_or(method);
            format!("{short}-{}", self.next_key.fetch_add(1, Ordering::Relaxed))
        });
        let request = json!({ "method": method, "params": params });
        loop {
            let supplied = self.supplied.notified();
            tokio::pin!(supplied);
            supplied.as_mut().enable();
            // An answer that does not decode (say `12345` for an elicitation) counts as
            // missing: the client is asked again rather than the handler failing on it.
            let answer = lock(&self.answers).get(&key).cloned();
            if let Some(answer) = answer
                && let Ok(value) = serde_json::from_value::<R>(without_meta(answer))
            {
                return Ok(value);
            }
            lock(&self.requested).insert(key.clone(), request.clone());
            if let Some(watcher) = lock(&self.watcher).as_ref() {
                watcher.wake_by_ref();
            }
            supplied.await;
        }
    }

    pub fn answers(&self) -> Map<String, Value> {
        lock(&self.answers).clone()
    }

    /// Answers some of the requests still unanswered (a task's `tasks/update`); answers to
    /// keys not asked for, or answered already, are ignored. Whether any was taken.
    pub fn supply(&self, responses: Map<String, Value>) -> bool {
        let mut requested = lock(&self.requested);
        let mut answers = lock(&self.answers);
        let mut taken = false;
        for (key, answer) in responses {
            if requested.remove(&key).is_some() {
                answers.insert(key, answer);
                taken = true;
            }
        }
        drop((requested, answers));
        if taken {
            self.supplied.notify_waiters();
        }
        taken
    }

    /// The requests still unanswered, if the handler made any.
    pub fn pending_requests(&self) -> Option<Map<String, Value>> {
        let requested = lock(&self.requested);
        (!requested.is_empty()).then(|| requested.clone())
    }

    pub fn take_failure(&self) -> Option<ErrorObject> {
        lock(&self.failure).take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_capabilities_name_the_nested_path() {
        let error = missing_capability(&["elicitation", "url"]);
        assert_eq!(error.data, Some(json!({"requiredCapabilities": {"elicitation": {"url": {}}}})));
        assert_eq!(missing_capability(&["sampling"]).data, Some(json!({"requiredCapabilities": {"sampling": {}}})));
    }
}
