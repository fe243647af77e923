//! One client connection's state: what it negotiated, its log level, its requests in flight,
//! and the queue of messages to send it.

use crate::jsonrpc::{self, RequestId};
use crate::logging::LoggingLevel;
use crate::protocol::ProtocolVersion;
use crate::server::Implementation;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What the client said about itself in `initialize`.
#[derive(Debug)]
pub(crate) struct ClientState {
    pub version: ProtocolVersion,
    pub info: Option<Implementation>,
    pub capabilities: Map<String, Value>,
}

pub(crate) struct Session {
    outbound: mpsc::Sender<Vec<u8>>,
    client: OnceLock<ClientState>,
    initialized: AtomicBool,
    log_level: AtomicU8,
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
}

impl Session {
    pub fn new(outbound: mpsc::Sender<Vec<u8>>) -> Self {
        Self {
            outbound,
            client: OnceLock::new(),
            initialized: AtomicBool::new(false),
            log_level: AtomicU8::new(LoggingLevel::Info as u8),
            in_flight: Mutex::new(HashMap::new()),
        }
    }

    pub fn client(&self) -> Option<&ClientState> {
        self.client.get()
    }

    /// Records the handshake; `false` if the session was already initialized.
    pub fn set_client(&self, state: ClientState) -> bool {
        self.client.set(state).is_ok()
    }

    pub fn mark_initialized(&self) {
        self.initialized.store(true, Ordering::Release);
    }

    pub fn log_level(&self) -> LoggingLevel {
        LoggingLevel::from_u8(self.log_level.load(Ordering::Relaxed))
    }

    pub fn set_log_level(&self, level: LoggingLevel) {
        self.log_level.store(level as u8, Ordering::Relaxed);
    }

    /// Queues a message, waiting while the queue is full (backpressure from a slow client).
    /// A closed transport drops it: nobody is left to read it.
    pub async fn send(&self, message: Vec<u8>) {
        let _ = self.outbound.send(message).await;
    }

    /// Queues a message without waiting; drops it when the queue is full.
    pub fn try_send(&self, message: Vec<u8>) {
        if self.outbound.try_send(message).is_err() {
            tracing::debug!("outbound queue full or closed: a log message was dropped");
        }
    }

    pub async fn notify(&self, method: &str, params: &(impl Serialize + ?Sized)) {
        self.send(jsonrpc::encode_notification(method, params)).await
    }

    /// Registers a request in flight; `None` if a request with the same id is still running.
    pub fn begin(&self, id: &RequestId) -> Option<CancellationToken> {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        if in_flight.contains_key(id) {
            return None;
        }
        let token = CancellationToken::new();
        in_flight.insert(id.clone(), token.clone());
        Some(token)
    }

    /// Ends a request; `true` if its answer is still wanted (it was not cancelled).
    pub fn finish(&self, id: &RequestId) -> bool {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).remove(id).is_some()
    }

    /// Cancels a request in flight: its handler is dropped and no answer is sent.
    pub fn cancel(&self, id: &RequestId) {
        if let Some(token) = self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).remove(id) {
            token.cancel();
        }
    }

    /// Cancels every request in flight (the connection is going away).
    pub fn cancel_all(&self) {
        for (_, token) in self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            token.cancel();
        }
    }

    pub fn in_flight_count(&self) -> usize {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}
