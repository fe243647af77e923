//! `requestState` for input-required results: the answers gathered so far, bound to the
//! request they belong to, with an expiry, sealed with HMAC-SHA256 under a per-server key.
//! The client echoes it back unchanged; anything else fails verification.

use crate::jsonrpc::ErrorObject;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::Sha256;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a client may take to answer before the state expires.
const LIFETIME: Duration = Duration::from_secs(3600);

/// The secret that seals request state. Random per process unless the application sets one
/// (servers behind a load balancer must share it).
#[derive(Clone)]
pub(crate) struct StateKey(Vec<u8>);

impl StateKey {
    pub fn random() -> Self {
        let mut key = vec![0u8; 32];
        // Without an OS random source there is no safe key; refusing to start is better.
        getrandom::fill(&mut key).expect("no OS random source for the request-state key");
        Self(key)
    }

    pub fn from_secret(secret: &[u8]) -> Self {
        Self(secret.to_vec())
    }

    fn mac(&self) -> Hmac<Sha256> {
        Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC accepts keys of any length")
    }
}

#[derive(Serialize, Deserialize)]
struct Payload {
    /// The method and the name or URI it targets: a state is valid for that request only.
    method: String,
    target: String,
    answers: Map<String, Value>,
    /// Expiry, in seconds since the Unix epoch.
    expires: u64,
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Seals the answers gathered for `method` on `target`.
pub(crate) fn seal(key: &StateKey, method: &str, target: &str, answers: &Map<String, Value>) -> String {
    let payload = Payload {
        method: method.to_owned(),
        target: target.to_owned(),
        answers: answers.clone(),
        expires: now() + LIFETIME.as_secs(),
    };
    let body = B64.encode(serde_json::to_vec(&payload).unwrap_or_default());
    let mut mac = key.mac();
    mac.update(body.as_bytes());
    format!("{body}.{}", B64.encode(mac.finalize().into_bytes()))
}

/// Verifies a state and returns the answers it carries; a JSON-RPC error when it was altered,
/// belongs to another request, or expired.
pub(crate) fn open(key: &StateKey, state: &str, method: &str, target: &str) -> Result<Map<String, Value>, ErrorObject> {
    let invalid = |why: &str| ErrorObject::invalid_params(format!("Invalid params: requestState {why}"));
    let (body, tag) = state.split_once('.').ok_or_else(|| invalid("is malformed"))?;
    let tag = B64.decode(tag).map_err(|_| invalid("is malformed"))?;
    let mut mac = key.mac();
    mac.update(body.as_bytes());
    mac.verify_slice(&tag).map_err(|_| invalid("failed verification (it was altered)"))?;
    let payload: Payload = B64
        .decode(body)
        .ok()
        .and_then(|json| serde_json::from_slice(&json).ok())
        .ok_or_else(|| invalid("is malformed"))?;
    if payload.method != method || payload.target != target {
        return Err(invalid("belongs to another request"));
    }
    if payload.expires < now() {
        return Err(invalid("expired; start the request again"));
    }
    Ok(payload.answers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sealed_state_opens_only_unchanged_and_for_its_request() {
        let key = StateKey::random();
        let answers: Map<String, Value> = serde_json::from_value(json!({"name": {"action": "accept"}})).unwrap();
        let state = seal(&key, "tools/call", "greet", &answers);
        assert_eq!(open(&key, &state, "tools/call", "greet").unwrap(), answers);
        assert!(open(&key, &format!("{state}-TAMPERED"), "tools/call", "greet").is_err());
        assert!(open(&key, &state, "tools/call", "other").is_err());
        assert!(open(&StateKey::random(), &state, "tools/call", "greet").is_err());
        assert!(open(&key, "garbage", "tools/call", "greet").is_err());
    }
}
