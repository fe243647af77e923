//! Traces and metrics of requests (feature `otel`): spans exported through `tracing-opentelemetry`
//! to the OpenTelemetry SDK's in-memory exporter carry the semantic conventions for MCP, are
//! parented on the `traceparent` a client sends in `_meta`, and end with the request's outcome;
//! the duration metric's event carries the method and the outcome.
#![cfg(feature = "otel")]

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestClient;
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use std::sync::{Arc, Mutex};
use tracing_subscriber::layer::SubscriberExt as _;

/// Adds two numbers.
#[mcp_tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Always fails.
#[mcp_tool]
fn broken() -> Result<String, String> {
    Err("out of order".into())
}

/// One event's fields, as text.
type Fields = Vec<(String, String)>;

/// What the metrics layer would see: each event of `mcp_runtime::metrics`.
#[derive(Clone, Default)]
struct MetricEvents(Arc<Mutex<Vec<Fields>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for MetricEvents {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Recorder(Fields);
        impl tracing::field::Visit for Recorder {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push((field.name().to_owned(), format!("{value:?}").trim_matches('"').to_owned()));
            }
        }
        if event.metadata().target() == "mcp_runtime::metrics" {
            let mut fields = Recorder(Vec::new());
            event.record(&mut fields);
            self.0.lock().unwrap().push(fields.0);
        }
    }
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes.iter().find(|KeyValue { key: k, .. }| k.as_str() == key).map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(|value| value.as_str().into_owned())
}

#[tokio::test]
async fn each_request_is_a_server_span_with_the_mcp_conventions_parented_on_the_client() {
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
    let metrics = MetricEvents::default();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("mcp-tests")))
        .with(metrics.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let client = TestClient::connect(server!().tools(tools![add, broken])).await;
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let params = json!({"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"traceparent": traceparent}});
    assert_eq!(client.request("tools/call", params).await.unwrap()["content"][0]["text"], "3");
    client.call_tool("broken", json!({})).await.unwrap();
    assert_eq!(client.request("no/such/method", json!({})).await.unwrap_err().code, -32601);
    drop(client);
    provider.force_flush().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let by_name = |name: &str| {
        spans
            .iter()
            .find(|span| span.name == name)
            .unwrap_or_else(|| panic!("no span `{name}` among {:?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>()))
    };
    let call = by_name("tools/call add");
    assert_eq!(call.span_kind, SpanKind::Server);
    assert_eq!(text(call, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(text(call, "gen_ai.tool.name").as_deref(), Some("add"));
    assert_eq!(text(call, "gen_ai.operation.name").as_deref(), Some("execute_tool"));
    assert_eq!(text(call, "mcp.protocol.version").as_deref(), Some("2025-11-25"));
    assert!(text(call, "jsonrpc.request.id").is_some());
    assert!(attribute(call, "error.type").is_none(), "a success has no error.type");
    assert_eq!(
        call.span_context.trace_id().to_string(),
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "joins the client's trace"
    );
    assert_eq!(call.parent_span_id.to_string(), "00f067aa0ba902b7", "parented on the client's span");

    let failed = by_name("tools/call broken");
    assert_eq!(text(failed, "error.type").as_deref(), Some("tool_error"), "a tool's error result is a failure");
    assert!(matches!(failed.status, Status::Error { .. }), "{:?}", failed.status);
    let unknown = by_name("no/such/method");
    assert_eq!(text(unknown, "error.type").as_deref(), Some("-32601"));
    assert_ne!(
        unknown.span_context.trace_id().to_string(),
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "no traceparent: a trace of its own"
    );

    let events = metrics.0.lock().unwrap().clone();
    let field = |event: &Fields, name: &str| event.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let add_event = events
        .iter()
        .find(|e| field(e, "gen_ai.tool.name").as_deref() == Some("add"))
        .expect("a duration for the call of add");
    let seconds: f64 = field(add_event, "histogram.mcp.server.operation.duration").unwrap().parse().unwrap();
    assert!(seconds > 0.0 && seconds < 10.0, "{seconds}");
    assert_eq!(field(add_event, "mcp.method.name").as_deref(), Some("tools/call"));
    assert!(events.iter().any(|e| field(e, "error.type").is_some_and(|v| v.contains("tool_error"))), "{events:?}");
}
