//! What a store shared by several processes of a server (HTTP replicas) needs of a session:
//! its [`Record`] (the handshake, the log level, subscriptions, hidden tools, tag switches) and
//! how a session is made what a record says, when it last changed, and whether an answer from
//! the client belongs here. Its `SessionState` values are kept beside the record
//! (`SessionValues::encode`/`reload`).

use super::{ClientState, Session};
use crate::jsonrpc::RequestId;
use crate::logging::LoggingLevel;
use crate::protocol::{Implementation, ProtocolVersion};
use crate::sync::lock;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::sync::atomic::Ordering;

/// A snapshot of what a session store keeps of an initialized session.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Record {
    version: String,
    client_info: Option<Implementation>,
    capabilities: Map<String, Value>,
    /// Whether the handshake is complete (`notifications/initialized`).
    pub initialized: bool,
    log_level: LoggingLevel,
    /// Read by the Redis store's fan-out script too (resource updates go to subscribers only).
    subscriptions: Vec<String>,
    /// Tools hidden from this session (`Context::hide_tools`).
    #[serde(default)]
    hidden_tools: Vec<String>,
    /// This session's tag switches (`Context::disable_tags`/`enable_tags`).
    #[serde(default)]
    tags: crate::tags::SessionTags,
}

impl Session {
    /// Bumped by every change to what its [`Record`] holds: the store saves it when it moved.
    pub fn revision(&self) -> u64 {
        self.revision.load(Ordering::Acquire)
    }

    /// Numbers this session's requests to the client from `first` on: processes sharing a
    /// session each take their own range, so an answer names one waiting request.
    pub fn number_requests_from(&self, first: i64) {
        self.next_request_id.store(first, Ordering::Relaxed);
    }

    /// Whether a request to the client with this id waits for its answer here (else the
    /// answer belongs to another process sharing the session).
    pub fn awaits(&self, id: &RequestId) -> bool {
        lock(&self.awaiting_client).contains_key(id)
    }

    /// What a store keeps of this session; `None` before its handshake.
    pub fn record(&self) -> Option<Record> {
        let client = self.client()?;
        let tags = if self.switches_tags() { lock(&self.tags).clone() } else { Default::default() };
        Some(Record {
            version: client.version.as_str().to_owned(),
            client_info: client.info.clone(),
            capabilities: client.capabilities.clone(),
            initialized: self.is_initialized(),
            log_level: self.log_level(),
            subscriptions: lock(&self.subscriptions).iter().cloned().collect(),
            hidden_tools: self.hidden_tools(),
            tags,
        })
    }

    /// Makes this session what `record` says (read from a store: another process changed it).
    /// A subscription past this process's budget for the session is dropped here, and logged.
    pub fn apply(&self, record: Record) {
        if self.client().is_none() {
            let version = ProtocolVersion::parse(&record.version).unwrap_or(ProtocolVersion::LATEST);
            let client = ClientState::new(&self.settings, version, record.client_info, record.capabilities);
            self.set_client(client);
        }
        if record.initialized {
            self.mark_initialized();
        }
        self.set_log_level(record.log_level);
        let wanted: HashSet<&String> = record.subscriptions.iter().collect();
        let dropped: Vec<String> =
            lock(&self.subscriptions).iter().filter(|uri| !wanted.contains(uri)).cloned().collect();
        for uri in dropped {
            let _ = self.set_subscribed(&uri, false);
        }
        let shown: Vec<String> =
            self.hidden_tools().into_iter().filter(|tool| !record.hidden_tools.contains(tool)).collect();
        self.show_tools(&shown.iter().map(String::as_str).collect::<Vec<_>>());
        self.hide_tools(&record.hidden_tools.iter().map(String::as_str).collect::<Vec<_>>());
        let mut tags = lock(&self.tags);
        self.switches_tags.store(!record.tags.is_empty(), Ordering::Release);
        *tags = record.tags;
        drop(tags);
        for uri in &record.subscriptions {
            if self.set_subscribed(uri, true).is_err() {
                tracing::warn!("a stored subscription does not fit the session's budget in this process");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sessions_tag_switches_are_kept_in_its_record_and_older_records_have_none() {
        let older = serde_json::json!({
            "version": "2025-11-25", "client_info": null, "capabilities": {}, "initialized": true,
            "log_level": "info", "subscriptions": [],
        });
        let record: Record = serde_json::from_value(older.clone()).unwrap();
        assert!(record.tags.is_empty());
        let mut switches = crate::tags::SessionTags::default();
        switches.switch(&["admin"], true);
        switches.switch(&["beta"], false);
        let mut with_tags = older;
        with_tags["tags"] = serde_json::to_value(&switches).unwrap();
        assert_eq!(with_tags["tags"], serde_json::json!({"off": ["beta"], "on": ["admin"]}));
        let record: Record = serde_json::from_value(with_tags).unwrap();
        let again: Record = serde_json::from_str(&serde_json::to_string(&record).unwrap()).unwrap();
        assert_eq!(again.tags, switches);
    }
}
