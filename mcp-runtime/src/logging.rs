//! Log messages to the client (`notifications/message`) and the bridge from `tracing`.
//!
//! Inside a tool, `ctx.info("...")` sends a log message to the client when the client's level
//! (set with `logging/setLevel`) lets it through. With [`ClientLogLayer`] installed, `tracing`
//! events emitted while a request is being handled go the same way, so library code that logs
//! with `tracing` reaches the client too. [`init`] installs it with a stderr logger.

use crate::context::CURRENT;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt as _};
use tracing_subscriber::util::SubscriberInitExt as _;

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

    fn from_tracing(level: &tracing::Level) -> Self {
        match *level {
            tracing::Level::ERROR => Self::Error,
            tracing::Level::WARN => Self::Warning,
            tracing::Level::INFO => Self::Info,
            _ => Self::Debug,
        }
    }
}

/// A `tracing` layer that forwards events raised while handling a request to that request's
/// client as `notifications/message` (filtered by the client's level). Events outside a request
/// are ignored by this layer.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientLogLayer;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ClientLogLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _: LayerContext<'_, S>) {
        let level = LoggingLevel::from_tracing(event.metadata().level());
        if !CURRENT.is_set() {
            return;
        }
        CURRENT.with(|ctx| {
            if ctx.wants_log(level) {
                let mut text = MessageText::default();
                event.record(&mut text);
                ctx.send_log(level, Some(event.metadata().target()), text.0.into());
            }
        });
    }
}

/// Collects an event's message and fields into one line.
#[derive(Default)]
struct MessageText(String);

impl Visit for MessageText {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, "{}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            if !self.0.is_empty() {
                self.0.push(' ');
            }
            self.0.push_str(value);
        } else {
            self.record_debug(field, &value);
        }
    }
}

/// Installs a global `tracing` subscriber that writes to **stderr** (stdout belongs to the
/// protocol on stdio) filtered by `RUST_LOG` (default `info`), plus [`ClientLogLayer`].
/// Does nothing if a global subscriber is already set.
pub fn init() {
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|spec| spec.parse::<tracing_subscriber::filter::Targets>().ok())
        .unwrap_or_else(|| tracing_subscriber::filter::Targets::new().with_default(tracing::Level::INFO));
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false).with_filter(filter);
    let _ = tracing_subscriber::registry().with(stderr).with(ClientLogLayer).try_init();
}

use tracing_subscriber::Layer as _;
