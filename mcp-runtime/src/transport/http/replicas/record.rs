//! A session's record in the store: what a replica that has not served the session yet needs
//! to serve it, and its `SessionState` values. Saved when the session changes; read on a
//! replica's first request of the session, and again when another replica says it changed.
//! A record takes at most [`MAX_RECORD_BYTES`]; what the store holds of a session counts
//! against the session's budget on each replica holding it.

use super::super::failure::Failure;
use super::bus::Note;
use super::{Replicas, Unavailable};
use crate::logging::LoggingLevel;
use crate::protocol::{Implementation, ProtocolVersion};
use crate::session::budget::{Budget, OverBudget};
use crate::session::{ClientState, Session};
use crate::sync::lock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
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
            Self::Unavailable => Failure::store_unavailable(),
            Self::Ended => Failure {
                status: StatusCode::NOT_FOUND,
                code: super::super::code::SESSION_NOT_FOUND,
                message: "Session not found".into(),
            },
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

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SessionRecord {
    version: String,
    client_info: Option<Implementation>,
    capabilities: Map<String, Value>,
    initialized: bool,
    log_level: LoggingLevel,
    /// Read by the store's fan-out script too (resource updates go to subscribers only).
    subscriptions: Vec<String>,
    /// Tools hidden from this session (`Context::hide_tools`).
    #[serde(default)]
    hidden_tools: Vec<String>,
    /// This session's tag switches (`Context::disable_tags`/`enable_tags`).
    #[serde(default)]
    tags: crate::tags::SessionTags,
    #[cfg(feature = "auth")]
    #[serde(default)]
    owner: Option<crate::auth::SessionOwner>,
    /// Whom the session counts against on every replica (`Client::store_key`).
    #[serde(default)]
    client: Option<String>,
}

impl SessionRecord {
    /// The record of an initialized session, counted against `client_key`; `None` before its
    /// handshake.
    pub fn of(
        session: &Session,
        client_key: Option<&str>,
        #[cfg(feature = "auth")] owner: Option<&crate::auth::SessionOwner>,
    ) -> Option<Self> {
        let client = session.client()?;
        Some(Self {
            version: client.version.as_str().to_owned(),
            client_info: client.info.clone(),
            capabilities: client.capabilities.clone(),
            initialized: session.is_initialized(),
            log_level: session.log_level(),
            subscriptions: session.subscriptions(),
            hidden_tools: session.hidden_tools(),
            tags: session.tag_switches(),
            #[cfg(feature = "auth")]
            owner: owner.cloned(),
            client: client_key.map(str::to_owned),
        })
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
        self.initialized
    }

    /// Whom the session counts against on every replica.
    pub fn client(&self) -> Option<&str> {
        self.client.as_deref()
    }

    /// Makes `session` what this record says.
    pub fn apply(self, session: &Session) {
        if session.client().is_none() {
            let version = ProtocolVersion::parse(&self.version).unwrap_or(ProtocolVersion::LATEST);
            let client = ClientState::new(&session.settings, version, self.client_info, self.capabilities);
            session.set_client(client);
        }
        if self.initialized {
            session.mark_initialized();
        }
        session.set_log_level(self.log_level);
        let wanted: std::collections::HashSet<&String> = self.subscriptions.iter().collect();
        for uri in session.subscriptions() {
            if !wanted.contains(&uri) {
                let _ = session.set_subscribed(&uri, false);
            }
        }
        let shown: Vec<String> =
            session.hidden_tools().into_iter().filter(|t| !self.hidden_tools.contains(t)).collect();
        session.show_tools(&shown.iter().map(String::as_str).collect::<Vec<_>>());
        session.hide_tools(&self.hidden_tools.iter().map(String::as_str).collect::<Vec<_>>());
        session.set_tag_switches(self.tags);
        for uri in &self.subscriptions {
            // Over this replica's budget: the subscription is dropped here, and logged.
            if session.set_subscribed(uri, true).is_err() {
                tracing::warn!("a stored subscription does not fit the session's budget on this replica");
            }
        }
    }

    #[cfg(feature = "auth")]
    pub fn owner(&self) -> Option<&crate::auth::SessionOwner> {
        self.owner.as_ref()
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
    fn a_sessions_tag_switches_are_kept_in_its_record_and_older_records_have_none() {
        let older = serde_json::json!({
            "version": "2025-11-25", "client_info": null, "capabilities": {}, "initialized": true,
            "log_level": "info", "subscriptions": [],
        });
        let record: SessionRecord = serde_json::from_value(older.clone()).unwrap();
        assert!(record.tags.is_empty());
        let mut switches = crate::tags::SessionTags::default();
        switches.switch(&["admin"], true);
        switches.switch(&["beta"], false);
        let mut with_tags = older;
        with_tags["tags"] = serde_json::to_value(&switches).unwrap();
        assert_eq!(with_tags["tags"], serde_json::json!({"off": ["beta"], "on": ["admin"]}));
        let record: SessionRecord = serde_json::from_value(with_tags).unwrap();
        let again: SessionRecord = serde_json::from_str(&record.encode().unwrap()).unwrap();
        assert_eq!(again.tags, switches);
    }

    #[test]
    fn a_record_past_its_bound_is_refused() {
        let mut record: SessionRecord = serde_json::from_value(serde_json::json!({
            "version": "2025-11-25", "client_info": null, "capabilities": {}, "initialized": true,
            "log_level": "info", "subscriptions": [],
        }))
        .unwrap();
        assert!(record.encode().is_ok_and(|json| json.len() < 1024));
        record.subscriptions = vec!["x".repeat(MAX_RECORD_BYTES)];
        assert!(matches!(record.encode(), Err(Unsaved::RecordTooLarge { bytes }) if bytes > MAX_RECORD_BYTES));
    }
}
