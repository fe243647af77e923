//! Task records in this process: the default store.

use super::{Signal, StoredTask, TaskStore, Unavailable};
use crate::sync::lock;
use futures_util::future::BoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Records by id, each with the instant it expires (`None`: kept while the process runs).
#[derive(Default)]
pub(crate) struct MemoryTasks {
    records: Mutex<HashMap<String, (StoredTask, Option<Instant>)>>,
}

impl MemoryTasks {
    fn with_records<T>(&self, f: impl FnOnce(&mut HashMap<String, (StoredTask, Option<Instant>)>) -> T) -> T {
        let mut records = lock(&self.records);
        let now = Instant::now();
        records.retain(|_, (_, expires)| expires.is_none_or(|at| at > now));
        f(&mut records)
    }
}

impl TaskStore for MemoryTasks {
    fn put<'a>(&'a self, task: &'a StoredTask, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), Unavailable>> {
        Box::pin(async move {
            self.with_records(|records| {
                let expires = match records.get(&task.task.task_id) {
                    Some((_, expires)) => *expires,
                    None => ttl.map(|ttl| Instant::now() + ttl),
                };
                records.insert(task.task.task_id.clone(), (task.clone(), expires));
            });
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredTask>, Unavailable>> {
        Box::pin(async move { Ok(self.with_records(|records| records.get(id).map(|(task, _)| task.clone()))) })
    }

    fn forward<'a>(&'a self, _: &'a str, _: u32, _: Signal) -> BoxFuture<'a, Result<(), Unavailable>> {
        // One process: a task not running here is not running anywhere.
        Box::pin(async { Ok(()) })
    }

    fn is_alive(&self, _: u32) -> BoxFuture<'_, bool> {
        Box::pin(async { true })
    }

    fn tag(&self) -> u32 {
        0
    }

    fn announce<'a>(&'a self, _: &'a StoredTask) -> BoxFuture<'a, ()> {
        Box::pin(async {}) // no other replica
    }
}
