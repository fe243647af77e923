//! Log messages to the client (`notifications/message`) and the bridge from `tracing`.
//!
//! Inside a tool, `ctx.info("...")` sends a log message to the client when the client's level
//! (set with `logging/setLevel`) lets it through. With [`ClientLogLayer`] installed, `tracing`
//! events emitted while a request is being handled go the same way, so library code that logs
//! with `tracing` reaches the client too. [`init`] installs it with a stderr logger.

mod bridge;

pub use bridge::{ClientLogLayer, init};

use serde::{Deserialize, Serialize};

/// Log severity, as RFC 5424 (syslog) orders it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum LoggingLevel {
    /// Debugging detail.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// Something failed.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    const ALL: [Self; 8] = [
        Self::Debug,
        Self::Info,
        Self::Notice,
        Self::Warning,
        Self::Error,
        Self::Critical,
        Self::Alert,
        Self::Emergency,
    ];

    pub(crate) fn from_u8(n: u8) -> Self {
        Self::ALL[usize::from(n).min(Self::ALL.len() - 1)]
    }
}
