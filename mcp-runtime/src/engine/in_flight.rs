//! A session's requests still running, by id: for cancellation, duplicate ids and shutdown.

use crate::Context;
use crate::jsonrpc::RequestId;
use foldhash::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

#[derive(Default)]
pub(crate) struct InFlight {
    /// Each request's context, held until it ends (so it keeps its session alive until then).
    table: Mutex<HashMap<RequestId, Context>>,
    /// The table's length, so that checking an empty table takes no lock: on stdio most
    /// requests finish before they would be registered, and it stays empty.
    len: AtomicUsize,
}

impl InFlight {
    /// Registers a request; `false` if one with the same id is still running.
    pub fn insert(&self, id: &RequestId, context: &Context) -> bool {
        self.edit(|table| match table.entry(id.clone()) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(context.clone());
                true
            }
        })
    }

    pub fn contains(&self, id: &RequestId) -> bool {
        self.len() > 0 && self.edit(|table| table.contains_key(id))
    }

    /// Ends a request, running `then` (which must not block) before it stops counting as in
    /// flight, when it was (it was not cancelled); its context if so.
    pub fn remove_then(&self, id: &RequestId, then: impl FnOnce()) -> Option<Context> {
        self.edit(|table| {
            let removed = table.remove(id);
            if removed.is_some() {
                then();
            }
            removed
        })
    }

    /// Ends every request; their contexts.
    pub fn drain(&self) -> Vec<Context> {
        self.edit(|table| table.drain().map(|(_, context)| context).collect())
    }

    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    fn edit<T>(&self, change: impl FnOnce(&mut HashMap<RequestId, Context>) -> T) -> T {
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
    use crate::engine::session::Session;
    use std::sync::Arc;

    fn context(id: &RequestId) -> Context {
        let server = crate::Server::new("t", "0").build().unwrap();
        let (sink, _) = tokio::sync::mpsc::channel(1);
        Context::new(id.clone(), None, Arc::new(Session::new(server, sink.clone())), &sink, None)
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
