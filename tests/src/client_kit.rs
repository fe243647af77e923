//! What the client tests share (feature `client`): a client builder whose handlers answer the
//! server's requests predictably and record every notification, and the tools, resources and
//! prompt of the servers they build (`client_own.rs`, `mount.rs`).

use mcp_runtime::client::{ClientBuilder, ElicitationRequest, Negotiation, Notification};
use mcp_runtime::prelude::*;
use mcp_runtime::{ClientError as AskError, CompletionRequest, Elicitation, Role, Root, Sampled, Sampling, State};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The notifications a client received, in order.
#[derive(Clone, Default)]
pub struct Received(Arc<Mutex<Vec<Notification>>>);

impl Received {
    /// A copy of what arrived so far.
    pub fn all(&self) -> Vec<Notification> {
        self.0.lock().unwrap().clone()
    }

    /// Waits (up to 10 s) for a notification that `wanted` accepts.
    pub async fn wait_for(&self, what: &str, wanted: impl Fn(&Notification) -> bool) -> Notification {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(found) = self.all().into_iter().find(|n| wanted(n)) {
                return found;
            }
            assert!(Instant::now() < deadline, "no {what} within 10 s; received: {:?}", self.all());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The root the test client offers.
pub const ROOT: &str = "file:///tmp/mcp-client-test-root";

/// Serves `server` over Streamable HTTP on a free port of 127.0.0.1, for the test's lifetime.
pub async fn serve(server: Server) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(server.serve_http_on(listener, std::future::pending()));
    address
}

/// The MCP endpoint at `address`.
pub fn url(address: SocketAddr) -> String {
    format!("http://{address}/mcp")
}

/// Waits (up to 10 s) until `done`.
pub async fn eventually(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within 10 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A client that answers sampling with `echo: <last user text>` (model `test-model`),
/// accepts every form with `{"name": "Ada"}` (and every URL), offers [`ROOT`], and records
/// notifications in the returned [`Received`].
pub fn answering_client(negotiation: Negotiation) -> (ClientBuilder, Received) {
    let received = Received::default();
    let sink = received.clone();
    let builder = mcp_runtime::client::Client::builder()
        .name("mcp-runtime-client-tests", "0.0.0")
        .negotiation(negotiation)
        .timeout(Duration::from_secs(20))
        .on_sampling(|request| async move {
            let asked = request.messages.last().and_then(|m| m.content.as_text()).unwrap_or_default().to_owned();
            Ok(Sampled {
                role: Role::Assistant,
                content: json!({"type": "text", "text": format!("echo: {asked}")}),
                model: "test-model".into(),
                stop_reason: Some("endTurn".into()),
            })
        })
        .on_elicitation(|request| async move {
            Ok(match request {
                ElicitationRequest::Form { .. } => {
                    let mut content = serde_json::Map::new();
                    content.insert("name".into(), json!("Ada"));
                    Elicitation::Accept(content)
                }
                _ => Elicitation::Accept(serde_json::Map::new()),
            })
        })
        .roots(vec![Root { uri: ROOT.into(), name: Some("test root".into()) }])
        .on_notification(move |notification| sink.0.lock().unwrap().push(notification));
    (builder, received)
}

/// What the `hang` tool saw.
#[derive(Clone, Default)]
pub struct Seen {
    pub started: Arc<AtomicBool>,
    pub cancelled: Arc<AtomicBool>,
}

/// Sets its flag when dropped: the server drops a cancelled tool's future.
pub struct DropFlag(pub Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Waits until cancelled.
#[mcp_tool]
pub async fn hang(ctx: Context, State(seen): State<Seen>) -> String {
    seen.started.store(true, Ordering::SeqCst);
    let _flag = DropFlag(Arc::clone(&seen.cancelled));
    ctx.cancellation_token().cancelled().await;
    "cancelled".into()
}

/// Asks the client's model.
#[mcp_tool]
pub async fn ask_model(question: String, ctx: Context) -> Result<String, AskError> {
    let reply = ctx.sample(Sampling::new(question).max_tokens(20)).await?;
    Ok(format!("{} ({})", reply.text().unwrap_or_default(), reply.model))
}

#[derive(Deserialize, JsonSchema)]
pub struct Name {
    /// Your name
    pub name: String,
}

/// Asks the user's name.
#[mcp_tool]
pub async fn ask_name(ctx: Context) -> Result<String, AskError> {
    Ok(match ctx.elicit::<Name>("Your name?").await? {
        Elicitation::Accept(form) => format!("hello {}", form.name),
        Elicitation::Decline => "declined".into(),
        Elicitation::Cancel => "cancelled".into(),
    })
}

/// The client's roots.
#[mcp_tool]
pub async fn list_roots(ctx: Context) -> Result<String, AskError> {
    Ok(ctx.roots().await?.into_iter().map(|root| root.uri).collect::<Vec<_>>().join(","))
}

/// A note.
#[mcp_resource(uri = "mem://note", mime_type = "text/plain")]
pub fn note() -> &'static str {
    "a note"
}

/// One of many notes.
#[mcp_resource(uri = "mem://notes/{id}", mime_type = "text/plain")]
pub fn numbered(id: String) -> String {
    format!("note {id}")
}

/// Review some code.
#[mcp_prompt(complete(language = languages))]
pub fn review(
    /// The code
    code: String,
    /// Its language
    language: String,
) -> String {
    format!("Review this {language}: {code}")
}

pub fn languages(request: CompletionRequest) -> Vec<String> {
    request.filter(["rust", "ruby", "python"])
}
