//! The bridge from `tracing`: events raised while a request is handled go to its client.

use super::LoggingLevel;
use crate::context::CURRENT;
use std::fmt::Write as _;
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt as _};
use tracing_subscriber::util::SubscriberInitExt as _;

/// A `tracing` layer that forwards events raised while handling a request to that request's
/// client as `notifications/message` (filtered by the client's level). Events outside a request
/// are ignored by this layer.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientLogLayer;

/// The runtime's own telemetry (request spans, the duration metric's events) and the audit log
/// (other callers' arguments): for the operator's layers, never for the client's log.
fn is_telemetry(metadata: &tracing::Metadata<'_>) -> bool {
    matches!(metadata.target(), "mcp_runtime::request" | "mcp_runtime::metrics" | "mcp_runtime::audit")
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ClientLogLayer {
    // Events only: spans cost this layer nothing, so a server that logs pays no span per request.
    fn register_callsite(&self, metadata: &'static tracing::Metadata<'static>) -> tracing::subscriber::Interest {
        if metadata.is_span() || is_telemetry(metadata) {
            tracing::subscriber::Interest::never()
        } else {
            tracing::subscriber::Interest::always()
        }
    }

    fn enabled(&self, metadata: &tracing::Metadata<'_>, _: LayerContext<'_, S>) -> bool {
        !metadata.is_span() && !is_telemetry(metadata)
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: LayerContext<'_, S>) {
        let level = level_of(event.metadata().level());
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
        .unwrap_or_else(|| tracing_subscriber::filter::Targets::new().with_default(tracing::Level::INFO))
        // The runtime's telemetry is for tracing and metrics layers, not the log.
        .with_target("mcp_runtime::request", tracing_subscriber::filter::LevelFilter::OFF)
        .with_target("mcp_runtime::metrics", tracing_subscriber::filter::LevelFilter::OFF);
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false).with_filter(filter);
    let _ = tracing_subscriber::registry().with(stderr).with(ClientLogLayer).try_init();
}

fn level_of(level: &tracing::Level) -> LoggingLevel {
    match *level {
        tracing::Level::ERROR => LoggingLevel::Error,
        tracing::Level::WARN => LoggingLevel::Warning,
        tracing::Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}
