//! [`SharedSession`]: one session's part in a store shared by the replicas of a server (its
//! streams there, and what this replica saved of it), as the session itself holds it. Below
//! the session: it knows sessions only by what it is handed.

use super::super::failure::Failure;
use crate::jsonrpc::RequestId;
use crate::session::budget::Budget;
use crate::session::outgoing::{Outgoing, Sink};
use crate::session::record::Record;
use futures_util::future::BoxFuture;
use hyper::body::Bytes;
use serde::Serialize;
use tokio::sync::mpsc;

/// A session's part in the shared store: what `HttpSession` calls instead of its own streams,
/// and what [`Replication`](super::Replication) calls to keep the store and this replica's
/// copy of the session in step.
pub(crate) trait SharedSession: Send + Sync {
    /// A stream in the store for one request (see `HttpSession::open_stream`); `request`: its
    /// id, so that a replica resuming the stream can answer for a replica that died.
    fn open_stream(
        &self,
        sink: &Sink,
        messages: mpsc::Receiver<Outgoing>,
        request: Option<RequestId>,
    ) -> (Box<dyn SharedReader>, Box<dyn SharedPump>);

    /// A reader for a `GET` (see `HttpSession::listen`); `Ok(None)`: no such stream.
    fn listen(&self, last_event: Option<(u64, u64)>) -> BoxFuture<'_, Result<Option<Box<dyn SharedReader>>, Failure>>;

    /// Queues a message on the session's `GET` stream.
    fn send_unsolicited<'a>(&'a self, message: &'a [u8]) -> BoxFuture<'a, ()>;

    /// Ends the connection carrying `sink`'s stream after what it sent so far.
    fn close_connection_of(&self, sink: &Sink);

    /// Whether a client reads one of the session's streams on this replica.
    fn has_reader(&self) -> bool;

    /// This replica drops the session: its readers here end (the streams stay in the store).
    fn end_here(&self);

    /// This replica dropped the session because its time ran out here: it ends everywhere too
    /// unless another replica kept it alive.
    fn expire_here(&self);

    /// Keeps the session alive in the store for a request; `Ok(false)`: it no longer exists.
    fn touch(&self) -> BoxFuture<'_, Result<bool, Failure>>;

    /// Whether another replica changed the session since this one read it (it no longer is:
    /// the caller reads it again).
    fn take_stale(&self) -> bool;

    /// The session must be read again on its next request.
    fn mark_stale(&self);

    /// Records that this replica's copy is the store's at `revision`, and charges `budget` for
    /// what the store holds (`record`, `state`: bytes); `anyway`: past the limits (what another
    /// replica saved under the same ones).
    fn loaded(&self, budget: &Budget, revision: u64, record: usize, state: usize, anyway: bool) -> Result<(), Failure>;

    /// Whether the session's record was saved at `revision` already.
    fn is_saved(&self, revision: u64) -> bool;

    /// Saves what changed of the session: its record if `record` (at `revision`), the values of
    /// `state` that changed, and tells the other replicas.
    fn save<'a>(
        &'a self,
        budget: &'a Budget,
        revision: u64,
        record: Option<Snapshot>,
        state: Vec<(&'static str, String)>,
    ) -> BoxFuture<'a, Result<(), Failure>>;

    /// Saves a new session's record, unless its client holds `share` sessions already on the
    /// replicas together: `Ok(false)` then.
    fn admit<'a>(
        &'a self,
        budget: &'a Budget,
        revision: u64,
        record: Snapshot,
        share: usize,
    ) -> BoxFuture<'a, Result<bool, Failure>>;

    /// Ends the session on every replica, deleting what the store holds of it.
    fn end_everywhere(&self) -> BoxFuture<'_, Result<(), Failure>>;
}

/// A session's record as a store saves it: the session's own, and who started it.
#[derive(Serialize)]
pub(crate) struct Snapshot {
    #[serde(flatten)]
    pub record: Record,
    /// The user who started the session (feature `auth`): later requests must be theirs.
    #[cfg(feature = "auth")]
    pub owner: Option<crate::auth::SessionOwner>,
}

/// One connection's view of a stream in the store: the SSE body of a `POST` or `GET`.
pub(crate) trait SharedReader: Send {
    /// The next frame to write, or `None` when this connection's part of the stream is over.
    fn next(&mut self) -> BoxFuture<'_, Option<Bytes>>;
}

/// Moves one request's messages into its stream in the store, until its answer.
pub(crate) trait SharedPump: Send {
    /// Moves `answer` (when the engine returned it at once) after what is queued, on a task.
    fn start(self: Box<Self>, answer: Option<Outgoing>);
}
