//! What every connection of a server shares below the catalog: its identity, limits, timeouts
//! and application state. Immutable once the server is built.
//!
//! The catalog of tools, resources and prompts sits beside it in
//! [`ServerCore`](crate::core::ServerCore), not in it: descriptors name [`Context`](crate::Context),
//! which reads these settings, so settings that held the catalog would loop the layers.

use crate::protocol::Implementation;
use crate::protocol::request_state::StateKey;
use crate::session::budget::Pool;
use crate::type_map::TypeMap;
use std::sync::Arc;
use std::time::Duration;

/// The largest message a server accepts from a client, and a client from a server, unless
/// told otherwise: 4 MiB.
pub(crate) const DEFAULT_MAX_MESSAGE_SIZE: usize = 4 * 1024 * 1024;

pub(crate) struct Settings {
    pub info: Implementation,
    pub instructions: Option<String>,
    /// `capabilities.extensions`: vendor extensions and their settings (`Server::extension`).
    pub extensions: serde_json::Map<String, serde_json::Value>,
    pub shutdown_grace: Duration,
    /// How many requests one session may have running at once.
    pub max_requests_in_flight: usize,
    pub max_message_size: usize,
    pub stdio_busy_poll: Duration,
    pub client_request_timeout: Duration,
    pub tool_timeout: Option<Duration>,
    pub state: TypeMap,
    pub confirmation_fallback: ConfirmationFallback,
    pub request_state_key: StateKey,
    pub cache_ttl: Duration,
    /// What one session may keep for its client (`Server::max_session_bytes`).
    pub max_session_bytes: usize,
    /// What every session together may keep (`Server::max_retained_bytes`): the one piece of
    /// shared, changing state here, a counter.
    pub retained: Arc<Pool>,
    /// The form of the tool schemas each client gets (`Server::schema_profile`,
    /// `Server::schema_profile_for`).
    pub schema_profiles: crate::tool::profile::SchemaProfiles,
    /// Where HTTP sessions live (`Server::session_store`): read where the shared store is made.
    #[cfg(feature = "redis")]
    pub session_store: crate::store::SessionStore,
}

/// What to do with a `confirm` tool when the client cannot ask the user (no elicitation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConfirmationFallback {
    /// Refuse the call with an error result saying why (the default: fail closed).
    #[default]
    Refuse,
    /// Run the tool anyway; for clients known to confirm tool calls themselves.
    Allow,
}
