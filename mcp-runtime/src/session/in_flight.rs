//! A session's requests still running, by id: for cancellation, duplicate ids and shutdown.

use crate::jsonrpc::RequestId;
use foldhash::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// A request in flight, as the session layer sees it: something to cancel. (The engine's
/// request context; held as this so the layer below the context does not name it.)
pub(crate) trait Cancel: Send + Sync {
    /// Marks the request cancelled; its handler is dropped and no answer is sent.
    fn cancel(&self);
}

#[derive(Default)]
pub(crate) struct InFlight {
    /// Each request, held until it ends (its context keeps its session alive until then).
    table: Mutex<HashMap<RequestId, Arc<dyn Cancel>>>,
    /// The table's length, so that checking an empty table takes no lock: on stdio most
    /// requests finish before they would be registered, and it stays empty.
    len: AtomicUsize,
}

impl InFlight {
    /// Registers a request; `false` if one with the same id is still running.
    pub fn insert(&self, id: &RequestId, request: &Arc<dyn Cancel>) -> bool {
        self.edit(|table| match table.entry(id.clone()) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(Arc::clone(request));
                true
            }
        })
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
    pub fn drain(&self) -> Vec<Arc<dyn Cancel>> {
        self.edit(|table| table.drain().map(|(_, request)| request).collect())
    }

    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    fn edit<T>(&self, change: impl FnOnce(&mut HashMap<RequestId, Arc<dyn Cancel>>) -> T) -> T {
        // A panic while locked (an allocation failure) leaves the table consistent.
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let outcome = change(&mut table);
        self.len.store(table.len(), Ordering::Release);
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Request;

    impl Cancel for Request {
        fn cancel(&self) {}
    }

    fn context(_: &RequestId) -> Arc<dyn Cancel> {
        Arc::new(Request)
    }

    #[test]
    fn the_length_follows_the_table_without_its_lock() {
        let table = InFlight::default();
        let (one, two) = (RequestId::Number(1), RequestId::String("two".into()));
        assert!(!table.contains(&one));
        assert!(table.insert(&one, &context(&one)));
        assert!(!table.insert(&one, &context(&one)), "a duplicate id is refused");
        assert!(table.insert(&two, &context(&two)));
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
}
