//! Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`): crate-internal code run
//! on arbitrary input, panicking when an invariant breaks. Not a public API.

use crate::jsonrpc::{self, Incoming};
use crate::resource::uri_template::UriTemplate;

/// Decodes one JSON-RPC message; whatever the outcome, the answer the server would send
/// must be JSON carrying the same id.
pub fn decode_jsonrpc(bytes: &[u8]) {
    let (id, answer) = match jsonrpc::decode(bytes) {
        Err(rejected) => (rejected.id.clone(), jsonrpc::encode_error(rejected.id.as_ref(), &rejected.error)),
        Ok(Incoming::Request { id, method, params }) => {
            let echo = serde_json::json!({ "method": &*method, "params": params.map(|p| p.get()) });
            (Some(id.clone()), jsonrpc::encode_result(&id, &echo))
        }
        Ok(Incoming::Notification { method, .. }) => (None, jsonrpc::encode_notification(&method, &())),
        Ok(Incoming::Response { id, .. }) => (Some(id.clone()), jsonrpc::encode_result(&id, &())),
    };
    let answer: serde_json::Value = serde_json::from_slice(&answer).expect("an answer is JSON");
    assert_eq!(answer["jsonrpc"], "2.0");
    let expected = id.map(|id| serde_json::to_value(&id).expect("an id serializes"));
    assert_eq!(answer.get("id"), expected.as_ref(), "the answer carries the request's id");
}

/// Parses `template`; when it parses, matches `uri` against it. A template without
/// variables matches exactly itself.
pub fn uri_template(template: &str, uri: &str) {
    let Ok(parsed) = UriTemplate::parse(template) else { return };
    let bindings = parsed.matches(uri);
    if parsed.is_static() {
        assert_eq!(bindings.is_some(), uri == template, "a static template matches itself only");
    }
    if let Some(bindings) = bindings {
        let variables: Vec<&str> = parsed.variables().collect();
        assert!(bindings.keys().all(|k| variables.contains(&k.as_str())), "only the template's variables bind");
    }
    let _ = parsed.matches(template);
}
