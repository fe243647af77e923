//! Tasks (the `io.modelcontextprotocol/tasks` extension of 2026-07-28): a tool call that
//! outlives its request. The records, where they are kept ([`TaskStore`]: this process by
//! default, Redis with [`SessionStore::redis`](crate::SessionStore::redis)), and the tasks this
//! process runs. The engine decides when a call becomes a task and runs it
//! (`engine/tasks.rs`).

mod ledger;
mod memory;
mod owner;
pub(crate) mod time;

pub(crate) use ledger::Ledger;
pub(crate) use memory::MemoryTasks;
pub(crate) use owner::{Access, TaskOwner};

use crate::sync::{Broadcast, lock};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::mpsc;

/// The extension's identifier, in capabilities.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/tasks";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Working,
    InputRequired,
    Completed,
    Cancelled,
    Failed,
}

impl Status {
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Cancelled | Self::Failed)
    }
}

/// A task as `tasks/get` shows it (the extension's `DetailedTask`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskRecord {
    pub task_id: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    pub created_at: String,
    pub last_updated_at: String,
    /// From creation; `None` (null on the wire) for no limit.
    pub ttl_ms: Option<u64>,
    pub poll_interval_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}

impl TaskRecord {
    /// A new working task.
    pub fn new(task_id: String, ttl: Option<Duration>, poll_interval: Duration) -> Self {
        let now = time::now_iso();
        Self {
            task_id,
            status: Status::Working,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl_ms: ttl.map(|ttl| ttl.as_millis() as u64),
            poll_interval_ms: poll_interval.as_millis().max(1) as u64,
            input_requests: None,
            result: None,
            error: None,
        }
    }

    /// Moves to `status`, stamping the time.
    pub fn set(&mut self, status: Status, message: Option<String>) {
        self.status = status;
        self.status_message = message;
        self.last_updated_at = time::now_iso();
        if status != Status::InputRequired {
            self.input_requests = None;
        }
    }

    /// The task's fields alone, for a `CreateTaskResult` (no result, error or requests).
    pub fn handle(&self) -> Value {
        let mut handle = self.clone();
        (handle.input_requests, handle.result, handle.error) = (None, None, None);
        serde_json::to_value(handle).unwrap_or_default()
    }
}

/// What a store keeps of a task.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct StoredTask {
    pub task: TaskRecord,
    /// The replica running it (its tag; 0 in a store of one process).
    pub replica: u32,
    /// Who may see and steer it.
    pub access: Access,
}

impl StoredTask {
    /// About what the record takes in memory, as a budget counts it: its result, error and
    /// pending requests above all.
    pub fn bytes(&self) -> usize {
        use crate::session::budget::{json_bytes, members_bytes};
        let task = &self.task;
        let text = [&task.task_id, &task.created_at, &task.last_updated_at].iter().map(|s| s.len()).sum::<usize>()
            + task.status_message.as_ref().map_or(0, String::len);
        let access = match &self.access.owner {
            TaskOwner::Caller(key) | TaskOwner::Session(key) => key.len(),
            TaskOwner::IdHolder => 0,
        } + self.access.scopes.iter().map(String::len).sum::<usize>();
        std::mem::size_of::<Self>()
            + text
            + access
            + task.result.as_ref().map_or(0, json_bytes)
            + task.error.as_ref().map_or(0, json_bytes)
            + task.input_requests.as_ref().map_or(0, members_bytes)
    }
}

/// What a client's `tasks/update` or `tasks/cancel` asks of the task's runner.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Signal {
    Input(Map<String, Value>),
    Cancel,
}

/// The store could not be reached.
#[derive(Debug)]
pub(crate) struct Unavailable;

/// Where task records live. Records expire after their TTL.
pub(crate) trait TaskStore: Send + Sync {
    /// Saves a task (created, or changed by its runner), for `ttl` from now.
    fn put<'a>(&'a self, task: &'a StoredTask, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), Unavailable>>;
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredTask>, Unavailable>>;
    /// Hands `signal` to `replica`, which runs task `id`.
    fn forward<'a>(&'a self, id: &'a str, replica: u32, signal: Signal) -> BoxFuture<'a, Result<(), Unavailable>>;
    /// Whether `replica` is alive (its heartbeat has not expired).
    fn is_alive(&self, replica: u32) -> BoxFuture<'_, bool>;
    /// This process's tag as a replica.
    fn tag(&self) -> u32;
    /// Tells the other replicas that a task changed (for their listen streams).
    fn announce<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, ()>;
}

/// The tasks of a server: where their records live, and the ones this process runs.
pub(crate) struct Tasks {
    memory: Arc<MemoryTasks>,
    /// A store shared by replicas, when the server has one.
    shared: OnceLock<Arc<dyn TaskStore>>,
    /// The tasks running here, by id: where their signals go.
    running: Mutex<HashMap<String, mpsc::UnboundedSender<Signal>>>,
    /// Every change of a task, here or (with a shared store) on another replica, for
    /// `subscriptions/listen` streams (which show a task only to its owner).
    changes: Broadcast<StoredTask>,
    /// What the records this process made or runs cost, and whom.
    pub ledger: Ledger,
    /// How long a task's record is kept after it was created.
    pub ttl: Option<Duration>,
    pub poll_interval: Duration,
}

impl Tasks {
    /// Tasks kept `ttl`, polled every `poll_interval`, whose records are charged to
    /// `ledger`.
    pub fn new(ttl: Option<Duration>, poll_interval: Duration, ledger: Ledger) -> Self {
        Self {
            memory: Arc::new(MemoryTasks::default()),
            shared: OnceLock::new(),
            running: Mutex::default(),
            changes: Broadcast::new(64),
            ledger,
            ttl,
            poll_interval,
        }
    }

    /// Keeps records in `store` from now on (the HTTP service, with a shared store).
    #[cfg(feature = "http")] // the HTTP transport's shared store
    pub fn share(&self, store: Arc<dyn TaskStore>) {
        let _ = self.shared.set(store);
    }

    pub fn store(&self) -> Arc<dyn TaskStore> {
        match self.shared.get() {
            Some(store) => Arc::clone(store),
            None => Arc::clone(&self.memory) as Arc<dyn TaskStore>,
        }
    }

    /// A fresh, unguessable task id: 128 random bits as a UUID-shaped string.
    pub fn new_id() -> String {
        let mut bytes = [0u8; 16];
        if getrandom::fill(&mut bytes).is_err() {
            // No randomness: a unique id still (the time and a counter), if guessable.
            static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            bytes[..8].copy_from_slice(&time::now_millis().to_le_bytes());
            bytes[8..].copy_from_slice(&n.to_le_bytes());
        }
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
    }

    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<StoredTask> {
        self.changes.subscribe()
    }

    /// Tells the `subscriptions/listen` streams here that a task changed.
    pub fn announce(&self, task: &StoredTask) {
        self.changes.send(task.clone());
    }

    /// Registers a task run here; its signals arrive on the receiver.
    pub fn run_here(&self, id: &str) -> mpsc::UnboundedReceiver<Signal> {
        let (sender, receiver) = mpsc::unbounded_channel();
        lock(&self.running).insert(id.to_owned(), sender);
        receiver
    }

    pub fn finished_here(&self, id: &str) {
        lock(&self.running).remove(id);
    }

    /// Hands `signal` to task `id` if it runs here; gives it back otherwise.
    pub fn signal_here(&self, id: &str, signal: Signal) -> Result<(), Signal> {
        match lock(&self.running).get(id) {
            Some(sender) => sender.send(signal).map_err(|failed| failed.0),
            None => Err(signal),
        }
    }
}
