//! The server builder: what the user registers, turned into the [`ServerCore`] every
//! connection shares, and served over a transport.

mod handle;

pub use handle::ServerHandle;

use crate::core::ServerCore;
use crate::custom::CustomMethods;
use crate::error::{Error, ErrorKind, Result};
use crate::prompt::PromptSet;
use crate::protocol::Implementation;
use crate::protocol::request_state::StateKey;
use crate::registry::{Catalog, Definitions};
use crate::resource::ResourceSet;
use crate::session::budget::Pool;
use crate::settings::{ConfirmationFallback, Settings};
use crate::store::SessionStore;
use crate::tool::profile::SchemaProfiles;
use crate::tool::{SchemaProfile, ToolSet};
use crate::type_map::TypeMap;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

/// An MCP server under construction. Start with [`server!`](crate::server!) (named after your
/// crate) or [`Server::new`], register what it offers, then serve it.
///
/// ```no_run
/// # use mcp_runtime::prelude::*;
/// /// Greets someone.
/// #[mcp_tool]
/// fn greet(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// # async fn run() -> mcp_runtime::Result<()> {
/// server!()
///     .instructions("Call `greet` to greet someone.")
///     .tools(tools![greet])
///     .serve_stdio()
///     .await
/// # }
/// ```
pub struct Server {
    info: Implementation,
    instructions: Option<String>,
    extensions: serde_json::Map<String, serde_json::Value>,
    custom: CustomMethods,
    middleware: Vec<Arc<dyn crate::middleware::Middleware>>,
    /// Tags switched off from the start (`disable_tags`).
    disabled_tags: Vec<String>,
    definitions: Definitions,
    page_size: Option<usize>,
    shutdown_grace: Duration,
    max_requests_in_flight: usize,
    max_message_size: usize,
    stdio_busy_poll: Duration,
    client_request_timeout: Duration,
    tool_timeout: Option<Duration>,
    state: TypeMap,
    confirmation_fallback: ConfirmationFallback,
    request_state_key: Option<StateKey>,
    cache_ttl: Duration,
    max_session_bytes: usize,
    max_retained_bytes: usize,
    session_store: SessionStore,
    task_ttl: Option<Duration>,
    schema_profiles: SchemaProfiles,
    check_arguments: bool,
    #[cfg(feature = "skills")]
    skills: Option<std::path::PathBuf>,
    running: Arc<OnceLock<Weak<Catalog>>>,
}

impl Server {
    /// A server with this `serverInfo` name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            info: Implementation::new(name, version),
            instructions: None,
            extensions: serde_json::Map::new(),
            custom: CustomMethods::default(),
            middleware: Vec::new(),
            disabled_tags: Vec::new(),
            definitions: Definitions::default(),
            page_size: None,
            shutdown_grace: Duration::from_millis(500),
            max_requests_in_flight: 256,
            max_message_size: crate::settings::DEFAULT_MAX_MESSAGE_SIZE,
            stdio_busy_poll: Duration::from_micros(50),
            client_request_timeout: Duration::from_secs(300),
            tool_timeout: None,
            state: TypeMap::default(),
            confirmation_fallback: ConfirmationFallback::default(),
            request_state_key: None,
            cache_ttl: Duration::ZERO,
            max_session_bytes: 16 * 1024 * 1024,
            max_retained_bytes: 512 * 1024 * 1024,
            session_store: SessionStore::default(),
            task_ttl: Some(Duration::from_secs(3600)),
            schema_profiles: SchemaProfiles::default(),
            check_arguments: true,
            #[cfg(feature = "skills")]
            skills: None,
            running: Arc::default(),
        }
    }

    /// Where HTTP sessions live: in this process (the default), or in Redis, shared by every
    /// replica of the server (`SessionStore::redis`, feature `redis`). A shared store needs
    /// [`request_state_secret`](Self::request_state_secret), the same on every replica.
    pub fn session_store(mut self, store: SessionStore) -> Self {
        self.session_store = store;
        self
    }

    /// How long a task's record (its status, then its result) is kept after the task was
    /// created (default: an hour; `None`: for as long as the store keeps it). Tasks are calls
    /// of tools with `#[mcp_tool(task = "optional")]` or `task = "required"`, from 2026-07-28
    /// clients that support them.
    pub fn task_ttl(mut self, ttl: Option<Duration>) -> Self {
        self.task_ttl = ttl;
        self
    }

    /// Sends every client its tool schemas in `profile`'s form, whatever client it says it is
    /// (by default the server picks a profile per client from its `clientInfo.name`:
    /// [`SchemaProfile::for_client`]). `SchemaProfile::Full` sends what schemars derived.
    ///
    /// ```
    /// # use mcp_runtime::{Server, SchemaProfile};
    /// let server = Server::new("calc", "1.0.0").schema_profile(SchemaProfile::Full);
    /// ```
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.schema_profiles.forced = Some(profile);
        self
    }

    /// Sends the client whose `clientInfo.name` is `client_name` (compared ignoring ASCII case)
    /// its tool schemas in `profile`'s form, instead of the profile
    /// [`SchemaProfile::for_client`] picks for it. A [`schema_profile`](Self::schema_profile)
    /// forced for every client wins over this.
    ///
    /// ```
    /// # use mcp_runtime::{Server, SchemaProfile};
    /// // A gateway that hands tool schemas to OpenAI with `strict: true`.
    /// let server = Server::new("calc", "1.0.0").schema_profile_for("my-gateway", SchemaProfile::OpenAiStrict);
    /// ```
    pub fn schema_profile_for(mut self, client_name: impl Into<String>, profile: SchemaProfile) -> Self {
        self.schema_profiles.by_client.push((client_name.into(), profile));
        self
    }

    /// Whether tool arguments are checked, before the function runs, against every constraint
    /// the tool's input schema advertises (default: yes, with feature `validation`, itself on
    /// by default). A call that breaks one gets a tool error result naming each field and the
    /// rule it breaks. Only a tool whose schema says more than its types is checked: bounds,
    /// lengths, patterns, `format`, `enum` on a field, `additionalProperties: false`, the
    /// combinators, anything in a hand-written or mounted schema beyond `{"type": "object"}`.
    ///
    /// With `false`, no tool is checked (a gateway whose mounted servers check their own
    /// arguments, say), and the server warns in its log at start, naming the tools whose
    /// advertised constraints go unchecked; a server built without the feature does the same.
    ///
    /// ```
    /// # use mcp_runtime::Server;
    /// let server = Server::new("gateway", "1.0.0").check_arguments(false);
    /// ```
    pub fn check_arguments(mut self, check: bool) -> Self {
        self.check_arguments = check;
        self
    }

    /// Adds items: the sets given to [`tools`](Self::tools) and its kin, or a mounted server's
    /// ([`mount`](Self::mount)).
    pub(crate) fn add_definitions(&mut self, definitions: Definitions) {
        self.definitions.append(definitions);
    }

    /// A handle to change what the server offers while it runs (clients are notified).
    pub fn handle(&self) -> ServerHandle {
        ServerHandle::new(Arc::clone(&self.running))
    }

    /// A human-readable title for `serverInfo`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// What the server does, for `serverInfo.description` (a client may show it).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// The server's website, for `serverInfo.websiteUrl`.
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.info.website_url = Some(url.into());
        self
    }

    /// Adds an icon to `serverInfo.icons` (an `https:` or `data:` URI; a client may show it).
    /// 2026-07-28 results repeat `serverInfo` in their `_meta`: prefer a URL to a large
    /// `data:` URI.
    ///
    /// ```
    /// use mcp_runtime::{Icon, Server};
    ///
    /// let server = Server::new("weather", "1.0")
    ///     .title("Weather")
    ///     .description("Forecasts and alerts for any city.")
    ///     .website_url("https://weather.example.com")
    ///     .icon(Icon { src: "https://weather.example.com/icon.png", mime_type: Some("image/png"), sizes: &["48x48"] });
    /// # let _ = server;
    /// ```
    pub fn icon(mut self, icon: crate::tool::Icon) -> Self {
        self.info.icons.push(icon);
        self
    }

    /// Instructions a client may add to the model's prompt.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Declares a vendor extension in `capabilities.extensions`, advertised in `initialize` and
    /// in `server/discover`: `name` is `<prefix>/<name>` (`com.example/search`, a reverse-DNS
    /// prefix of yours), `settings` a JSON object (`{}` for none). Declaring it again replaces
    /// its settings. The server refuses to build with a name without a prefix or settings that
    /// are not an object. Serve the extension's methods with
    /// [`on_request`](Self::on_request) and [`on_notification`](Self::on_notification).
    ///
    /// ```
    /// use mcp_runtime::Server;
    ///
    /// let server = Server::new("search", "1.0").extension("com.example/search", serde_json::json!({"maxResults": 50}));
    /// # let _ = server;
    /// ```
    pub fn extension(mut self, name: impl Into<String>, settings: serde_json::Value) -> Self {
        self.extensions.insert(name.into(), settings);
        self
    }

    /// Serves the Agent Skills in `folder` (feature `skills`), through the extension
    /// `io.modelcontextprotocol/skills` (SEP-2640): each folder beneath it that holds a
    /// `SKILL.md` is a skill, everything beneath that folder its files. A skill's `SKILL.md`
    /// begins with YAML front matter whose `name` is its folder's name (lowercase letters, digits
    /// and single hyphens, 64 at most) and which has a `description`; folders above skills
    /// organise them (`acme/billing/refunds/SKILL.md` is the skill `refunds`).
    ///
    /// Clients list the skills with `skills/list` (each with its front matter and every file's
    /// `skill://` URI, SHA-256 digest and size), get one with `skills/get`, list a folder with
    /// `resources/directory/read` and read files with `resources/read`; each `SKILL.md` is also
    /// in `resources/list`, as `text/markdown`. The folder is read when the server starts, through a
    /// handle that no path leaves: the server refuses to start on a symlink out of it, a skill
    /// past the extension's limits (512 files, 16 MiB), a `SKILL.md` at the top or one whose
    /// front matter breaks the rules. Names beginning with `.` are left out, and symlinks to
    /// folders are not followed. Each read checks the file against its listed digest: a file
    /// changed since is not served (restart the server to serve it). A second call replaces the
    /// folder.
    ///
    /// ```no_run
    /// # async fn run() -> mcp_runtime::Result<()> {
    /// mcp_runtime::Server::new("docs", "1.0").skills("skills").serve_stdio().await
    /// # }
    /// ```
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    pub fn skills(mut self, folder: impl Into<std::path::PathBuf>) -> Self {
        self.skills = Some(folder.into());
        self
    }

    /// Answers requests of the vendor method `method` (`com.example/search`...) with `handler`,
    /// in both eras: it gets the request's `params` (`null` when absent) and the request's
    /// [`Context`](crate::Context) (progress, logging, cancellation, requests to the client), and
    /// returns the result, a JSON object, or the error to answer. Before `initialize` a session
    /// gets -32600 as for any method; a method nobody registered is still -32601. A method the
    /// runtime answers (`tools/call`...) cannot be registered: the server refuses to build.
    ///
    /// ```
    /// use mcp_runtime::{ErrorObject, Server};
    /// use serde_json::{Value, json};
    ///
    /// let server = Server::new("search", "1.0")
    ///     .extension("com.example/search", json!({}))
    ///     .on_request("com.example/search", |params: Value, _ctx| async move {
    ///         let query = params["query"].as_str().ok_or_else(|| ErrorObject::invalid_params("`query` is missing"))?;
    ///         Ok(json!({ "hits": [format!("a page about {query}")] }))
    ///     });
    /// # let _ = server;
    /// ```
    pub fn on_request<F, Fut>(mut self, method: impl Into<String>, handler: F) -> Self
    where
        F: Fn(serde_json::Value, crate::Context) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = std::result::Result<serde_json::Value, crate::ErrorObject>> + Send + 'static,
    {
        let handler: crate::custom::RequestHandler = Arc::new(move |params, ctx| Box::pin(handler(params, ctx)));
        self.custom.add_request(method.into(), handler);
        self
    }

    /// Runs `handler` for each notification of the vendor method `method`, with its `params`
    /// (`null` when absent), on a task of its own. Notifications nobody registered are ignored,
    /// as before; those the runtime handles (`notifications/initialized`...) cannot be
    /// registered.
    ///
    /// ```
    /// use mcp_runtime::Server;
    ///
    /// let server = Server::new("search", "1.0").on_notification("com.example/clicked", |params| async move {
    ///     tracing::info!(%params, "a result was clicked");
    /// });
    /// # let _ = server;
    /// ```
    pub fn on_notification<F, Fut>(mut self, method: impl Into<String>, handler: F) -> Self
    where
        F: Fn(serde_json::Value) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let handler: crate::custom::NotificationHandler = Arc::new(move |params| Box::pin(handler(params)));
        self.custom.add_notification(method.into(), handler);
        self
    }

    /// Adds a layer around every request (see [`middleware`](crate::middleware)): it sees each
    /// request before it is handled, may answer it early, and may watch its response. Layers
    /// run in the order they were added; the first one added is the outermost. A server
    /// without any pays one emptiness test per request.
    ///
    /// ```
    /// use mcp_runtime::middleware::AuditLog;
    /// use mcp_runtime::Server;
    ///
    /// let server = Server::new("audited", "1.0").middleware(AuditLog::new());
    /// # let _ = server;
    /// ```
    pub fn middleware(mut self, middleware: impl crate::middleware::Middleware) -> Self {
        self.middleware.push(Arc::new(middleware));
        self
    }

    /// Switches off the tools tagged with any of `tags` (`#[mcp_tool(tags = [..])]`): they are
    /// neither listed nor callable until [`ServerHandle::enable_tags`] (for every session) or
    /// [`Context::enable_tags`](crate::Context::enable_tags) (for one) switches them on.
    ///
    /// ```
    /// use mcp_runtime::Server;
    ///
    /// let server = Server::new("staged", "1.0").disable_tags(["beta"]);
    /// # let _ = server;
    /// ```
    pub fn disable_tags<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        self.disabled_tags.extend(tags.into_iter().map(Into::into));
        self
    }

    /// Adds tools, usually `tools![a, b, c]`. They are listed in this order.
    pub fn tools(mut self, tools: ToolSet) -> Self {
        self.add_definitions(Definitions { tools: tools.tools, ..Definitions::default() });
        self
    }

    /// Adds resources and resource templates, usually `resources![a, b]`.
    pub fn resources(mut self, resources: ResourceSet) -> Self {
        self.add_definitions(Definitions { resources: resources.resources, ..Definitions::default() });
        self
    }

    /// Adds prompts, usually `prompts![a, b]`.
    pub fn prompts(mut self, prompts: PromptSet) -> Self {
        self.add_definitions(Definitions { prompts: prompts.prompts, ..Definitions::default() });
        self
    }

    /// Registers shared state that handlers receive as a [`State<T>`](crate::State) parameter
    /// (one value per type; a second call with the same type replaces the first).
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// What tools marked `#[mcp_tool(confirm)]` do when the client cannot ask the user
    /// (it declared no elicitation): refuse (the default) or run anyway.
    pub fn confirmation_fallback(mut self, fallback: ConfirmationFallback) -> Self {
        self.confirmation_fallback = fallback;
        self
    }

    /// The secret that seals `requestState` in 2026-07-28 input-required results (HMAC-SHA256).
    /// Random per process by default; servers behind a load balancer must share one.
    pub fn request_state_secret(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.request_state_key = Some(StateKey::from_secret(secret.as_ref()));
        self
    }

    /// How long 2026-07-28 clients may cache lists, reads and discovery (`ttlMs`); default 0
    /// (always revalidate), since tools and resources can change at run time.
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// Splits list results into pages of at most `size` items (default: one page).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size);
        self
    }

    /// How long requests in flight may run to completion once the client has gone away or a
    /// shutdown signal arrived (default 500 ms); after that they are cancelled.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// How many requests one session (a stdio connection, an HTTP session) may have running at
    /// once (default 256). A request beyond it is answered at once with a JSON-RPC error
    /// (code -32010) rather than queued; the client may retry once others finish. It bounds
    /// what a client that starts long calls and never waits for them can make the server hold.
    pub fn max_requests_in_flight(mut self, requests: usize) -> Self {
        self.max_requests_in_flight = requests;
        self
    }

    /// The largest message accepted, in bytes (default 4 MiB). Larger ones are answered with
    /// an error and skipped.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// How long the stdio connection polls stdin for the client's next messages after
    /// answering a burst of several (a client that pipelines its requests), before it sleeps
    /// in `read` (default 50 µs; zero never polls). A sleeping thread has to be woken when the
    /// next message arrives, which takes tens of microseconds on some machines (virtual CPUs
    /// especially); a client that sends within the window is served without that wait, for at
    /// most this much CPU per pause. Polling stops as soon as another thread wants the CPU. A
    /// client that sends one message at a time is never polled for: it waits for each answer
    /// before it writes again.
    pub fn stdio_busy_poll(mut self, window: Duration) -> Self {
        self.stdio_busy_poll = window;
        self
    }

    /// The most bytes one session keeps for its client (default 16 MiB): what it said in
    /// `initialize` (its `clientInfo` and `capabilities`), its resource subscriptions and, on
    /// HTTP, the events kept for it to resume a stream. An `initialize` or a
    /// `resources/subscribe` that would go past it gets an error; replay events make room by
    /// dropping the oldest ones the client has already received, then waiting for a slow
    /// reader. A stream's one message always goes out, whatever its size.
    pub fn max_session_bytes(mut self, bytes: usize) -> Self {
        self.max_session_bytes = bytes;
        self
    }

    /// The most bytes every session together keeps for its client, as
    /// [`max_session_bytes`](Self::max_session_bytes) counts them (default 512 MiB), so many
    /// clients cannot do what one cannot. Past it, new `initialize`s and subscriptions get an
    /// error and streams keep less to replay.
    pub fn max_retained_bytes(mut self, bytes: usize) -> Self {
        self.max_retained_bytes = bytes;
        self
    }

    /// How long a request to the client (sampling, elicitation, roots) may wait for its answer
    /// unless the call sets its own limit (default 5 minutes: a person may be answering).
    pub fn client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }

    /// How long a tool call may run before it is stopped and answered with an error result
    /// saying it timed out (default: no limit). `#[mcp_tool(timeout_ms = ...)]` overrides it per
    /// tool. The limit stops async tools at their next `.await`. A synchronous tool cannot be
    /// interrupted: one marked `blocking` is answered at the limit while its thread runs on,
    /// and any other holds up its connection until it returns.
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.tool_timeout = Some(timeout);
        self
    }

    /// Serves one client over stdin/stdout until stdin closes, the client sends `exit`, or the
    /// process gets SIGINT/SIGTERM.
    ///
    /// Needs a tokio runtime with I/O and timers enabled, as `#[mcp_runtime::main]` and
    /// `#[tokio::main]` build. stdin is read on a thread of its own, which also runs the
    /// handlers' first steps (a sync tool to its end; see `#[mcp_tool(blocking)]`); handlers
    /// that wait go on as tasks of the runtime. When serving ends on a signal, that thread may
    /// still be blocked reading stdin; it ends with the process.
    ///
    /// A handler that blocks that thread (blocking I/O in an `async fn` before its first
    /// `.await`) for over 500 ms is reported once in the log (a `tracing` warning naming it),
    /// and a watchdog thread still notices the end of stdin meanwhile, so the process ends
    /// within the shutdown grace. Requests still running when the grace ends are answered with
    /// an error (-32011); one whose first poll never returns is not answered.
    ///
    /// On Unix, stdout is guarded while serving and after: the protocol writes to a private
    /// duplicate of it, and descriptor 1 is pointed at stderr, so `println!` in a tool or a
    /// dependency goes to stderr instead of corrupting the protocol stream. Elsewhere stdout is
    /// not guarded: nothing may print to it.
    pub async fn serve_stdio(self) -> Result<()> {
        crate::transport::stdio::serve(self.build()?).await
    }

    /// Serves Streamable HTTP (protocol 2025-11-25) at `http://<address>/mcp` until the
    /// process gets SIGINT or SIGTERM, then shuts down gracefully. Bind `127.0.0.1` for a
    /// local server; see [`HttpConfig`](crate::transport::http::HttpConfig) for what is checked and how
    /// to change it ([`into_http_service`](Self::into_http_service)).
    ///
    /// ```no_run
    /// # use mcp_runtime::prelude::*;
    /// # #[mcp_tool] fn add(a: f64, b: f64) -> f64 { a + b }
    /// # async fn run() -> mcp_runtime::Result<()> {
    /// server!().tools(tools![add]).serve_http("127.0.0.1:8080").await
    /// # }
    /// ```
    #[cfg(feature = "http")]
    pub async fn serve_http(self, address: impl tokio::net::ToSocketAddrs) -> Result<()> {
        self.serve_http_with_shutdown(address, crate::transport::signal::shutdown_signal()).await
    }

    /// [`serve_http`](Self::serve_http) with a configuration of your own: allowed hosts and
    /// origins, authorization (`HttpConfig::auth`, feature `auth`), limits. Binds
    /// `address`, and stops gracefully on SIGINT or SIGTERM, like `serve_http`; no listener or
    /// shutdown future to write (for those, see [`into_http_service`](Self::into_http_service)).
    ///
    /// ```no_run
    /// # use mcp_runtime::prelude::*;
    /// # #[mcp_tool] fn add(a: f64, b: f64) -> f64 { a + b }
    /// use mcp_runtime::http::HttpConfig;
    /// use std::time::Duration;
    ///
    /// # async fn run() -> mcp_runtime::Result<()> {
    /// let config = HttpConfig::default()
    ///     .allow_host("mcp.example.com") // behind a proxy serving this name
    ///     .idle_timeout(Duration::from_secs(600));
    /// server!().tools(tools![add]).serve_http_with("127.0.0.1:8080", config).await
    /// # }
    /// ```
    #[cfg(feature = "http")]
    pub async fn serve_http_with(
        self,
        address: impl tokio::net::ToSocketAddrs,
        config: crate::transport::http::HttpConfig,
    ) -> Result<()> {
        let service = self.into_http_service(config)?;
        let listener = crate::transport::http::bind(address).await?;
        service.serve(listener, crate::transport::signal::shutdown_signal()).await
    }

    /// [`serve_http`](Self::serve_http) until `shutdown` resolves (instead of a signal).
    #[cfg(feature = "http")]
    pub async fn serve_http_with_shutdown(
        self,
        address: impl tokio::net::ToSocketAddrs,
        shutdown: impl std::future::Future<Output = ()> + Send,
    ) -> Result<()> {
        let core = self.build()?;
        let listener = crate::transport::http::bind(address).await?;
        crate::transport::http::serve(core, listener, Box::pin(shutdown)).await
    }

    /// [`serve_http_with_shutdown`](Self::serve_http_with_shutdown) on a listener you bound,
    /// e.g. to port 0 to learn the port the system picked.
    #[cfg(feature = "http")]
    pub async fn serve_http_on(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send,
    ) -> Result<()> {
        crate::transport::http::serve(self.build()?, listener, Box::pin(shutdown)).await
    }

    /// The MCP endpoint as a service with this configuration, to serve with
    /// [`McpHttpService::serve`](crate::http::McpHttpService::serve) or to mount in your own
    /// hyper or axum application.
    #[cfg(feature = "http")]
    pub fn into_http_service(
        self,
        config: crate::transport::http::HttpConfig,
    ) -> Result<crate::transport::http::McpHttpService> {
        config.validate()?;
        crate::transport::http::McpHttpService::new(self.build()?, config)
    }

    /// [`serve_http`](Self::serve_http) over HTTPS (feature `tls`): serves
    /// `https://<address>/mcp` with this certificate until SIGINT or SIGTERM.
    ///
    /// ```no_run
    /// # use mcp_runtime::prelude::*;
    /// # #[mcp_tool] fn add(a: f64, b: f64) -> f64 { a + b }
    /// use mcp_runtime::http::TlsConfig;
    ///
    /// # async fn run() -> mcp_runtime::Result<()> {
    /// let tls = TlsConfig::from_pem_files("cert.pem", "key.pem")?;
    /// server!().tools(tools![add]).serve_https("0.0.0.0:8443", tls).await
    /// # }
    /// ```
    ///
    /// With a configuration of your own ([`HttpConfig`](crate::transport::http::HttpConfig): allowed
    /// hosts, authorization (`HttpConfig::auth`, feature `auth`)...), use
    /// [`into_http_service`](Self::into_http_service) and
    /// [`McpHttpService::serve_tls`](crate::http::McpHttpService::serve_tls).
    #[cfg(feature = "tls")]
    pub async fn serve_https(
        self,
        address: impl tokio::net::ToSocketAddrs,
        tls: crate::transport::http::TlsConfig,
    ) -> Result<()> {
        let core = self.build()?;
        let listener = crate::transport::http::bind(address).await?;
        let shutdown = Box::pin(crate::transport::signal::shutdown_signal());
        crate::transport::http::serve_tls(core, listener, tls, shutdown).await
    }

    /// Serves the MCP endpoint from an AWS Lambda function (feature `lambda`): answers the
    /// invocations of its function URL, API Gateway (REST or HTTP API) or an Application Load
    /// Balancer until the runtime stops, at `/mcp` of whatever host they name. Always without
    /// sessions ([`HttpConfig::stateless`](crate::http::HttpConfig::stateless)): any instance
    /// answers any request, 2025-era clients included.
    ///
    /// ```no_run
    /// # use mcp_runtime::prelude::*;
    /// # #[mcp_tool] fn add(a: f64, b: f64) -> f64 { a + b }
    /// #[tokio::main]
    /// async fn main() -> mcp_runtime::Result<()> {
    ///     server!().tools(tools![add]).serve_lambda().await
    /// }
    /// ```
    ///
    /// Answers are buffered whole (Lambda's default invoke mode): a request's progress and log
    /// messages reach the client with its response, in the same SSE stream.
    #[cfg(feature = "lambda")]
    pub async fn serve_lambda(self) -> Result<()> {
        // Lambda's hosts (`<id>.lambda-url.<region>.on.aws`, API Gateway's) are public names,
        // not a local server a web page could rebind: every Host is served. Origins stay checked.
        self.serve_lambda_with(crate::transport::http::HttpConfig::default().allow_any_host()).await
    }

    /// [`serve_lambda`](Self::serve_lambda) with a configuration of your own (a path, the hosts
    /// and origins allowed, authorization with feature `auth`...); sessions are turned off
    /// whatever it says. Allow the function's host (or [any](crate::http::HttpConfig::allow_any_host)):
    /// the default allows only loopback names.
    #[cfg(feature = "lambda")]
    pub async fn serve_lambda_with(self, config: crate::transport::http::HttpConfig) -> Result<()> {
        let service = self.into_http_service(crate::transport::lambda::config(config))?;
        crate::transport::lambda::serve(service).await
    }

    pub(crate) fn build(#[allow(unused_mut)] mut self) -> Result<Arc<ServerCore>> {
        if self.max_message_size == 0 {
            return Err(Error::new(ErrorKind::Config, "max_message_size must be positive"));
        }
        #[cfg(feature = "skills")]
        if let Some(folder) = self.skills.take() {
            let library = crate::skills::load(&folder)?;
            crate::skills::install(library, &mut self.definitions, &mut self.custom, &mut self.extensions);
        }
        self.definitions.check_required_state(&self.state)?;
        check_extensions(&self.extensions)?;
        self.custom.check()?;
        if self.session_store.is_shared() && self.request_state_key.is_none() {
            let message = "a Redis session store needs `request_state_secret(..)`, the same on every replica, \
                           so that a 2026-07-28 requestState sealed by one replica opens on another";
            return Err(Error::new(ErrorKind::Config, message));
        }
        if self.session_store.is_shared() {
            for said in self.middleware.iter().filter_map(|middleware| middleware.per_process()) {
                tracing::warn!("{said}");
            }
        }
        let catalog = Arc::new(Catalog::new(self.definitions, self.page_size, self.check_arguments)?);
        if !self.disabled_tags.is_empty() {
            let tags: Vec<&str> = self.disabled_tags.iter().map(String::as_str).collect();
            catalog.edit(crate::registry::Edit { switch_tags: Some((&tags, false)), ..Default::default() })?;
        }
        let _ = self.running.set(Arc::downgrade(&catalog));
        let mut state = self.state;
        // `ctx.server()` finds the handle here: a context sits below the catalog's layer.
        state.insert(ServerHandle::new(self.running));
        let settings = Arc::new(Settings {
            info: self.info,
            instructions: self.instructions,
            extensions: self.extensions,
            shutdown_grace: self.shutdown_grace,
            max_requests_in_flight: self.max_requests_in_flight,
            max_message_size: self.max_message_size,
            stdio_busy_poll: self.stdio_busy_poll,
            client_request_timeout: self.client_request_timeout,
            tool_timeout: self.tool_timeout,
            state,
            confirmation_fallback: self.confirmation_fallback,
            request_state_key: self.request_state_key.unwrap_or_else(StateKey::random),
            cache_ttl: self.cache_ttl,
            max_session_bytes: self.max_session_bytes,
            retained: Arc::new(Pool::new(self.max_retained_bytes)),
            #[cfg(feature = "redis")]
            session_store: self.session_store,
            schema_profiles: self.schema_profiles,
        });
        // Task records are charged as a session's kept bytes are: per owner, and to the one pool.
        let ledger = crate::tasks::Ledger::new(settings.max_session_bytes, Arc::clone(&settings.retained));
        let tasks = crate::tasks::Tasks::new(self.task_ttl, Duration::from_millis(500), ledger);
        let middleware = crate::middleware::Middlewares::new(self.middleware);
        Ok(Arc::new(ServerCore { settings, catalog, tasks, custom: self.custom, middleware }))
    }
}

/// An extension is named `<prefix>/<name>` (the `_meta` key rules, prefix mandatory) and its
/// settings are an object.
fn check_extensions(extensions: &serde_json::Map<String, serde_json::Value>) -> Result<()> {
    for (name, settings) in extensions {
        let named = name.split_once('/').is_some_and(|(prefix, rest)| {
            let label = |l: &str| {
                l.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
                    && l.bytes().last().is_some_and(|b| b.is_ascii_alphanumeric())
                    && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            };
            prefix.split('.').all(label)
                && !rest.is_empty()
                && rest.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/'))
        });
        if !named {
            let message = format!(
                "the extension name `{name}` needs a prefix: `<reverse-DNS prefix>/<name>`, such as `com.example/{name}`"
            );
            return Err(Error::new(ErrorKind::Config, message));
        }
        if !settings.is_object() {
            let message = format!("the settings of the extension `{name}` must be a JSON object (`{{}}` for none)");
            return Err(Error::new(ErrorKind::Config, message));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_reports_its_configuration_errors_by_kind() {
        let error = Server::new("x", "1").max_message_size(0).build().err().expect("refused");
        assert_eq!(error.kind(), ErrorKind::Config);
        let handle = Server::new("x", "1").handle();
        let error = handle.add_tools(ToolSet::default()).expect_err("not running");
        assert_eq!(error.kind(), ErrorKind::NotRunning);
    }
}
