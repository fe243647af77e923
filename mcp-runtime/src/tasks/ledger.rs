//! What task records cost. A record (its result above all) and, while the task runs, the
//! arguments its handler holds are bytes a client made the server keep, for as long as the
//! task's TTL: each owner's are charged to an allowance of their own, the size a session may
//! keep (`Server::max_session_bytes`), drawing on the pool every session draws on
//! (`Server::max_retained_bytes`). A charge is given back when its record expires.

use crate::session::budget::{Budget, OverBudget, Pool};
use crate::sync::lock;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The charges of every task this process created or ran.
pub(crate) struct Ledger {
    per_owner: usize,
    server: Arc<Pool>,
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    tasks: HashMap<String, Charge>,
    /// Each account's allowance and how many of its tasks are charged, while any is.
    accounts: HashMap<String, (Arc<Budget>, usize)>,
    /// The tasks that expire, soonest first.
    expiring: BTreeSet<(Instant, String)>,
}

struct Charge {
    account: String,
    bytes: usize,
    /// When the record expires (`None`: kept while the process runs).
    expires: Option<Instant>,
}

impl Ledger {
    pub fn new(per_owner: usize, server: Arc<Pool>) -> Self {
        Self { per_owner, server, entries: Mutex::default() }
    }

    /// Charges task `id` of `account` `bytes` in all, instead of what it was charged before:
    /// more or less, or nothing when the grown charge does not fit (the old one stands).
    pub fn charge(&self, id: &str, account: &str, bytes: usize, expires: Option<Instant>) -> Result<(), OverBudget> {
        let mut entries = lock(&self.entries);
        entries.expire(Instant::now());
        let before = entries.tasks.get(id).map_or(0, |charge| charge.bytes);
        let (budget, _) = entries
            .accounts
            .entry(account.to_owned())
            .or_insert_with(|| (Arc::new(Budget::new(self.per_owner, Arc::clone(&self.server))), 0));
        let budget = Arc::clone(budget);
        let result = budget.resize(before, bytes);
        match (result, entries.tasks.get_mut(id)) {
            (Ok(()), Some(charge)) => charge.bytes = bytes,
            (Ok(()), None) => {
                entries.tasks.insert(id.to_owned(), Charge { account: account.to_owned(), bytes, expires });
                if let Some(at) = expires {
                    entries.expiring.insert((at, id.to_owned()));
                }
                if let Some((_, count)) = entries.accounts.get_mut(account) {
                    *count += 1;
                }
            }
            (Err(_), _) => entries.forget_idle(account),
        }
        result
    }

    /// Gives back all that task `id` is charged (its record was never kept).
    pub fn discharge(&self, id: &str) {
        let mut entries = lock(&self.entries);
        let Some(charge) = entries.tasks.remove(id) else { return };
        if let Some(at) = charge.expires {
            entries.expiring.remove(&(at, id.to_owned()));
        }
        if let Some((budget, count)) = entries.accounts.get_mut(&charge.account) {
            budget.release(charge.bytes);
            *count -= 1;
        }
        entries.forget_idle(&charge.account);
    }

    /// What task `id` is charged, if anything.
    #[cfg(test)]
    pub fn charged(&self, id: &str) -> Option<usize> {
        lock(&self.entries).tasks.get(id).map(|charge| charge.bytes)
    }
}

impl Entries {
    /// Gives back the charges of records expired by `now`.
    fn expire(&mut self, now: Instant) {
        while let Some(first) = self.expiring.first().filter(|(at, _)| *at <= now) {
            let id = first.1.clone();
            self.expiring.pop_first();
            let Some(charge) = self.tasks.remove(&id) else { continue };
            if let Some((budget, count)) = self.accounts.get_mut(&charge.account) {
                budget.release(charge.bytes);
                *count -= 1;
            }
            self.forget_idle(&charge.account);
        }
    }

    /// Drops `account`'s allowance once none of its tasks is charged.
    fn forget_idle(&mut self, account: &str) {
        if self.accounts.get(account).is_some_and(|(_, count)| *count == 0) {
            self.accounts.remove(account);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn each_owner_keeps_up_to_its_allowance_and_all_up_to_the_servers() {
        let server = Arc::new(Pool::new(250));
        let ledger = Ledger::new(100, Arc::clone(&server));
        assert!(ledger.charge("a1", "alice", 60, None).is_ok());
        assert_eq!(ledger.charge("a2", "alice", 60, None), Err(OverBudget::Session { bytes: 60, limit: 100 }));
        assert_eq!(ledger.charged("a2"), None, "a refused record is not charged");
        assert!(ledger.charge("b1", "bob", 100, None).is_ok(), "another owner has an allowance of its own");
        assert!(ledger.charge("c1", "carol", 90, None).is_ok());
        assert_eq!(ledger.charge("d1", "dave", 10, None), Err(OverBudget::Server));
        // A record that shrinks gives back; one that grows past the allowance keeps its old charge.
        assert!(ledger.charge("a1", "alice", 20, None).is_ok());
        assert_eq!(ledger.charge("a1", "alice", 200, None), Err(OverBudget::Session { bytes: 180, limit: 100 }));
        assert_eq!((ledger.charged("a1"), server.used()), (Some(20), 210));
    }

    #[test]
    fn an_expired_record_gives_its_charge_back() {
        let server = Arc::new(Pool::new(100));
        let ledger = Ledger::new(100, Arc::clone(&server));
        let past = Instant::now() - Duration::from_millis(1);
        assert!(ledger.charge("old", "alice", 90, Some(past)).is_ok());
        assert!(ledger.charge("new", "bob", 90, None).is_ok(), "the expired charge went back first");
        assert_eq!((ledger.charged("old"), server.used()), (None, 90));
        assert!(!lock(&ledger.entries).accounts.contains_key("alice"), "an idle account is forgotten");
        ledger.discharge("new");
        assert_eq!((ledger.charged("new"), server.used()), (None, 0));
    }
}
