//! A session's requests still running, by id: for cancellation, duplicate ids, the cap on how
//! many may run at once, and shutdown.

use crate::jsonrpc::RequestId;
use crate::session::outgoing::Sink;
use crate::sync::lock;
use foldhash::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A request in flight, as the session layer sees it: something to cancel. (The engine's
/// request context; held as this so the layer below the context does not name it.)
pub(crate) trait Cancel: Send + Sync {
    /// Marks the request cancelled; its handler is dropped and no answer is sent.
    fn cancel(&self);

    /// Where the request's answer goes (for the error that ends it at shutdown).
    fn answer_sink(&self) -> &Sink;
}

/// Why a request cannot start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A request with the same id is still running.
    IdInUse,
    /// The session already runs as many requests as it may (`Server::max_requests_in_flight`).
    Full,
}

pub(crate) struct InFlight {
    /// Each request, held until it ends (its context keeps its session alive until then).
    table: Mutex<HashMap<RequestId, Arc<dyn Cancel>>>,
    /// The table's length, so that checking an empty table takes no lock: on stdio most
    /// requests finish before they would be registered, and it stays empty.
    len: AtomicUsize,
    /// How many requests may run at once.
    limit: usize,
}

impl InFlight {
    /// An empty table that holds at most `limit` requests.
    pub fn new(limit: usize) -> Self {
        Self { table: Mutex::default(), len: AtomicUsize::new(0), limit }
    }

    /// Registers a request, unless one with the same id is still running or the table is full.
    pub fn insert(&self, id: &RequestId, request: &Arc<dyn Cancel>) -> Result<(), Refusal> {
        self.edit(|table| {
            if table.len() >= self.limit {
                return Err(Refusal::Full);
            }
            match table.entry(id.clone()) {
                std::collections::hash_map::Entry::Occupied(_) => Err(Refusal::IdInUse),
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(Arc::clone(request));
                    Ok(())
                }
            }
        })
    }

    /// Whether [`insert`](Self::insert) would register this request now; takes no lock while
    /// the table is empty.
    pub fn admits(&self, id: &RequestId) -> Result<(), Refusal> {
        if self.len() >= self.limit {
            Err(Refusal::Full)
        } else if self.contains(id) {
            Err(Refusal::IdInUse)
        } else {
            Ok(())
        }
    }

    pub fn contains(&self, id: &RequestId) -> bool {
        self.len() > 0 && self.edit(|table| table.contains_key(id))
    }

    /// Ends a request, running `then` (which must not block) before it stops counting as in
    /// flight, when it was (it was not cancelled); its context if so.
    pub fn remove_then(&self, id: &RequestId, then: impl FnOnce()) -> Option<Arc<dyn Cancel>> {
        self.edit(|table| {
            let removed = table.remove(id);
            if removed.is_some() {
                then();
            }
            removed
        })
    }

    /// Ends every request; returns them.
    pub fn drain(&self) -> Vec<(RequestId, Arc<dyn Cancel>)> {
        self.edit(|table| table.drain().collect())
    }

    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    fn edit<T>(&self, change: impl FnOnce(&mut HashMap<RequestId, Arc<dyn Cancel>>) -> T) -> T {
        // A panic while locked (an allocation failure) leaves the table consistent.
        let mut table = lock(&self.table);
        let outcome = change(&mut table);
        self.len.store(table.len(), Ordering::Release);
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Request(Sink);

    impl Cancel for Request {
        fn cancel(&self) {}

        fn answer_sink(&self) -> &Sink {
            &self.0
        }
    }

    fn context(_: &RequestId) -> Arc<dyn Cancel> {
        Arc::new(Request(tokio::sync::mpsc::channel(1).0))
    }

    #[test]
    fn the_length_follows_the_table_without_its_lock() {
        let table = InFlight::new(8);
        let (one, two) = (RequestId::Number(1), RequestId::String("two".into()));
        assert!(!table.contains(&one));
        assert_eq!(table.insert(&one, &context(&one)), Ok(()));
        assert_eq!(table.insert(&one, &context(&one)), Err(Refusal::IdInUse), "a duplicate id is refused");
        assert_eq!(table.insert(&two, &context(&two)), Ok(()));
        assert_eq!(table.len(), 2);
        assert!(table.contains(&one) && table.contains(&two));

        let mut sent = false;
        assert!(table.remove_then(&one, || sent = true).is_some());
        assert!(sent, "`then` runs when the request was in flight");
        assert!(table.remove_then(&one, || panic!("not in flight: nothing to send")).is_none());
        assert_eq!(table.len(), 1);
        assert!(!table.contains(&one));

        assert_eq!(table.drain().len(), 1);
        assert_eq!(table.len(), 0);
        assert!(!table.contains(&two));
    }

    #[test]
    fn a_full_table_refuses_new_requests_until_one_ends() {
        let table = InFlight::new(2);
        let ids = [RequestId::Number(1), RequestId::Number(2), RequestId::Number(3)];
        assert_eq!(table.insert(&ids[0], &context(&ids[0])), Ok(()));
        assert_eq!(table.admits(&ids[0]), Err(Refusal::IdInUse));
        assert_eq!(table.insert(&ids[1], &context(&ids[1])), Ok(()));
        assert_eq!(table.admits(&ids[2]), Err(Refusal::Full));
        assert_eq!(table.insert(&ids[2], &context(&ids[2])), Err(Refusal::Full));
        assert!(table.remove_then(&ids[0], || {}).is_some());
        assert_eq!(table.admits(&ids[2]), Ok(()));
        assert_eq!(table.insert(&ids[2], &context(&ids[2])), Ok(()));
    }
}
