//! [`ClientBuilder`]: who the client is, which era it asks for, how it answers the server,
//! and how it reaches it (a child process or an HTTP endpoint).

use super::Client;
use super::error::ClientError;
use super::handlers::Handlers;
use super::http::{self, HttpTransport};
use super::negotiate::negotiate;
use super::peer::{Link, Peer};
use super::stdio::{StderrMode, StdioTransport};
use super::types::{ElicitationRequest, Negotiation, Notification};
use crate::jsonrpc::ErrorObject;
use crate::protocol::Implementation;
use crate::server_requests::{Elicitation, Root, Sampled, Sampling};
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// How a [`Client`] introduces itself, negotiates and answers the server; ends with
/// [`connect_stdio`](Self::connect_stdio) or [`connect_http`](Self::connect_http).
///
/// ```no_run
/// use mcp_runtime::client::{Client, Notification};
/// use mcp_runtime::{Elicitation, Root, Sampled, Role};
///
/// # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
/// let client = Client::builder()
///     .name("my-agent", "1.0.0")
///     .on_sampling(|request| async move {
///         let question = request.messages.last().and_then(|m| m.content.as_text()).unwrap_or("");
///         Ok(Sampled {
///             role: Role::Assistant,
///             content: serde_json::json!({"type": "text", "text": format!("You asked: {question}")}),
///             model: "echo".into(),
///             stop_reason: Some("endTurn".into()),
///         })
///     })
///     .on_elicitation(|_request| async { Ok(Elicitation::Decline) })
///     .roots(vec![Root { uri: "file:///home/me/project".into(), name: Some("project".into()) }])
///     .on_notification(|notification| {
///         if let Notification::Log { level, data, .. } = notification {
///             eprintln!("[{level:?}] {data}");
///         }
///     })
///     .bearer_token("secret")
///     .connect_http("https://example.com/mcp")
///     .await?;
/// # Ok(()) }
/// ```
pub struct ClientBuilder {
    client_info: Implementation,
    negotiation: Negotiation,
    handlers: Handlers,
    timeout: Duration,
    max_input_rounds: u32,
    max_message_size: usize,
    stderr: StderrMode,
    bearer: Option<String>,
    headers: Vec<(String, String)>,
    http_client: Option<reqwest::Client>,
    #[cfg(feature = "oauth")]
    oauth: Option<super::oauth::OAuth>,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self {
            client_info: Implementation::new("mcp-runtime-client", env!("CARGO_PKG_VERSION")),
            negotiation: Negotiation::Auto,
            handlers: Handlers::default(),
            timeout: Duration::from_secs(60),
            max_input_rounds: 10,
            max_message_size: crate::settings::DEFAULT_MAX_MESSAGE_SIZE,
            stderr: StderrMode::Inherit,
            bearer: None,
            headers: Vec::new(),
            http_client: None,
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }
}

impl ClientBuilder {
    /// The `clientInfo` name and version (default: `mcp-runtime-client` and this crate's version).
    pub fn name(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.client_info = Implementation::new(name, version);
        self
    }

    /// The whole `clientInfo` (title, description, website).
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
    }

    /// How the protocol era is chosen (default [`Negotiation::Auto`]).
    pub fn negotiation(mut self, negotiation: Negotiation) -> Self {
        self.negotiation = negotiation;
        self
    }

    /// How long a call waits for its answer before the server is told to stop (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many 2026-07-28 input-required rounds one call may take (default 10).
    pub fn max_input_rounds(mut self, rounds: u32) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// The largest message accepted from the server, in bytes (default 4 MiB, as a server's
    /// [`Server::max_message_size`](crate::Server::max_message_size)): an HTTP body, an SSE
    /// event's data, a stdio line. Reading stops at it: the request fails with
    /// [`ClientError::MessageTooLarge`]; a stdio connection or an SSE stream that passes it is
    /// closed, since it cannot be read on.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Answers the server's `sampling/createMessage` (and declares `sampling`).
    pub fn on_sampling<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(Sampling) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Sampled, ErrorObject>> + Send + 'static,
    {
        self.handlers.sampling = Some(Arc::new(move |request| Box::pin(handler(request))));
        self
    }

    /// Answers the server's `elicitation/create`, form or URL mode (and declares `elicitation`):
    /// the accepted content of a form is its JSON object (empty for a URL). Fields the content
    /// leaves out are filled in with the form's `default`s before it is sent (SEP-1034).
    pub fn on_elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Elicitation<Map<String, Value>>, ErrorObject>> + Send + 'static,
    {
        self.handlers.elicitation = Some(Arc::new(move |request| Box::pin(handler(request))));
        self
    }

    /// Offers these roots to the server's `roots/list` (and declares `roots`); change them
    /// later with [`Client::set_roots`].
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.handlers.roots = Some(Arc::new(Mutex::new(roots)));
        self
    }

    /// Called with every notification of the server (logs, progress, list changes, resource
    /// updates), on the task that reads the connection: keep it short.
    pub fn on_notification(mut self, handler: impl Fn(Notification) + Send + Sync + 'static) -> Self {
        self.handlers.notification = Some(Arc::new(handler));
        self
    }

    /// For a client given to [`Server::mount`](crate::Server::mount): declares sampling,
    /// elicitation and roots, and answers each request the server makes during a mounted call
    /// by asking the client of that call (the gateway's own client), so the server sees the
    /// user behind the gateway. A request that cannot be tied to one call goes to this
    /// builder's handlers, or is refused.
    pub fn forward_server_requests(mut self) -> Self {
        self.handlers.forward = true;
        self
    }

    /// What becomes of a child server's stderr (default: passed through).
    pub fn stderr(mut self, mode: StderrMode) -> Self {
        self.stderr = mode;
        self
    }

    /// Sends `Authorization: Bearer <token>` with every HTTP request.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// Signs in to an OAuth-protected HTTP server (feature `oauth`): the first request the
    /// server refuses runs the authorization flow of the MCP specification, whose tokens then
    /// go with every request and are refreshed as they expire. See [`oauth`](super::oauth).
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn oauth(mut self, oauth: super::oauth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Sends this header with every HTTP request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The reqwest client to send HTTP requests with (custom roots, proxies, timeouts).
    /// By default: rustls with the ring provider and the platform's certificate verifier.
    ///
    /// Build it with `.redirect(reqwest::redirect::Policy::none())`: the client then follows
    /// redirects itself, and drops the headers of [`header`](Self::header), the bearer token
    /// and the session id when one leads to another origin. A reqwest client that follows
    /// redirects on its own keeps every header but `Authorization` and cookies across hosts.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http_client = Some(client);
        self
    }

    /// Starts `command` (the server) with piped stdin and stdout, and negotiates.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
    /// let mut server = tokio::process::Command::new("npx");
    /// server.args(["-y", "@modelcontextprotocol/server-everything"]);
    /// let client = mcp_runtime::client::Client::builder().connect_stdio(server).await?;
    /// println!("{:?}", client.server().server_info);
    /// # Ok(()) }
    /// ```
    pub async fn connect_stdio(self, command: tokio::process::Command) -> Result<Client, ClientError> {
        let (inbox, received) = mpsc::unbounded_channel();
        let transport = StdioTransport::spawn(command, self.stderr, self.max_message_size, inbox)?;
        let link = Link::Stdio(Box::new(transport));
        self.connect(link, received).await
    }

    /// Connects to the Streamable HTTP endpoint at `url`, and negotiates.
    pub async fn connect_http(mut self, url: &str) -> Result<Client, ClientError> {
        let (inbox, received) = mpsc::unbounded_channel();
        let client = match self.http_client.take() {
            Some(client) => client,
            None => http::default_client()?,
        };
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in &self.headers {
            let invalid = || ClientError::Transport(format!("invalid header {name}: {value:?}"));
            let name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
            headers.append(name, reqwest::header::HeaderValue::from_str(value).map_err(|_| invalid())?);
        }
        #[cfg(feature = "oauth")]
        let authorization = match self.oauth.take() {
            Some(oauth) => {
                let endpoint = reqwest::Url::parse(url)
                    .map_err(|e| ClientError::Transport(format!("invalid URL {url:?}: {e}")))?;
                Some(Arc::new(super::oauth::Authorizer::new(oauth, client.clone(), &endpoint)) as _)
            }
            None => None,
        };
        #[cfg(not(feature = "oauth"))]
        let authorization = None;
        let transport = HttpTransport::new(
            client,
            url,
            self.bearer.as_deref(),
            headers,
            self.max_message_size,
            inbox,
            authorization,
        )?;
        // Signing in may take the user minutes: done before the first request, whose time is limited.
        transport.sign_in().await?;
        self.connect(Link::Http(transport), received).await
    }

    async fn connect(
        self,
        link: Link,
        received: mpsc::UnboundedReceiver<super::transport::Inbound>,
    ) -> Result<Client, ClientError> {
        let peer = Arc::new(Peer::new(link, self.handlers, self.client_info, self.timeout, self.max_input_rounds));
        peer.start(received);
        match negotiate(&peer, self.negotiation).await {
            Ok(details) => Ok(Client::new(peer, details)),
            Err(error) => {
                if let Link::Stdio(_) = &peer.link {
                    peer.link.close().await;
                }
                Err(error)
            }
        }
    }
}
