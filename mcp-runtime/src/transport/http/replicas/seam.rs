//! The Redis store as the endpoint's [`Store`]: the seam's other side.

use super::super::failure::Failure;
use super::super::replication::shared::SharedSession;
use super::super::replication::{Loaded, Store};
use super::stream::Replicated;
use super::{Replicas, bus};
use crate::registry::Change;
use crate::session::outgoing::Outgoing;
use crate::tasks::TaskStore;
use futures_util::future::BoxFuture;
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc};

impl Store for Replicas {
    fn first_request_id(&self) -> i64 {
        Replicas::first_request_id(self)
    }

    fn session(
        self: Arc<Self>,
        id: &str,
        client: Option<String>,
        unsolicited: mpsc::Receiver<Outgoing>,
    ) -> Arc<dyn SharedSession> {
        Replicated::new(self, id, client, unsolicited)
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Loaded>, Failure>> {
        Box::pin(async move {
            let Some((record, bytes)) = self.load_record(id).await? else { return Ok(None) };
            let state = self.load_state(id).await?;
            Ok(Some(record.loaded(bytes, state)))
        })
    }

    fn forward<'a>(&'a self, id: &'a str, message: &'a [u8]) -> BoxFuture<'a, Result<(), Failure>> {
        Box::pin(async move { Ok(Replicas::forward(self, id, message).await?) })
    }

    fn relay(self: Arc<Self>, made_here: broadcast::Receiver<Change>, announce_here: broadcast::Sender<Change>) {
        let _ = self.announce_here.set(announce_here);
        tokio::spawn(bus::relay_changes(Arc::downgrade(&self), made_here));
    }

    fn tasks(self: Arc<Self>) -> Arc<dyn TaskStore> {
        self
    }
}
