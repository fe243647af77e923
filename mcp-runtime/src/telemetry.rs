//! Traces and metrics of requests, following the OpenTelemetry semantic conventions for MCP:
//! one `tracing` span per request (target `mcp_runtime::request`), named `{method} {target}`,
//! with `mcp.method.name`, `gen_ai.tool.name`/`gen_ai.prompt.name`, `mcp.resource.uri`,
//! `mcp.session.id`, `jsonrpc.request.id`, `mcp.protocol.version`, `network.transport`, and the
//! outcome (`error.type`, `rpc.response.status_code`, `otel.status_code`); and, at its end, an
//! event (target `mcp_runtime::metrics`) carrying `histogram.mcp.server.operation.duration` in
//! seconds, which `tracing-opentelemetry`'s metrics layer records as the convention's histogram
//! (its count is the request count).
//!
//! With feature `otel`, a span is parented on the W3C `traceparent` (and `tracestate`) the
//! client sends in the request's `_meta`, so the server's spans join the client's trace.
//!
//! Nothing is built when no subscriber listens to these targets: a span is a disabled
//! `Span::none()` and the clock is not read.

use crate::message::Request;
use crate::middleware::Watch;
use crate::protocol::Method;
use crate::session::Session;
use crate::session::outgoing::{Kind, Outgoing};
use std::sync::Arc;
use std::time::Instant;
use tracing::Span;
use tracing::field::Empty;

/// One request's span, what its duration metric needs, and the middleware watching it: what
/// rides with a request to its answer.
pub(crate) struct Trace {
    span: Span,
    /// Boxed: most servers record no metric and have no middleware, and the trace rides in
    /// every request's context (moved several times on the way).
    extras: Option<Box<Extras>>,
}

#[derive(Default)]
struct Extras {
    metric: Option<Metric>,
    watch: Option<Arc<Watch>>,
}

struct Metric {
    started: Instant,
    method: String,
    tool: Option<String>,
}

impl Trace {
    /// No trace (a handler started by the runtime itself).
    pub fn none() -> Self {
        Self { span: Span::none(), extras: None }
    }

    /// The same trace, shown to `watch` when it finishes.
    pub fn watched_by(mut self, watch: Option<Arc<Watch>>) -> Self {
        if watch.is_some() {
            self.extras.get_or_insert_default().watch = watch;
        }
        self
    }

    /// The trace of `request`, on `session` (`transport`: `pipe` or `tcp`).
    pub fn start(request: &Request<'_>, session: &Session, stateless: bool) -> Self {
        let method = request.name.as_ref();
        let span = tracing::info_span!(
            target: "mcp_runtime::request",
            "mcp.request",
            otel.name = Empty,
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = method,
            mcp.protocol.version = Empty,
            mcp.session.id = Empty,
            mcp.resource.uri = Empty,
            jsonrpc.request.id = %request.id,
            gen_ai.operation.name = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            network.transport = Empty,
            error.type = Empty,
            rpc.response.status_code = Empty,
        );
        let extras = tracing::enabled!(target: "mcp_runtime::metrics", tracing::Level::INFO).then(|| {
            let metric = Some(Metric {
                started: Instant::now(),
                method: method.to_owned(),
                tool: request
                    .method
                    .filter(|m| *m == Method::ToolsCall)
                    .and_then(|_| request.target.as_deref().map(str::to_owned)),
            });
            Box::new(Extras { metric, watch: None })
        });
        if span.is_disabled() {
            return Self { span, extras };
        }
        let target = request.target.as_deref();
        let name = match (request.method, target) {
            (Some(Method::ToolsCall), Some(tool)) => {
                span.record("gen_ai.tool.name", tool);
                span.record("gen_ai.operation.name", "execute_tool");
                format!("{method} {tool}")
            }
            (Some(Method::PromptsGet), Some(prompt)) => {
                span.record("gen_ai.prompt.name", prompt);
                format!("{method} {prompt}")
            }
            (Some(Method::ResourcesRead | Method::ResourcesSubscribe | Method::ResourcesUnsubscribe), Some(uri)) => {
                // Not in the name: URIs have too many values for span names.
                span.record("mcp.resource.uri", uri);
                method.to_owned()
            }
            _ => method.to_owned(),
        };
        span.record("otel.name", name.as_str());
        let version =
            if stateless { Some(crate::protocol::ProtocolVersion::V2026_07_28) } else { session.protocol_version() };
        if let Some(version) = version {
            span.record("mcp.protocol.version", version.as_str());
        }
        if let Some(id) = session.transport_id() {
            span.record("mcp.session.id", id);
        }
        if let Some(transport) = session.transport_kind() {
            span.record("network.transport", transport);
        }
        #[cfg(feature = "otel")]
        parent_on_client(&span, request);
        Self { span, extras }
    }

    pub fn span(&self) -> &Span {
        &self.span
    }

    /// The middleware watching this request, if any.
    fn watch(&self) -> Option<&Arc<Watch>> {
        self.extras.as_ref().and_then(|extras| extras.watch.as_ref())
    }

    /// Whether a middleware rewrites this request's result.
    pub fn rewrites(&self) -> bool {
        self.watch().is_some_and(|watch| watch.rewrites())
    }

    /// A handler's outcome as the middlewares rewrite it (unchanged, and unparsed, when none does).
    pub fn rewrite(&self, outcome: crate::router::reply::Outcome) -> crate::router::reply::Outcome {
        match self.watch() {
            Some(watch) => watch.rewrite_outcome(outcome),
            None => outcome,
        }
    }

    /// Records how the request ended: its error code, or a tool's error result.
    pub fn finish(&self, answer: &Outgoing) {
        let (metric, watch) = match &self.extras {
            Some(extras) => (extras.metric.as_ref(), extras.watch.as_ref()),
            None => (None, None),
        };
        if let Some(watch) = watch {
            watch.finish(Some(answer));
        }
        let error = match answer.kind {
            Kind::Error(code) => Some(code.to_string()),
            // A tool that failed answers with a result: still a failure for whoever watches.
            Kind::Result if (!self.span.is_disabled() || metric.is_some()) && answer.is_tool_error() => {
                Some("tool_error".to_owned())
            }
            _ => None,
        };
        if !self.span.is_disabled()
            && let Some(error) = &error
        {
            self.span.record("error.type", error.as_str());
            self.span.record("otel.status_code", "ERROR");
            if let Kind::Error(code) = answer.kind {
                self.span.record("rpc.response.status_code", code);
            }
        }
        if let Some(metric) = metric {
            let seconds = metric.started.elapsed().as_secs_f64();
            tracing::event!(
                target: "mcp_runtime::metrics",
                tracing::Level::INFO,
                histogram.mcp.server.operation.duration = seconds,
                mcp.method.name = metric.method.as_str(),
                gen_ai.tool.name = metric.tool.as_deref(),
                error.type = error.as_deref(),
            );
        }
    }
}

/// Parents `span` on the W3C trace context in the request's `_meta` (`traceparent`,
/// `tracestate`), through the globally installed propagator.
#[cfg(feature = "otel")]
fn parent_on_client(span: &Span, request: &Request<'_>) {
    use opentelemetry::propagation::Extractor;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    struct Meta(serde_json::Map<String, serde_json::Value>);
    impl Extractor for Meta {
        fn get(&self, key: &str) -> Option<&str> {
            self.0.get(key).and_then(serde_json::Value::as_str)
        }
        fn keys(&self) -> Vec<&str> {
            self.0.keys().map(String::as_str).collect()
        }
    }
    let Ok(Some(meta)) = request.meta_object() else { return };
    if !meta.contains_key("traceparent") {
        return;
    }
    let meta = Meta(meta);
    let context = opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(&meta));
    let _ = span.set_parent(context);
}
