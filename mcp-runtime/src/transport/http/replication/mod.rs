//! [`Replication`]: the one seam between the endpoint and a store that several replicas of a
//! server share their sessions through ([`Store`]; Redis with feature `redis`). The endpoint
//! holds an `Option<Replication>`: without a store it is `None`, and each of the few points
//! that need one (a new session, a session this replica has not served, a message that
//! changed a session or belongs to another replica, the end of a session) costs one test.
//!
//! What a replica does to its copy of a session (snapshot its record and values, apply the
//! store's) is written here once, in terms of the session; a [`Store`] only moves bytes, and
//! keeps a session's part in the store ([`SharedSession`]: its streams, what was saved).

pub(super) mod shared;

use shared::{SharedSession, Snapshot};

use super::failure::Failure;
use super::session::HttpSession;
use crate::core::ServerCore;
use crate::message::Message;
use crate::registry::Change;
use crate::session::outgoing::Outgoing;
use crate::session::record::Record;
use crate::tasks::TaskStore;
use futures_util::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc};

/// A store the replicas of a server share their sessions through.
pub(super) trait Store: Send + Sync {
    /// The first id of this replica's requests to clients: replicas sharing a session number
    /// theirs apart, so that an answer names one waiting request.
    fn first_request_id(&self) -> i64;

    /// The part in the store of session `id`, counted against `client` on every replica;
    /// `unsolicited` (what the session sends outside any request) goes to its `GET` stream.
    fn session(
        self: Arc<Self>,
        id: &str,
        client: Option<String>,
        unsolicited: mpsc::Receiver<Outgoing>,
    ) -> Arc<dyn SharedSession>;

    /// What the store holds of session `id`; `Ok(None)` if nothing (ended, expired, never was).
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Loaded>, Failure>>;

    /// Hands a client's message for session `id` to the replica it belongs to.
    fn forward<'a>(&'a self, id: &'a str, message: &'a [u8]) -> BoxFuture<'a, Result<(), Failure>>;

    /// Relays the catalog's changes between this replica and the others: those `made_here`
    /// to them, theirs to `announce_here` (see `Catalog::relay`).
    fn relay(self: Arc<Self>, made_here: broadcast::Receiver<Change>, announce_here: broadcast::Sender<Change>);

    /// The store as the keeper of task records, so that any replica answers for any task.
    fn tasks(self: Arc<Self>) -> Arc<dyn TaskStore>;
}

/// A session as a store holds it.
pub(super) struct Loaded {
    pub record: Record,
    /// Whom the session counts against on every replica.
    pub client: Option<String>,
    /// The user who started it (feature `auth`).
    #[cfg(feature = "auth")]
    pub owner: Option<crate::auth::SessionOwner>,
    /// The bytes the record takes in the store.
    pub record_bytes: usize,
    /// Its `SessionState` values, JSON by type name.
    pub state: HashMap<String, String>,
}

/// The endpoint's side of a shared store: what it does at the few points that need one.
pub(super) struct Replication {
    store: Arc<dyn Store>,
}

impl Replication {
    /// Shares `core`'s sessions, catalog changes and task records through `store`.
    pub fn new(store: Arc<dyn Store>, core: &ServerCore) -> Self {
        let (made_here, announce_here) = core.catalog.relay();
        Arc::clone(&store).relay(made_here, announce_here);
        core.tasks.share(Arc::clone(&store).tasks());
        Self { store }
    }

    /// A new session, counted against `client` on every replica.
    pub fn create(&self, id: String, core: Arc<ServerCore>, client: Option<String>) -> Arc<HttpSession> {
        let first_request_id = self.store.first_request_id();
        let store = Arc::clone(&self.store);
        HttpSession::new_shared(id, core, first_request_id, |id, unsolicited| store.session(id, client, unsolicited))
    }

    /// A session another replica started, read from the store (not yet in this replica's
    /// table); `Ok(None)` when the store has no such session.
    pub fn adopt<'a>(
        &'a self,
        id: &'a str,
        core: &'a Arc<ServerCore>,
    ) -> BoxFuture<'a, Result<Option<Arc<HttpSession>>, Failure>> {
        Box::pin(async move {
            let Some(loaded) = self.store.load(id).await? else { return Ok(None) };
            let session = self.create(id.to_owned(), Arc::clone(core), loaded.client.clone());
            #[cfg(feature = "auth")]
            if let Some(owner) = loaded.owner.clone() {
                let _ = session.owner.set(owner);
            }
            restore(&session, loaded, false)?;
            Ok(Some(session))
        })
    }

    /// Whether the session still exists, read again first if another replica changed it since
    /// (or notes may have been lost). While the store is unreachable, the copy held here
    /// serves and stays stale, for the next request to retry.
    pub fn is_current<'a>(&'a self, session: &'a HttpSession) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let Some(shared) = session.shared() else { return true };
            // The first request on this replica ends the handshake TTL everywhere.
            if let Ok(false) = shared.touch().await {
                return false;
            }
            if shared.take_stale() {
                match self.store.load(&session.id).await {
                    // Saved by another replica under the same limits: charged here as it is.
                    Ok(Some(loaded)) => {
                        let _ = restore(session, loaded, true);
                    }
                    Ok(None) => {} // ended elsewhere: its note follows
                    Err(_) => shared.mark_stale(),
                }
            }
            true
        })
    }

    /// Saves what handling a message changed of the session.
    pub fn persist<'a>(&'a self, session: &'a HttpSession) -> BoxFuture<'a, Result<(), Failure>> {
        Box::pin(async move {
            let Some(shared) = session.shared() else { return Ok(()) };
            let engine = session.connection.session();
            let revision = engine.revision();
            let record = if shared.is_saved(revision) { None } else { snapshot(session) };
            shared.save(&engine.budget, revision, record, engine.state.encode()).await
        })
    }

    /// Saves a new session's record before its client learns the id (its next request may
    /// reach any replica), unless the client holds `share` sessions already on every replica
    /// together: `Ok(false)` then.
    pub fn admit<'a>(&'a self, session: &'a HttpSession, share: usize) -> BoxFuture<'a, Result<bool, Failure>> {
        Box::pin(async move {
            let Some(shared) = session.shared() else { return Ok(true) };
            let engine = session.connection.session();
            let Some(record) = snapshot(session) else { return Err(Failure::session_not_found()) };
            if !shared.admit(&engine.budget, engine.revision(), record, share).await? {
                return Ok(false);
            }
            // What the session's `initialize` set of its `SessionState` (nothing, usually).
            self.persist(session).await?;
            Ok(true)
        })
    }

    /// Hands a client's message that belongs to a request running on another replica (an
    /// answer to a request this replica did not send, a cancellation) to the replicas.
    pub fn forward<'a>(
        &'a self,
        session: &'a HttpSession,
        message: &Message<'_>,
        bytes: &'a [u8],
    ) -> BoxFuture<'a, Result<(), Failure>> {
        let elsewhere = match message {
            Message::Response { id, .. } => !session.connection.session().awaits(id),
            Message::Notification { method, .. } => method == "notifications/cancelled",
            Message::Request(_) => false,
        };
        Box::pin(async move { if elsewhere { self.store.forward(&session.id, bytes).await } else { Ok(()) } })
    }

    /// Ends the session on every replica.
    pub fn end<'a>(&'a self, session: &'a HttpSession) -> BoxFuture<'a, Result<(), Failure>> {
        Box::pin(async move {
            match session.shared() {
                Some(shared) => shared.end_everywhere().await,
                None => Ok(()),
            }
        })
    }
}

/// What the store keeps of `session`'s record; `None` before its handshake.
fn snapshot(session: &HttpSession) -> Option<Snapshot> {
    Some(Snapshot {
        record: session.connection.session().record()?,
        #[cfg(feature = "auth")]
        owner: session.owner.get().cloned(),
    })
}

/// Makes `session` what the store holds; `anyway`: charged past the budgets.
fn restore(session: &HttpSession, loaded: Loaded, anyway: bool) -> Result<(), Failure> {
    let Some(shared) = session.shared() else { return Ok(()) };
    let engine = session.connection.session();
    let state_bytes = loaded.state.iter().map(|(name, json)| name.len() + json.len()).sum();
    engine.apply(loaded.record);
    engine.state.reload(loaded.state);
    shared.loaded(&engine.budget, engine.revision(), loaded.record_bytes, state_bytes, anyway)
}
