//! A real authorization server for the OAuth end-to-end tests, and the user who signs in to it:
//! panva's `oidc-provider` run by `tests/oidc/provider.mjs` ([`Provider`]), `examples/auth-server`
//! trusting it ([`ProtectedServer`]), `examples/auth-proxy` signing its users in there
//! ([`ProxiedServer`]), and headless Chromium filling in its login and consent pages
//! through `tests/oidc/sign-in.mjs` ([`SignIn`]). Any OAuth client can be tested against the pair:
//! it is given the server's URL and [`SignIn::program`] as its browser.
//!
//! `scripts/oidc.sh` installs the npm packages (and Node 22), `scripts/services.sh` Chromium; a
//! missing one fails the test with the script to run.

use crate::cluster::{TempDir, free_port, program};
use crate::external::{HttpProcess, example_binary, node, repo_root};
use serde_json::Value;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the provider may take to start.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// `tests/oidc/<name>`, once `scripts/oidc.sh` has installed the packages the scripts import.
fn oidc_script(name: &str) -> PathBuf {
    let dir = repo_root().join("tests/oidc");
    for package in ["oidc-provider", "puppeteer-core"] {
        let installed = dir.join("node_modules").join(package).join("package.json");
        assert!(installed.is_file(), "{} is missing: run scripts/oidc.sh", installed.display());
    }
    dir.join(name)
}

/// `oidc-provider` on a free port of 127.0.0.1, as `tests/oidc/provider.mjs` configures it:
/// Dynamic Client Registration, PKCE, JWT access tokens for the resources it was started for,
/// refresh tokens, revocation, the development login and consent pages. Killed when dropped.
pub struct Provider {
    child: Child,
    issuer: String,
    events: Arc<Mutex<Vec<Value>>>,
    reader: Option<JoinHandle<()>>,
}

impl Provider {
    /// Starts one that issues access tokens for `resources` (the MCP servers' URLs, which become
    /// the tokens' audience), each valid for `access_token_ttl` (whole seconds), and waits until
    /// it is up.
    pub fn start(resources: &[&str], access_token_ttl: Duration) -> Self {
        let script = oidc_script("provider.mjs");
        let mut child = Command::new(node())
            .arg(&script)
            .env("OIDC_RESOURCES", resources.join(" "))
            .env("OIDC_ACCESS_TOKEN_TTL", access_token_ttl.as_secs().max(1).to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", script.display()));
        let events = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().expect("the provider's stdout");
        let reader = Some(read_events(stdout, Arc::clone(&events)));
        let mut provider = Self { child, issuer: String::new(), events, reader };

        let deadline = Instant::now() + START_TIMEOUT;
        provider.issuer = loop {
            if let Some(ready) = provider.events_named("ready").first() {
                break ready["issuer"].as_str().expect("the ready event names the issuer").to_owned();
            }
            if let Ok(Some(status)) = provider.child.try_wait() {
                panic!("{} exited before it was ready: {status}", script.display());
            }
            assert!(Instant::now() < deadline, "{} was not ready within {START_TIMEOUT:?}", script.display());
            std::thread::sleep(Duration::from_millis(20));
        };
        provider
    }

    /// `http://127.0.0.1:<port>`: the issuer of its tokens, where its metadata is found.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The events it logged so far, named `name` (`registration`, `authorization`, `grant`,
    /// `grant.error`, `access_token`, `revocation`: see `tests/oidc/provider.mjs`). Each is logged
    /// before the answer it describes is sent, but read on another thread: for the whole log of a
    /// finished flow, [`stop`](Self::stop) the provider.
    pub fn events_named(&self, name: &str) -> Vec<Value> {
        let events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        events.iter().filter(|event| event["event"] == name).cloned().collect()
    }

    /// Stops it and returns every event it logged, in order.
    pub fn stop(mut self) -> Vec<Value> {
        self.kill();
        std::mem::take(&mut *self.events.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Kills the process, then reads what it wrote to the end.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads the provider's stdout to its end on a thread: each JSON line is an event; other lines
/// (`oidc-provider`'s own notices) go to the test's stderr.
fn read_events(stdout: ChildStdout, events: Arc<Mutex<Vec<Value>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<Value>(&line) {
                Ok(event) if event.get("event").is_some() => {
                    events.lock().unwrap_or_else(|e| e.into_inner()).push(event);
                }
                _ => eprintln!("provider.mjs: {line}"),
            }
        }
    })
}

/// `examples/auth-server` trusting a [`Provider`] started for it: tokens must come from the
/// provider (`ISSUER`; their keys from its metadata) for this server's URL (`MCP_RESOURCE`, which
/// its protected resource metadata names, with the provider as its authorization server).
pub struct ProtectedServer {
    // Dropped first: the server stops before the provider it fetches keys from.
    server: HttpProcess,
    provider: Provider,
}

impl ProtectedServer {
    /// Starts the provider, its access tokens valid for `access_token_ttl`, and the server.
    pub fn start(access_token_ttl: Duration) -> Self {
        let port = free_port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let provider = Provider::start(&[&url], access_token_ttl);
        let env = [("ISSUER", provider.issuer()), ("MCP_RESOURCE", url.as_str())];
        let server = HttpProcess::start_with(&example_binary("auth-server"), &[], port, &env);
        Self { server, provider }
    }

    /// The MCP endpoint, `http://127.0.0.1:<port>/mcp`: the resource its tokens are for.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The authorization server.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    /// Stops both and returns every event the provider logged (see [`Provider::stop`]).
    pub fn stop(self) -> Vec<Value> {
        drop(self.server);
        self.provider.stop()
    }
}

/// `examples/auth-proxy` with a [`Provider`] as its upstream: the façade is the authorization
/// server its MCP clients see, and holds a confidential client at the provider (registered
/// there by Dynamic Client Registration, its redirect URI the façade's `/oauth/callback`).
pub struct ProxiedServer {
    server: HttpProcess,
    provider: Provider,
    public_url: String,
}

impl ProxiedServer {
    /// Starts the provider, registers the façade's client with it, and starts the façade,
    /// whose access tokens live `access_token_ttl`.
    pub fn start(access_token_ttl: Duration) -> Self {
        let port = free_port();
        let public_url = format!("http://127.0.0.1:{port}");
        let provider = Provider::start(&[&format!("{public_url}/mcp")], Duration::from_secs(3600));
        let (client_id, client_secret) =
            register_confidential_client(provider.issuer(), &format!("{public_url}/oauth/callback"));
        let ttl = access_token_ttl.as_secs().max(1).to_string();
        let env = [
            ("UPSTREAM_ISSUER", provider.issuer()),
            ("UPSTREAM_CLIENT_ID", client_id.as_str()),
            ("UPSTREAM_CLIENT_SECRET", client_secret.as_str()),
            ("UPSTREAM_SCOPES", "openid"),
            ("PUBLIC_URL", public_url.as_str()),
            ("ACCESS_TOKEN_TTL", ttl.as_str()),
        ];
        let server = HttpProcess::start_with(&example_binary("auth-proxy"), &[], port, &env);
        Self { server, provider, public_url }
    }

    /// The MCP endpoint, `http://127.0.0.1:<port>/mcp`.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// The façade's issuer: `http://127.0.0.1:<port>`.
    pub fn issuer(&self) -> &str {
        &self.public_url
    }

    /// The upstream provider.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }
}

/// A confidential client (`client_secret_basic`) registered at `issuer`'s registration endpoint
/// with one redirect URI: its id and secret. Plain HTTP/1.1 on a blocking socket, as the rest of
/// this module starts processes.
fn register_confidential_client(issuer: &str, redirect_uri: &str) -> (String, String) {
    let body = serde_json::json!({
        "redirect_uris": [redirect_uri],
        "token_endpoint_auth_method": "client_secret_basic",
        "grant_types": ["authorization_code"],
        "response_types": ["code"],
        "client_name": "mcp-runtime auth-proxy",
    })
    .to_string();
    let address = issuer.trim_start_matches("http://");
    let request = format!(
        "POST /reg HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = std::net::TcpStream::connect(address).expect("connect to the provider");
    std::io::Write::write_all(&mut stream, request.as_bytes()).expect("send the registration");
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut stream, &mut answer).expect("read the registration's answer");
    let json = answer.split_once("\r\n\r\n").map(|(_, body)| body).unwrap_or_default();
    let client: Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("the registration's answer ({e}): {answer}"));
    let text = |name: &str| client[name].as_str().unwrap_or_else(|| panic!("no {name} in {client}")).to_owned();
    (text("client_id"), text("client_secret"))
}

/// The user: a program that takes an authorization URL, signs in as one login in headless
/// Chromium (a fresh profile each time, so every run is a sign-in), consents, and exits 0 once
/// the browser has loaded the client's redirect URI (`tests/oidc/sign-in.mjs`). A shell script in
/// a temp dir, so that a client runs it as it would run a browser (a redirect handler, `BROWSER`).
pub struct SignIn {
    program: PathBuf,
    _dir: TempDir,
}

impl SignIn {
    /// A user who signs in as `login`, which the provider makes the tokens' subject.
    pub fn new(login: &str) -> Self {
        let dir = TempDir::new("mcp-sign-in");
        let path = dir.path().join("sign-in");
        let script = format!(
            "#!/bin/sh\nCHROMIUM={} SIGN_IN_LOGIN={} exec {} {} \"$@\"\n",
            shell_quoted(&program("chromium").to_string_lossy()),
            shell_quoted(login),
            shell_quoted(&node().to_string_lossy()),
            shell_quoted(&oidc_script("sign-in.mjs").to_string_lossy()),
        );
        std::fs::write(&path, script).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        make_executable(&path);
        Self { program: path, _dir: dir }
    }

    /// The program: `sign-in <authorization-url>`.
    pub fn program(&self) -> &Path {
        &self.program
    }
}

/// `text` as one word of `sh`, whatever it holds.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("cannot make {} executable: {e}", path.display()));
}
