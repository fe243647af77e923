//! A session's record in the store: what a replica that has not served the session yet needs
//! to serve it, and its `SessionState` values. Saved when the session changes; read on a
//! replica's first request of the session, and again when another replica says it changed.
//! A record takes at most [`MAX_RECORD_BYTES`]; what the store holds of a session counts
//! against the session's budget on each replica holding it.

use super::super::failure::Failure;
use super::super::replication::Loaded;
use super::super::replication::shared::Snapshot;
use super::bus::Note;
use super::{Replicas, Unavailable};
use crate::session::budget::{Budget, OverBudget};
use crate::session::record::Record;
use crate::sync::lock;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;

/// The most a session's record may take in the store: what a client says of itself
/// (`initialize` keeps at most 64 KiB of it) and its subscriptions, with room to spare.
pub(crate) const MAX_RECORD_BYTES: usize = 256 * 1024;

/// Why a change of a session was not saved in the store.
#[derive(Debug)]
pub(crate) enum Unsaved {
    /// The store is unreachable.
    Unavailable,
    /// The session ended (or expired) meanwhile.
    Ended,
    /// The record would take `bytes`, past [`MAX_RECORD_BYTES`].
    RecordTooLarge { bytes: usize },
    /// Past the session's budget, or the server's, on this replica.
    OverBudget(OverBudget),
}

impl From<Unavailable> for Unsaved {
    fn from(_: Unavailable) -> Self {
        Self::Unavailable
    }
}

impl Unsaved {
    /// The answer to the request whose change was not saved.
    pub fn failure(self) -> Failure {
        use crate::jsonrpc::code;
        use hyper::StatusCode;
        match self {
            Self::Unavailable => Failure::from(Unavailable),
            Self::Ended => Failure::session_not_found(),
            Self::RecordTooLarge { bytes } => Failure {
                status: StatusCode::BAD_REQUEST,
                code: code::INVALID_PARAMS,
                message: format!(
                    "Invalid params: the session's record would take {bytes} bytes in the session store, past its limit of {MAX_RECORD_BYTES}; the change is undone"
                ),
            },
            Self::OverBudget(over) => {
                let error = over.into_error();
                let status = match over {
                    OverBudget::Server => StatusCode::SERVICE_UNAVAILABLE,
                    OverBudget::Session { .. } => StatusCode::BAD_REQUEST,
                };
                Failure { status, code: error.code, message: error.message }
            }
        }
    }
}

/// What the store holds of one session (its record, its `SessionState` values), in bytes, as
/// charged to the session's budget on this replica: Redis memory a client makes the server
/// keep counts as the memory the replica keeps for it.
#[derive(Debug, Default)]
pub(crate) struct Charged(Mutex<(usize, usize)>);

impl Charged {
    /// Charges `budget` for `record` and `state` bytes instead of what was charged before.
    /// `anyway`: past the limits (what another replica saved under the same ones).
    pub fn set(&self, budget: &Budget, record: usize, state: usize, anyway: bool) -> Result<(), OverBudget> {
        let mut charged = lock(&self.0);
        let (was, now) = (charged.0 + charged.1, record + state);
        match now.checked_sub(was) {
            Some(more) if anyway => budget.reserve_anyway(more),
            _ => budget.resize(was, now)?,
        }
        *charged = (record, state);
        Ok(())
    }

    /// The bytes of the record, as last charged.
    pub fn record(&self) -> usize {
        lock(&self.0).0
    }
}

/// A session's record as the store keeps it: the session's own ([`Record`]), and who it
/// counts against and belongs to.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SessionRecord {
    #[serde(flatten)]
    session: Record,
    #[cfg(feature = "auth")]
    #[serde(default)]
    owner: Option<crate::auth::SessionOwner>,
    /// Whom the session counts against on every replica (`Client::store_key`).
    #[serde(default)]
    client: Option<String>,
}

impl SessionRecord {
    /// The record of `snapshot`, counted against `client`.
    pub fn of(snapshot: Snapshot, client: Option<&str>) -> Self {
        Self {
            session: snapshot.record,
            #[cfg(feature = "auth")]
            owner: snapshot.owner,
            client: client.map(str::to_owned),
        }
    }

    /// The record as the store keeps it, within [`MAX_RECORD_BYTES`].
    pub fn encode(&self) -> Result<String, Unsaved> {
        let json = serde_json::to_string(self).map_err(|_| Unsaved::Unavailable)?;
        if json.len() > MAX_RECORD_BYTES {
            return Err(Unsaved::RecordTooLarge { bytes: json.len() });
        }
        Ok(json)
    }

    /// Whether the session's handshake is complete (`notifications/initialized`).
    pub fn is_initialized(&self) -> bool {
        self.session.initialized
    }

    /// The session as a replica that reads it gets it; `bytes`: what the record takes in the
    /// store, `state`: its `SessionState` values.
    pub fn loaded(self, bytes: usize, state: HashMap<String, String>) -> Loaded {
        Loaded {
            record: self.session,
            client: self.client,
            #[cfg(feature = "auth")]
            owner: self.owner,
            record_bytes: bytes,
            state,
        }
    }
}

impl Replicas {
    /// The record of session `id`, with the bytes it takes in the store; `Ok(None)` if there
    /// is none (ended, expired, never was).
    pub async fn load_record(&self, id: &str) -> Result<Option<(SessionRecord, usize)>, Unavailable> {
        let key = self.key("session", id);
        let json: Option<String> =
            self.run(|mut redis| async move { redis::cmd("GET").arg(&key).query_async(&mut redis).await }).await?;
        Ok(json.and_then(|json| match serde_json::from_str(&json) {
            Ok(record) => Some((record, json.len())),
            Err(err) => {
                tracing::warn!("a stored session record does not decode ({err}); treating the session as ended");
                None
            }
        }))
    }

    /// The session's `SessionState` values, JSON by type name.
    pub async fn load_state(&self, id: &str) -> Result<HashMap<String, String>, Unavailable> {
        let key = self.key("state", id);
        self.run(|mut redis| async move { redis::cmd("HGETALL").arg(&key).query_async(&mut redis).await }).await
    }

    /// Saves these `SessionState` values.
    pub async fn save_state(&self, id: &str, values: &[(&'static str, String)]) -> Result<(), Unavailable> {
        let (key, ttl) = (self.key("state", id), self.ttl_ms());
        self.run(|mut redis| async move {
            let mut pipe = redis::pipe();
            let mut set = redis::cmd("HSET");
            set.arg(&key);
            for (name, json) in values {
                set.arg(*name).arg(json);
            }
            pipe.add_command(set).ignore();
            pipe.cmd("PEXPIRE").arg(&key).arg(ttl).ignore();
            pipe.query_async::<()>(&mut redis).await
        })
        .await
    }

    /// Tells the other replicas that session `id` changed, so they read it again.
    pub async fn announce_changed(&self, id: &str) -> Result<(), Unavailable> {
        self.publish(Note::Changed { session: id.to_owned() }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::budget::Pool;
    use std::sync::Arc;

    #[test]
    fn what_the_store_holds_is_charged_to_the_session_and_the_server() {
        let server = Arc::new(Pool::new(1000));
        let budget = Budget::new(600, Arc::clone(&server));
        let charged = Charged::default();
        assert_eq!(charged.set(&budget, 300, 100, false), Ok(()));
        assert_eq!((budget.used(), server.used()), (400, 400));
        assert_eq!(charged.set(&budget, 500, 200, false), Err(OverBudget::Session { bytes: 300, limit: 600 }));
        assert_eq!((budget.used(), charged.record()), (400, 300), "a refused charge changes nothing");
        assert_eq!(charged.set(&budget, 100, 0, false), Ok(()));
        assert_eq!((budget.used(), server.used()), (100, 100), "a smaller record gives bytes back");
        charged.set(&budget, 500, 200, true).unwrap();
        assert_eq!(budget.used(), 700, "loaded from the store: charged as it is");
        drop(budget);
        assert_eq!(server.used(), 0, "all of it goes back when the session ends");
    }

    #[test]
    fn the_stored_record_keeps_the_sessions_fields_at_the_top_level_with_its_owner_and_client() {
        let stored = serde_json::json!({
            "version": "2025-11-25", "client_info": null, "capabilities": {}, "initialized": true,
            "log_level": "info", "subscriptions": ["file:///a"], "hidden_tools": [], "tags": {},
            "client": "ip:127.0.0.1",
        });
        let record: SessionRecord = serde_json::from_value(stored.clone()).unwrap();
        assert!(record.is_initialized());
        assert_eq!(record.client.as_deref(), Some("ip:127.0.0.1"));
        let mut again = serde_json::to_value(&record).unwrap();
        if let Some(fields) = again.as_object_mut() {
            fields.remove("owner");
        }
        assert_eq!(again, stored, "older replicas read what this one writes, and the other way round");
    }

    #[test]
    fn a_record_past_its_bound_is_refused() {
        let record = |subscriptions: Vec<String>| -> SessionRecord {
            serde_json::from_value(serde_json::json!({
                "version": "2025-11-25", "client_info": null, "capabilities": {}, "initialized": true,
                "log_level": "info", "subscriptions": subscriptions,
            }))
            .unwrap()
        };
        assert!(record(Vec::new()).encode().is_ok_and(|json| json.len() < 1024));
        let large = record(vec!["x".repeat(MAX_RECORD_BYTES)]);
        assert!(matches!(large.encode(), Err(Unsaved::RecordTooLarge { bytes }) if bytes > MAX_RECORD_BYTES));
    }
}
