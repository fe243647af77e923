//! Task records in Redis, so `tasks/get`, `tasks/update` and `tasks/cancel` work on any replica:
//! `task:<id>` holds the record and the tag of the replica running it, with the task's TTL; a
//! signal for a task running elsewhere crosses the bus to its replica, and a task whose replica
//! died is told by that replica's heartbeat (see `engine/tasks.rs`).

use super::Replicas;
use super::bus::Note;
use crate::tasks::{Signal, StoredTask, TaskStore, Unavailable};
use futures_util::future::BoxFuture;
use std::time::Duration;

/// Sets the record, keeping the TTL it was created with (`ARGV[2]`, in ms, empty for none).
const PUT: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL') end
if ARGV[2] == '' then return redis.call('SET', KEYS[1], ARGV[1]) end
return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
";

impl TaskStore for Replicas {
    fn put<'a>(&'a self, task: &'a StoredTask, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), Unavailable>> {
        Box::pin(async move {
            static SCRIPT: std::sync::LazyLock<redis::Script> = std::sync::LazyLock::new(|| redis::Script::new(PUT));
            let json = serde_json::to_string(task).map_err(|_| Unavailable)?;
            let key = self.key("task", &task.task.task_id);
            let ttl = ttl.map(|ttl| ttl.as_millis().to_string()).unwrap_or_default();
            self.run(
                |mut redis| async move { SCRIPT.key(&key).arg(json).arg(ttl).invoke_async::<()>(&mut redis).await },
            )
            .await
            .map_err(|_| Unavailable)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredTask>, Unavailable>> {
        Box::pin(async move {
            let key = self.key("task", id);
            let json: Option<String> = self
                .run(|mut redis| async move { redis::cmd("GET").arg(&key).query_async(&mut redis).await })
                .await
                .map_err(|_| Unavailable)?;
            Ok(json.and_then(|json| serde_json::from_str(&json).ok()))
        })
    }

    fn forward<'a>(&'a self, id: &'a str, replica: u32, signal: Signal) -> BoxFuture<'a, Result<(), Unavailable>> {
        Box::pin(async move {
            self.publish(Note::Task { task: id.to_owned(), owner: replica, signal }).await.map_err(|_| Unavailable)
        })
    }

    fn is_alive(&self, replica: u32) -> BoxFuture<'_, bool> {
        // Unknown while Redis is unreachable: alive, rather than failing a running task.
        Box::pin(async move { self.is_alive(replica).await.unwrap_or(true) })
    }

    fn tag(&self) -> u32 {
        self.tag
    }

    fn announce<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let _ = self.publish(Note::TaskChanged { task: Box::new(task.clone()) }).await;
        })
    }
}
