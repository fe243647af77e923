//! The session layer: one client session's state (what it negotiated, its log level, requests
//! in flight both ways, subscriptions, roots, [`SessionState`](crate::SessionState) values)
//! and the sink for messages not tied to a request (list changes, resource updates).
//!
//! It sits below the router, the engine and [`Context`](crate::Context), and knows none of
//! them: a request in flight is held as something to [`Cancel`].

pub(crate) mod budget;
mod in_flight;
pub(crate) mod outgoing;
#[cfg(feature = "http")]
pub(crate) mod record;

pub(crate) use in_flight::{Cancel, Refusal};

use crate::jsonrpc::{self, ErrorObject, RequestId, code};
use crate::logging::LoggingLevel;
use crate::protocol::{Implementation, ProtocolVersion};
use crate::server_requests::root::Root;
use crate::settings::Settings;
use crate::sync::lock;
use crate::type_map::SessionValues;
use budget::Budget;
use foldhash::{HashMap, HashMapExt as _};
use in_flight::InFlight;
use outgoing::{Kind, Outgoing, Sink};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::oneshot;

/// What the client said about itself in `initialize`.
#[derive(Debug)]
pub(crate) struct ClientState {
    pub version: ProtocolVersion,
    pub info: Option<Implementation>,
    pub capabilities: Map<String, Value>,
    /// The form of the tool schemas this client gets, chosen once from `info`.
    pub schema_profile: crate::SchemaProfile,
}

impl ClientState {
    /// What a client said about itself in `initialize`, with the schema profile the server's
    /// `settings` choose for it.
    pub fn new(
        settings: &Settings,
        version: ProtocolVersion,
        info: Option<Implementation>,
        capabilities: Map<String, Value>,
    ) -> Self {
        let schema_profile = settings.schema_profiles.choose(info.as_ref());
        Self { version, info, capabilities, schema_profile }
    }
}

type ClientAnswer = Result<Value, ErrorObject>;

/// Set by a transport that keeps a stream per request (HTTP): ends the connection carrying the
/// stream that `Sink` feeds, without ending the stream (the client resumes it later).
pub(crate) type StreamCloser = Box<dyn Fn(&Sink) + Send + Sync>;

pub(crate) struct Session {
    pub settings: Arc<Settings>,
    /// The bytes kept for this client, against its allowance and the server's.
    pub budget: Arc<Budget>,
    /// For messages that answer no particular request.
    pub unsolicited: Sink,
    client: OnceLock<ClientState>,
    initialized: AtomicBool,
    /// Served for one HTTP request of a server without sessions (`HttpConfig::stateless`):
    /// nothing can reach the client after the request's answer, so it is never asked anything.
    sessionless: AtomicBool,
    log_level: AtomicU8,
    in_flight: InFlight,
    next_request_id: AtomicI64,
    awaiting_client: Mutex<HashMap<RequestId, oneshot::Sender<ClientAnswer>>>,
    /// The client's roots, and a generation bumped by `notifications/roots/list_changed`
    /// so an answer that raced with a change is not cached.
    roots: Mutex<(u64, Option<Vec<Root>>)>,
    /// Values of [`SessionState`](crate::SessionState).
    pub state: SessionValues,
    /// Resource URIs the client subscribed to.
    subscriptions: Mutex<HashSet<String>>,
    /// Tools hidden from this session alone (`Context::hide_tools`): not listed, not callable.
    hidden_tools: Mutex<HashSet<String>>,
    /// This session's tag switches (`Context::disable_tags`), over the server's.
    tags: Mutex<crate::tags::SessionTags>,
    /// Whether `tags` switches any.
    switches_tags: AtomicBool,
    /// Whether `hidden_tools` is not empty.
    hides_tools: AtomicBool,
    stream_closer: OnceLock<StreamCloser>,
    /// The transport's id of the session (HTTP's `Mcp-Session-Id`) and its kind (`pipe`,
    /// `tcp`), for traces.
    transport: OnceLock<(Option<String>, &'static str)>,
    /// What names the session to what it owns (its tasks) when the transport gives it no id.
    local_key: OnceLock<String>,
    /// Bumped by every change to what a session store keeps of the session (the handshake,
    /// the log level, subscriptions), so a transport that stores it knows when to save.
    revision: AtomicU64,
}

/// What a subscription keeps: its URI and a set entry.
fn subscription_bytes(uri: &str) -> usize {
    uri.len() + 2 * std::mem::size_of::<String>()
}

impl Session {
    pub fn new(settings: Arc<Settings>, unsolicited: Sink) -> Self {
        let budget = Arc::new(Budget::new(settings.max_session_bytes, Arc::clone(&settings.retained)));
        let in_flight = InFlight::new(settings.max_requests_in_flight);
        Self {
            settings,
            budget,
            unsolicited,
            client: OnceLock::new(),
            initialized: AtomicBool::new(false),
            sessionless: AtomicBool::new(false),
            log_level: AtomicU8::new(LoggingLevel::Info as u8),
            in_flight,
            next_request_id: AtomicI64::new(1),
            awaiting_client: Mutex::new(HashMap::new()),
            roots: Mutex::new((0, None)),
            state: SessionValues::default(),
            subscriptions: Mutex::default(),
            hidden_tools: Mutex::default(),
            hides_tools: AtomicBool::new(false),
            tags: Mutex::default(),
            switches_tags: AtomicBool::new(false),
            stream_closer: OnceLock::new(),
            revision: AtomicU64::new(0),
            transport: OnceLock::new(),
            local_key: OnceLock::new(),
        }
    }

    /// Says which transport carries the session (once; for traces).
    pub fn set_transport(&self, id: Option<String>, kind: &'static str) {
        let _ = self.transport.set((id, kind));
    }

    pub fn transport_id(&self) -> Option<&str> {
        self.transport.get().and_then(|(id, _)| id.as_deref())
    }

    /// What names this session to what it owns: the transport's id (the same on every
    /// replica), else one unique in this process.
    pub fn key(&self) -> &str {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        self.transport_id()
            .unwrap_or_else(|| self.local_key.get_or_init(|| format!("local-{}", NEXT.fetch_add(1, Ordering::Relaxed))))
    }

    pub fn transport_kind(&self) -> Option<&'static str> {
        self.transport.get().map(|(_, kind)| *kind)
    }

    fn changed(&self) {
        self.revision.fetch_add(1, Ordering::AcqRel);
    }

    /// Installs the transport's [`StreamCloser`] (once; later calls are ignored).
    #[cfg(feature = "http")]
    pub fn set_stream_closer(&self, closer: StreamCloser) {
        let _ = self.stream_closer.set(closer);
    }

    /// Closes the connection carrying `sink`'s stream early, if the transport can (HTTP);
    /// a no-op otherwise.
    pub fn close_stream(&self, sink: &Sink) {
        if let Some(closer) = self.stream_closer.get() {
            closer(sink);
        }
    }

    pub fn client(&self) -> Option<&ClientState> {
        self.client.get()
    }

    /// Records the handshake; `false` if the session was already initialized.
    pub fn set_client(&self, state: ClientState) -> bool {
        let set = self.client.set(state).is_ok();
        self.changed();
        set
    }

    /// The form of the tool schemas this session's client gets (before `initialize`, the one a
    /// client that says nothing about itself gets).
    pub fn schema_profile(&self) -> crate::SchemaProfile {
        match self.client() {
            Some(client) => client.schema_profile,
            None => self.settings.schema_profiles.choose(None),
        }
    }

    /// The negotiated protocol version, once initialized.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.client().map(|c| c.version)
    }

    /// Subscribes to `uri` or unsubscribes; a new subscription counts against the budget.
    pub fn set_subscribed(&self, uri: &str, subscribed: bool) -> Result<(), budget::OverBudget> {
        let mut subscriptions = lock(&self.subscriptions);
        let bytes = subscription_bytes(uri);
        if !subscribed {
            if subscriptions.remove(uri) {
                self.budget.release(bytes);
                self.changed();
            }
        } else if !subscriptions.contains(uri) {
            self.budget.try_reserve(bytes)?;
            subscriptions.insert(uri.to_owned());
            self.changed();
        }
        Ok(())
    }

    /// Hides tools from this session (`true`: the visible list changed).
    pub fn hide_tools(&self, names: &[&str]) -> bool {
        self.edit_hidden_tools(|hidden| hidden.extend(names.iter().map(|name| (*name).to_owned())))
    }

    /// Shows tools hidden from this session again (`true`: the visible list changed).
    pub fn show_tools(&self, names: &[&str]) -> bool {
        self.edit_hidden_tools(|hidden| hidden.retain(|name| !names.contains(&name.as_str())))
    }

    /// Applies `edit` to the hidden tools; whether it changed them (a change to save).
    fn edit_hidden_tools(&self, edit: impl FnOnce(&mut HashSet<String>)) -> bool {
        let mut hidden = lock(&self.hidden_tools);
        let before = hidden.len();
        edit(&mut hidden);
        let changed = hidden.len() != before;
        self.hides_tools.store(!hidden.is_empty(), Ordering::Release);
        drop(hidden);
        if changed {
            self.changed();
        }
        changed
    }

    /// The tools hidden from this session (none, for almost every session).
    pub fn hidden_tools(&self) -> Vec<String> {
        if !self.hides_tools.load(Ordering::Acquire) {
            return Vec::new();
        }
        lock(&self.hidden_tools).iter().cloned().collect()
    }

    /// Switches `tags` on or off for this session (`true`: that changed its switches).
    pub fn switch_tags(&self, tags: &[&str], on: bool) -> bool {
        let mut switches = lock(&self.tags);
        let changed = switches.switch(tags, on);
        self.switches_tags.store(!switches.is_empty(), Ordering::Release);
        drop(switches);
        if changed {
            self.changed();
        }
        changed
    }

    /// Whether this session switched any tag (a session that never did takes no lock).
    pub fn switches_tags(&self) -> bool {
        self.switches_tags.load(Ordering::Acquire)
    }

    /// Whether a tool tagged `tags` is offered to this session, the server switching off `server`.
    pub fn offers_tagged(&self, tags: &[&str], server: &crate::tags::ServerTags) -> bool {
        if tags.is_empty() {
            return true;
        }
        if !self.switches_tags() {
            return crate::tags::enabled(tags, server, None);
        }
        crate::tags::enabled(tags, server, Some(&lock(&self.tags)))
    }

    pub fn is_tool_hidden(&self, name: &str) -> bool {
        // Checked on every call: a session that never hid a tool takes no lock.
        self.hides_tools.load(Ordering::Acquire) && lock(&self.hidden_tools).contains(name)
    }

    pub fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    pub fn mark_initialized(&self) {
        if !self.initialized.swap(true, Ordering::AcqRel) {
            self.changed();
        }
    }

    /// Marks the session as one request's of a server without sessions (see `sessionless`).
    #[cfg(feature = "http")]
    pub fn mark_sessionless(&self) {
        self.sessionless.store(true, Ordering::Release);
    }

    /// Whether the session serves one request of a server without sessions.
    pub fn is_sessionless(&self) -> bool {
        self.sessionless.load(Ordering::Acquire)
    }

    /// Whether the client finished the handshake (sent `notifications/initialized`).
    pub fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    pub fn log_level(&self) -> LoggingLevel {
        LoggingLevel::from_u8(self.log_level.load(Ordering::Relaxed))
    }

    pub fn set_log_level(&self, level: LoggingLevel) {
        if self.log_level.swap(level as u8, Ordering::Relaxed) != level as u8 {
            self.changed();
        }
    }

    pub async fn notify(&self, sink: &Sink, method: &str, params: &(impl Serialize + ?Sized)) {
        outgoing::send(sink, Outgoing::message(jsonrpc::encode_notification(method, params))).await
    }

    /// Registers a request in flight, unless a request with the same id is still running or
    /// the session runs as many as it may.
    pub fn begin(&self, id: &RequestId, request: &Arc<dyn Cancel>) -> Result<(), Refusal> {
        self.in_flight.insert(id, request)
    }

    /// Whether [`begin`](Self::begin) would register this request now.
    pub fn admits(&self, id: &RequestId) -> Result<(), Refusal> {
        self.in_flight.admits(id)
    }

    /// Ends a request; `true` if its answer is still wanted (it was not cancelled).
    pub fn finish(&self, id: &RequestId) -> bool {
        self.finish_then(id, || {})
    }

    /// [`finish`](Self::finish), running `send` (which must not block) before the request
    /// stops counting as in flight, when its answer is still wanted.
    pub fn finish_then(&self, id: &RequestId, send: impl FnOnce()) -> bool {
        self.in_flight.remove_then(id, send).is_some()
    }

    /// Cancels a request in flight: its handler is dropped and no answer is sent.
    pub fn cancel(&self, id: &RequestId) {
        if let Some(request) = self.in_flight.remove_then(id, || {}) {
            request.cancel();
        }
    }

    /// Cancels every request in flight and abandons requests to the client (the connection
    /// is going away).
    pub fn cancel_all(&self) {
        for (_, request) in self.in_flight.drain() {
            request.cancel();
        }
        lock(&self.awaiting_client).clear();
    }

    /// Ends every request in flight with an error answer saying the server is shutting down
    /// (queued without waiting; dropped only if the client's queue is full), then cancels them
    /// and abandons requests to the client.
    pub fn shut_down(&self) {
        let error = ErrorObject::new(
            code::SHUTTING_DOWN,
            "Request cancelled: the server is shutting down and the request did not finish in time",
        );
        for (id, request) in self.in_flight.drain() {
            let answer = Outgoing { bytes: jsonrpc::encode_error(Some(&id), &error), kind: Kind::Error(error.code) };
            if request.answer_sink().try_send(answer).is_err() {
                tracing::debug!(%id, "outbound queue full or closed: the shutdown error was dropped");
            }
            request.cancel();
        }
        lock(&self.awaiting_client).clear();
    }

    pub fn in_flight_count(&self) -> usize {
        self.in_flight.len()
    }

    pub fn cached_roots(&self) -> Option<Vec<Root>> {
        lock(&self.roots).1.clone()
    }

    pub fn roots_generation(&self) -> u64 {
        lock(&self.roots).0
    }

    pub fn cache_roots(&self, generation: u64, roots: Vec<Root>) {
        let mut cache = lock(&self.roots);
        if cache.0 == generation {
            cache.1 = Some(roots);
        }
    }

    pub fn invalidate_roots(&self) {
        let mut cache = lock(&self.roots);
        *cache = (cache.0 + 1, None);
    }

    /// Sends a request to the client on `sink` and waits for its answer (`None`: the session
    /// ended first). Dropping the returned future (the handler was cancelled, or timed out)
    /// tells the client to stop.
    pub async fn request_client(
        &self,
        sink: &Sink,
        method: &str,
        params: &(impl Serialize + ?Sized),
    ) -> Option<ClientAnswer> {
        let id = RequestId::Number(self.next_request_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        lock(&self.awaiting_client).insert(id.clone(), tx);
        let guard = AwaitingClient { session: self, sink, id: Some(id.clone()) };
        outgoing::send(sink, Outgoing::message(jsonrpc::encode_request(&id, method, params))).await;
        let answer = rx.await.ok();
        guard.disarm();
        answer
    }

    /// Routes the client's answer to the request waiting for it; `false` if none is.
    pub fn resolve_client_request(&self, id: &RequestId, answer: ClientAnswer) -> bool {
        match lock(&self.awaiting_client).remove(id) {
            Some(waiter) => waiter.send(answer).is_ok(),
            None => false,
        }
    }
}

/// Cleans up a server-to-client request that was abandoned before its answer came.
struct AwaitingClient<'a> {
    session: &'a Session,
    sink: &'a Sink,
    id: Option<RequestId>,
}

impl AwaitingClient<'_> {
    fn disarm(mut self) {
        self.id = None;
    }
}

impl Drop for AwaitingClient<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        if lock(&self.session.awaiting_client).remove(&id).is_some() {
            #[derive(Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Cancelled<'a> {
                request_id: &'a RequestId,
                reason: &'static str,
            }
            let params = Cancelled { request_id: &id, reason: "the server no longer needs the answer" };
            outgoing::try_send(self.sink, jsonrpc::encode_notification("notifications/cancelled", &params));
        }
    }
}
