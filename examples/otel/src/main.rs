//! An MCP server traced with OpenTelemetry: each request is a span (named `tools/call add`,
//! with the semantic conventions' attributes, joined to the client's trace when it sends a
//! `traceparent` in `_meta`), and each request's duration is recorded in the
//! `mcp.server.operation.duration` histogram. Both go over OTLP/HTTP to a collector at
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (default `http://127.0.0.1:4318`); without one, the server
//! serves all the same and the exporter logs its failures on stderr.
//!
//! `cargo run -p otel` serves stdio; `cargo run -p otel -- --http 127.0.0.1:8080` serves HTTP.

use mcp_runtime::prelude::*;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;

/// Adds two numbers.
#[mcp_tool(read_only)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Waits `millis` milliseconds (at most 10 s): a span with a visible duration.
#[mcp_tool(read_only)]
async fn wait(millis: u64) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(millis.min(10_000))).await;
    format!("waited {millis} ms")
}

fn exporters(endpoint: &str) -> Result<(SdkTracerProvider, SdkMeterProvider), Box<dyn std::error::Error>> {
    let resource = Resource::builder().with_service_name("mcp-otel-example").build();
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(format!("{endpoint}/v1/traces"))
        .build()?;
    let tracer = SdkTracerProvider::builder().with_batch_exporter(spans).with_resource(resource.clone()).build();
    let metrics = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_endpoint(format!("{endpoint}/v1/metrics"))
        .build()?;
    let meter = SdkMeterProvider::builder().with_periodic_exporter(metrics).with_resource(resource).build();
    Ok((tracer, meter))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let endpoint = std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").unwrap_or_else(|_| "http://127.0.0.1:4318".into());
    let (tracer, meter) = exporters(endpoint.trim_end_matches('/'))?;
    // A client's `traceparent` in `_meta` parents the server's spans.
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let telemetry = tracing_subscriber::filter::Targets::new()
        .with_target("mcp_runtime::request", tracing::Level::INFO)
        .with_target("mcp_runtime::metrics", tracing::Level::INFO);
    let log = tracing_subscriber::filter::Targets::new()
        .with_default(tracing::Level::INFO)
        .with_target("mcp_runtime::request", tracing_subscriber::filter::LevelFilter::OFF)
        .with_target("mcp_runtime::metrics", tracing_subscriber::filter::LevelFilter::OFF);
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(tracer.tracer("mcp-runtime")).with_filter(telemetry.clone()))
        .with(tracing_opentelemetry::MetricsLayer::new(meter.clone()).with_filter(telemetry))
        // stdout belongs to the protocol on stdio: the log goes to stderr.
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false).with_filter(log));
    tracing::subscriber::set_global_default(subscriber)?;

    let server = server!().tools(tools![add, wait]);
    let served = match std::env::args().nth(1).as_deref() {
        Some("--http") => {
            let address = std::env::args().nth(2).unwrap_or_else(|| "127.0.0.1:8080".into());
            server.serve_http(address).await
        }
        _ => server.serve_stdio().await,
    };
    // Sends what is still batched before the process ends.
    let _ = tracer.shutdown();
    let _ = meter.shutdown();
    Ok(served?)
}
