//! The ceiling: what answering `initialize`, `tools/list` and `tools/call` for the benchmark's
//! tools costs with nothing else. No lifecycle, cancellation, concurrency or limits; one thread
//! on stdio, a minimal hyper handler on HTTP (JSON answers; sessions are just ids in a set).
//! `bench-ceiling` serves stdio with one write per burst (when no more input is buffered);
//! `bench-ceiling eager` writes each answer as soon as it is ready; `bench-ceiling http` prints
//! a free port and serves HTTP.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Request, Response, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

include!(concat!(env!("OUT_DIR"), "/generated.rs"));

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct InitializeParams<'a> {
    #[serde(borrow, rename = "protocolVersion")]
    protocol_version: Cow<'a, str>,
}

#[derive(Deserialize)]
struct EchoArgs {
    text: String,
}

#[derive(Deserialize)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Serialize)]
struct TextContent<'a> {
    r#type: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct CallResult<'a> {
    content: [TextContent<'a>; 1],
    #[serde(rename = "isError")]
    is_error: bool,
}

#[derive(Serialize)]
struct Response_<'a, T> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: T,
}

#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    error: ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: i32,
    message: &'a str,
}

const STATIC_TOOLS_JSON: &str = r#"{"name":"echo","description":"Echo the text back.","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"The text to echo"}},"required":["text"]}},{"name":"add","description":"Add two numbers.","inputSchema":{"type":"object","properties":{"a":{"type":"number","description":"The first addend"},"b":{"type":"number","description":"The second addend"}},"required":["a","b"]}},{"name":"big","description":"Return 64 KB of text.","inputSchema":{"type":"object","properties":{}}}"#;

fn tools_list() -> &'static str {
    static LIST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LIST.get_or_init(|| format!(r#"{{"tools":[{STATIC_TOOLS_JSON},{GENERATED_TOOLS_JSON}]}}"#))
}

fn call_tool(name: &str, args: &str) -> Option<Result<String, String>> {
    Some(match name {
        "echo" => serde_json::from_str::<EchoArgs>(args).map(|a| a.text).map_err(|e| e.to_string()),
        "add" => serde_json::from_str::<AddArgs>(args).map(|a| (a.a + a.b).to_string()).map_err(|e| e.to_string()),
        "big" => Ok("0123456789abcdef".repeat(4096)),
        _ => return call_generated(name, args),
    })
}

/// Appends the answer to one message to `out`; notifications get none (returns false).
fn handle(line: &[u8], out: &mut Vec<u8>) -> bool {
    let Ok(message) = serde_json::from_slice::<Message>(line) else {
        out.extend_from_slice(br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#);
        return true;
    };
    let Some(id) = message.id else { return false };
    let params = message.params.map_or("{}", RawValue::get);
    let error = |out: &mut Vec<u8>, code, message| {
        let _ =
            serde_json::to_writer(&mut *out, &ErrorResponse { jsonrpc: "2.0", id, error: ErrorBody { code, message } });
    };
    match &*message.method {
        "initialize" => {
            let version = serde_json::from_str::<InitializeParams>(params)
                .map(|p| p.protocol_version.into_owned())
                .unwrap_or_else(|_| "2025-11-25".into());
            let version = if version.starts_with("20") { version } else { "2025-11-25".into() };
            let _ = write!(
                out,
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"bench-ceiling","version":"0.0.0"}}}}}}"#,
                id.get()
            );
        }
        "tools/list" => {
            let _ = write!(out, r#"{{"jsonrpc":"2.0","id":{},"result":{}}}"#, id.get(), tools_list());
        }
        "tools/call" => {
            let Ok(call) = serde_json::from_str::<CallParams>(params) else {
                error(out, -32602, "invalid params");
                return true;
            };
            let args = call.arguments.map_or("{}", RawValue::get);
            match call_tool(&call.name, args) {
                None => error(out, -32602, "unknown tool"),
                Some(result) => {
                    let (text, is_error) = match &result {
                        Ok(text) => (text.as_str(), false),
                        Err(text) => (text.as_str(), true),
                    };
                    let result = CallResult { content: [TextContent { r#type: "text", text }], is_error };
                    let _ = serde_json::to_writer(&mut *out, &Response_ { jsonrpc: "2.0", id, result });
                }
            }
        }
        "ping" => {
            let _ = write!(out, r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, id.get());
        }
        _ => error(out, -32601, "method not found"),
    }
    true
}

/// `eager`: write each answer at once; otherwise once the input buffered is handled.
fn serve_stdio(eager: bool) -> std::io::Result<()> {
    let mut input = std::io::BufReader::with_capacity(64 * 1024, std::io::stdin());
    let mut stdout = std::io::stdout().lock();
    let mut out = Vec::with_capacity(64 * 1024);
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if handle(&line, &mut out) {
            out.push(b'\n');
        }
        // Flush when nothing more is waiting: one write per burst.
        if (eager || input.buffer().is_empty()) && !out.is_empty() {
            stdout.write_all(&out)?;
            stdout.flush()?;
            out.clear();
        }
    }
    stdout.write_all(&out)?;
    stdout.flush()
}

type Sessions = Arc<Mutex<HashSet<String>>>;

async fn http(
    request: Request<hyper::body::Incoming>,
    sessions: Sessions,
) -> Result<Response<Full<Bytes>>, hyper::Error> {
    let status = |code: StatusCode| Ok(Response::builder().status(code).body(Full::default()).unwrap());
    let session = request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    if request.uri().path() != "/mcp" {
        return status(StatusCode::NOT_FOUND);
    }
    match *request.method() {
        Method::POST => {}
        Method::DELETE => {
            let removed = session.is_some_and(|s| sessions.lock().unwrap().remove(&s));
            return status(if removed { StatusCode::OK } else { StatusCode::NOT_FOUND });
        }
        _ => return status(StatusCode::METHOD_NOT_ALLOWED),
    }
    let body = request.into_body().collect().await?.to_bytes();
    let is_initialize = serde_json::from_slice::<Message>(&body).is_ok_and(|m| m.method == "initialize");
    let mut new_session = None;
    if is_initialize {
        let id = format!("{:032x}", rand_id());
        sessions.lock().unwrap().insert(id.clone());
        new_session = Some(id);
    } else if !session.is_some_and(|s| sessions.lock().unwrap().contains(&s)) {
        return status(StatusCode::NOT_FOUND);
    }
    let mut out = Vec::new();
    if !handle(&body, &mut out) {
        return status(StatusCode::ACCEPTED);
    }
    let mut response = Response::builder().header("content-type", "application/json");
    if let Some(id) = new_session {
        response = response.header("mcp-session-id", id);
    }
    Ok(response.body(Full::new(Bytes::from(out))).unwrap())
}

/// Unique enough for a benchmark: a counter mixed with the start time (no crypto dependency).
fn rand_id() -> u128 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) as u128;
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    (t << 32) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[tokio::main]
async fn serve_http() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("{}", listener.local_addr()?.port());
    let sessions = Sessions::default();
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?; // else an SSE answer waits 40 ms for the delayed ACK (Nagle)
        let sessions = sessions.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| http(request, sessions.clone()));
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
        });
    }
}

fn main() -> std::io::Result<()> {
    match std::env::args().nth(1).as_deref() {
        Some("http") => serve_http(),
        mode => serve_stdio(mode == Some("eager")),
    }
}
