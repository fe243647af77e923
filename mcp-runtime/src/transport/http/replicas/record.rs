//! A session's record in the store: what a replica that has not served the session yet needs
//! to serve it, and its `SessionState` values. Saved when the session changes; read on a
//! replica's first request of the session, and again when another replica says it changed.

use super::bus::Note;
use super::{Replicas, Unavailable};
use crate::logging::LoggingLevel;
use crate::protocol::{Implementation, ProtocolVersion};
use crate::session::{ClientState, Session};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;

#[derive(Debug, Serialize, Deserialize)]
pub(in super::super) struct SessionRecord {
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
    #[cfg(feature = "auth")]
    #[serde(default)]
    owner: Option<crate::auth::SessionOwner>,
}

impl SessionRecord {
    /// The record of an initialized session; `None` before its handshake.
    pub fn of(session: &Session, #[cfg(feature = "auth")] owner: Option<&crate::auth::SessionOwner>) -> Option<Self> {
        let client = session.client()?;
        Some(Self {
            version: client.version.as_str().to_owned(),
            client_info: client.info.clone(),
            capabilities: client.capabilities.clone(),
            initialized: session.is_initialized(),
            log_level: session.log_level(),
            subscriptions: session.subscriptions(),
            hidden_tools: session.hidden_tools(),
            #[cfg(feature = "auth")]
            owner: owner.cloned(),
        })
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
    /// Saves the record (and adds an initialized session to those list changes reach).
    pub async fn save_record(&self, id: &str, record: &SessionRecord) -> Result<(), Unavailable> {
        let json = serde_json::to_string(record).map_err(|_| Unavailable)?;
        let (key, sessions, ttl) = (self.key("session", id), format!("{}sessions", self.prefix), self.ttl_ms());
        let initialized = record.initialized;
        self.run(|mut redis| async move {
            let mut pipe = redis::pipe();
            pipe.cmd("SET").arg(&key).arg(json).arg("PX").arg(ttl).ignore();
            if initialized {
                pipe.cmd("SADD").arg(&sessions).arg(id).ignore();
            }
            pipe.query_async::<()>(&mut redis).await
        })
        .await
    }

    /// The record of session `id`; `Ok(None)` if there is none (ended, expired, never was).
    pub async fn load_record(&self, id: &str) -> Result<Option<SessionRecord>, Unavailable> {
        let key = self.key("session", id);
        let json: Option<String> =
            self.run(|mut redis| async move { redis::cmd("GET").arg(&key).query_async(&mut redis).await }).await?;
        Ok(json.and_then(|json| match serde_json::from_str(&json) {
            Ok(record) => Some(record),
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

    /// Ends session `id` everywhere: its keys go, and every replica drops its copy (ending
    /// what it runs for the session).
    pub async fn end_session(&self, id: &str) -> Result<(), Unavailable> {
        let keys = [self.key("session", id), self.key("state", id), self.key("sent", id), self.key("ev", id) + ":0"];
        let sessions = format!("{}sessions", self.prefix);
        let note = Note::Ended { session: id.to_owned() }.encode(self.tag);
        let channel = self.channel();
        self.run(|mut redis| async move {
            let mut pipe = redis::pipe();
            pipe.cmd("DEL").arg(&keys[..]).ignore();
            pipe.cmd("SREM").arg(&sessions).arg(id).ignore();
            pipe.cmd("PUBLISH").arg(&channel).arg(note).ignore();
            pipe.query_async::<()>(&mut redis).await
        })
        .await
    }

    /// Tells the other replicas that session `id` changed, so they read it again.
    pub async fn announce_changed(&self, id: &str) -> Result<(), Unavailable> {
        self.publish(Note::Changed { session: id.to_owned() }).await
    }
}
