//! What replicas tell each other, on one pub/sub channel: [`Note`]s (JSON, tagged with the
//! sender, which ignores its own) and stream nudges (`n<key>`: the stream at `key` grew).
//!
//! Pub/sub delivers nothing to a replica that is disconnected at the time: a lost nudge only
//! delays a reader until its next poll ([`super::stream`]); a lost note is what an outage of
//! the store costs (an answer to a sampling request, a cancellation).

use super::{Replicas, Unavailable};
use crate::registry::Change;
use redis::{PushInfo, PushKind};
use serde::{Deserialize, Serialize};
use std::sync::Weak;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub(super) enum Note {
    /// A client's message that belongs to a request running on another replica: an answer to
    /// a server-to-client request, or a cancellation.
    /// (The message is JSON text in a string: an internally tagged enum cannot hold a raw value.)
    Message { session: String, message: String },
    /// The session ended (DELETE): drop your copy and what it runs.
    Ended { session: String },
    /// The session's record or state changed: read them again.
    Changed { session: String },
    /// What the server offers changed on the sender.
    Catalog { change: CatalogChange },
    /// A client's `tasks/update` or `tasks/cancel` for a task replica `owner` runs.
    Task { task: String, owner: u32, signal: crate::tasks::Signal },
    /// A task changed (for `subscriptions/listen` streams elsewhere).
    TaskChanged { task: Box<crate::tasks::StoredTask> },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum CatalogChange {
    Tools,
    Resources,
    Prompts,
    ResourceUpdated(String),
}

impl CatalogChange {
    fn of(change: &Change) -> Self {
        match change {
            Change::Tools => Self::Tools,
            Change::Resources => Self::Resources,
            Change::Prompts => Self::Prompts,
            Change::ResourceUpdated(uri) => Self::ResourceUpdated(uri.to_string()),
        }
    }

    fn into_change(self) -> Change {
        match self {
            Self::Tools => Change::Tools,
            Self::Resources => Change::Resources,
            Self::Prompts => Change::Prompts,
            Self::ResourceUpdated(uri) => Change::ResourceUpdated(uri.into()),
        }
    }
}

impl Note {
    /// `j<sender's tag>:<json>`.
    pub fn encode(&self, tag: u32) -> String {
        format!("j{tag}:{}", serde_json::to_string(self).unwrap_or_default())
    }
}

impl Replicas {
    pub(super) async fn publish(&self, note: Note) -> Result<(), Unavailable> {
        let (channel, payload) = (self.channel(), note.encode(self.tag));
        self.run(|mut redis| async move {
            redis::cmd("PUBLISH").arg(&channel).arg(payload).query_async::<()>(&mut redis).await
        })
        .await
    }

    /// Hands a client's message to the replica running the request it belongs to.
    pub async fn forward(&self, session: &str, message: &[u8]) -> Result<(), Unavailable> {
        let message = String::from_utf8(message.to_vec()).map_err(|_| Unavailable)?;
        self.publish(Note::Message { session: session.to_owned(), message }).await
    }
}

/// Subscribes to the channel (retrying until Redis answers; the connection manager then
/// resubscribes by itself after a reconnection), then acts on what other replicas say, until
/// the store is dropped.
pub(super) async fn listen(replicas: Weak<Replicas>, mut pushes: mpsc::UnboundedReceiver<PushInfo>) {
    loop {
        let Some(store) = replicas.upgrade() else { return };
        let channel = store.channel();
        let mut redis = store.redis.clone();
        if store.run(|_| async move { redis.subscribe(&channel).await }).await.is_ok() {
            break;
        }
        drop(store);
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    while let Some(push) = pushes.recv().await {
        let Some(store) = replicas.upgrade() else { return };
        if push.kind == PushKind::Disconnection {
            // Notes published while the connection was down are lost: every session held here
            // may have changed elsewhere meanwhile, so each reads its record again on its next
            // request.
            if let Some(local) = store.local() {
                local.mark_all_stale();
            }
            continue;
        }
        if push.kind != PushKind::Message {
            continue;
        }
        let Some(payload) = push.data.get(1).and_then(|value| redis::from_redis_value_ref::<String>(value).ok()) else {
            continue;
        };
        store.receive(&payload);
    }
}

impl Replicas {
    fn receive(&self, payload: &str) {
        if let Some(key) = payload.strip_prefix('n') {
            return self.wake(key);
        }
        let Some((tag, json)) = payload.strip_prefix('j').and_then(|rest| rest.split_once(':')) else { return };
        if tag.parse() == Ok(self.tag) {
            return;
        }
        let note = match serde_json::from_str::<Note>(json) {
            Ok(note) => note,
            Err(err) => return tracing::debug!("ignoring a note from another replica that does not decode: {err}"),
        };
        let Some(local) = self.local() else { return };
        match note {
            Note::Message { session, message } => local.deliver(&session, message),
            Note::Ended { session } => local.end(&session),
            Note::Changed { session } => local.mark_stale(&session),
            Note::Catalog { change } => {
                if let Some(announce) = self.announce_here.get() {
                    let _ = announce.send(change.into_change());
                }
            }
            Note::Task { task, owner, signal } if owner == self.tag => local.signal_task(&task, signal),
            Note::Task { .. } => {}
            Note::TaskChanged { task } => local.task_changed(&task),
        }
    }
}

/// Tells the other replicas about each change of the catalog made here, and writes its
/// notification to the `GET` stream of every session it concerns, whichever replica serves it.
pub(super) async fn relay_changes(replicas: Weak<Replicas>, mut changes: broadcast::Receiver<Change>) {
    loop {
        let change = match changes.recv().await {
            Ok(change) => change,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!("{missed} catalog changes were not relayed to the other replicas");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(store) = replicas.upgrade() else { return };
        // The notification a session gets, and the URI it must be subscribed to (if any).
        let (method, params) = change.notification();
        let notification = crate::jsonrpc::encode_notification(method, &params);
        let uri = match &change {
            Change::ResourceUpdated(uri) => Some(&**uri),
            _ => None,
        };
        if store.fan_out(&notification, uri).await.is_err() {
            tracing::warn!("a list change was not written to the sessions' streams: the store is unreachable");
        }
        let _ = store.publish(Note::Catalog { change: CatalogChange::of(&change) }).await;
    }
}
