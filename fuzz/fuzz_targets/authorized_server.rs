//! The server both HTTP targets fuzz, with authorization on: bearer tokens the input describes
//! (HS256, signed here unless forged), a tool that needs a scope and counts its runs, and the
//! invariants every answer must keep (no 5xx, JSON bodies parse, nothing but the metadata and
//! CORS preflights' empty `204` without a valid token, a scoped tool never run without its scope, a session never served to
//! another caller). Included by `http_request.rs` and `http_wire.rs` as a module.
#![allow(dead_code, reason = "each target uses part of it")]

use arbitrary::{Arbitrary, Unstructured};
use hyper::StatusCode;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::{AuthConfig, JwtKey, JwtVerifier};
use mcp_runtime::http::{HttpConfig, McpHttpService};
use mcp_runtime::prelude::*;
use serde::de::DeserializeOwned;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const SECRET: &[u8] = b"fuzz-secret-of-at-least-32-bytes-long";
const ISSUER: &str = "https://auth.fuzz.example";
/// The server's canonical URI: the audience of the tokens it accepts.
const RESOURCE: &str = "https://mcp.fuzz.example/mcp";
/// The scope `erase` needs.
const WRITE: &str = "files:write";

/// Runs of `erase` so far.
static ERASED: AtomicUsize = AtomicUsize::new(0);

/// Echoes its text.
#[mcp_tool]
fn echo(text: String) -> String {
    text
}

/// Adds two integers.
#[mcp_tool]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Erases everything (needs `files:write`); counts its runs.
#[mcp_tool(scopes = ["files:write"])]
fn erase() -> String {
    ERASED.fetch_add(1, Ordering::SeqCst);
    "erased".to_owned()
}

/// The tool names a request may call: the three tools and one that does not exist.
pub const TOOLS: &[&str] = &["echo", "add", "erase", "missing"];

/// The input in `data`: JSON (how the seeds are written: readable, and mutated as text) or else
/// `arbitrary`'s reading of the bytes. With `MCP_FUZZ_STRICT_JSON` set (`scripts/fuzz.sh
/// --seeds`), a JSON object that does not describe an input is a failure, so a seed cannot
/// silently become random bytes.
pub fn decode<T: DeserializeOwned + for<'a> Arbitrary<'a>>(data: &[u8]) -> Option<T> {
    match serde_json::from_slice(data) {
        Ok(input) => Some(input),
        Err(err) => {
            let strict = data.first() == Some(&b'{') && std::env::var_os("MCP_FUZZ_STRICT_JSON").is_some();
            assert!(!strict, "a JSON seed that describes no input: {err}");
            T::arbitrary_take_rest(Unstructured::new(data)).ok()
        }
    }
}

/// A single-threaded runtime shared by every input, its clock paused: when every task waits,
/// time jumps to the next timer, so waiting on a stream that stays open costs no wall-clock time.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap())
}

/// A fresh service: the three tools, OAuth with the fuzz key, a short shutdown grace.
pub fn service() -> McpHttpService {
    let verifier = JwtVerifier::new(JwtKey::hmac_secret(SECRET).unwrap()).issuer(ISSUER);
    let auth = AuthConfig::new(verifier).resource(RESOURCE).authorization_server(ISSUER).scopes(["files:read"]);
    Server::new("fuzz", "0")
        .tools(tools![echo, add, erase])
        .shutdown_grace(Duration::from_millis(10))
        .into_http_service(HttpConfig::default().auth(auth))
        .unwrap()
}

/// Whose token it is.
#[derive(Arbitrary, Deserialize, Debug, Clone, Copy, PartialEq)]
pub enum Subject {
    /// The user who owns the session the target starts.
    Alice,
    /// Another user.
    Bob,
    /// A client acting for itself whose `client_id` is `alice` (no `sub`).
    MachineAlice,
    /// A token naming nobody.
    Nobody,
}

/// A scope a token may grant.
#[derive(Arbitrary, Deserialize, Debug, Clone, Copy, PartialEq)]
pub enum Scope {
    Read,
    Write,
    Other,
}

impl Scope {
    fn name(self) -> &'static str {
        match self {
            Self::Read => "files:read",
            Self::Write => WRITE,
            Self::Other => "admin",
        }
    }
}

/// A bearer token described by its parts.
#[derive(Arbitrary, Deserialize, Debug, Clone)]
pub struct Token {
    pub subject: Subject,
    pub scopes: Vec<Scope>,
    /// Scopes as a `scp` array rather than a `scope` string.
    pub scp_array: bool,
    pub expired: bool,
    pub wrong_audience: bool,
    pub wrong_issuer: bool,
    /// Signed with another secret.
    pub forged: bool,
    /// `bearer` in lower case (accepted: the scheme is case-insensitive).
    pub lower_case_scheme: bool,
}

/// What a request's `Authorization` header holds.
#[derive(Arbitrary, Deserialize, Debug, Clone)]
pub enum Authorization {
    Bearer(Token),
    /// Any bytes (a different scheme, garbage, a token in pieces).
    Raw(Vec<u8>),
}

impl Token {
    /// Alice's token with `files:read`, which the target starts its session with.
    pub fn alice() -> Self {
        Self {
            subject: Subject::Alice,
            scopes: vec![Scope::Read],
            scp_array: false,
            expired: false,
            wrong_audience: false,
            wrong_issuer: false,
            forged: false,
            lower_case_scheme: false,
        }
    }

    /// Whether the server must accept it.
    pub fn valid(&self) -> bool {
        !(self.expired || self.wrong_audience || self.wrong_issuer || self.forged || self.subject == Subject::Nobody)
    }

    /// Whether it grants `files:write`.
    pub fn may_write(&self) -> bool {
        self.scopes.contains(&Scope::Write)
    }

    /// The `Authorization` header value.
    pub fn header_value(&self) -> String {
        let now = jsonwebtoken::get_current_timestamp();
        let mut claims = serde_json::json!({
            "iss": if self.wrong_issuer { "https://evil.example" } else { ISSUER },
            "aud": if self.wrong_audience { "https://other.example/mcp" } else { RESOURCE },
            "exp": if self.expired { now - 3600 } else { now + 3600 },
        });
        match self.subject {
            Subject::Alice => claims["sub"] = "alice".into(),
            Subject::Bob => claims["sub"] = "bob".into(),
            Subject::MachineAlice => claims["client_id"] = "alice".into(),
            Subject::Nobody => {}
        }
        let scopes: Vec<&str> = self.scopes.iter().take(4).map(|s| s.name()).collect();
        if self.scp_array {
            claims["scp"] = scopes.into();
        } else {
            claims["scope"] = scopes.join(" ").into();
        }
        let secret: &[u8] = if self.forged { b"another-secret-another-secret-another" } else { SECRET };
        let key = EncodingKey::from_secret(secret).expect("an HMAC key");
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &key).expect("a token signs");
        let scheme = if self.lower_case_scheme { "bearer" } else { "Bearer" };
        format!("{scheme} {token}")
    }
}

impl Authorization {
    /// The header value's bytes.
    pub fn header_value(&self) -> Vec<u8> {
        match self {
            Self::Bearer(token) => token.header_value().into_bytes(),
            Self::Raw(bytes) => bytes.clone(),
        }
    }

    /// The token, when it is one the server must accept.
    pub fn valid_token(&self) -> Option<&Token> {
        match self {
            Self::Bearer(token) if token.valid() => Some(token),
            _ => None,
        }
    }
}

/// What a request was, for the authorization invariants of its answer.
pub struct Sent<'a> {
    pub path: &'a str,
    pub authorization: Option<&'a Authorization>,
    /// It named the session Alice's token started.
    pub on_alice_session: bool,
    /// It was an `OPTIONS`: a CORS preflight from an allowed origin is answered `204` without
    /// a token (a browser sends none with it), and runs nothing.
    pub preflight: bool,
}

/// Watches one request: `erase`'s runs during it, then the answer's invariants.
pub struct Watch {
    erased_before: usize,
}

impl Watch {
    /// Starts watching (before the request is sent).
    pub fn start() -> Self {
        Self { erased_before: ERASED.load(Ordering::SeqCst) }
    }

    /// Checks a request that got no answer at all: nothing it asked for ran unless allowed.
    pub fn check_unanswered(self, authorization: Option<&Authorization>) {
        self.check_runs(authorization.and_then(Authorization::valid_token));
    }

    /// `erase` ran during the request only if `token` grants its scope.
    fn check_runs(&self, token: Option<&Token>) {
        if ERASED.load(Ordering::SeqCst) != self.erased_before {
            assert!(token.is_some_and(Token::may_write), "`erase` ran without a token granting {WRITE}");
        }
    }

    /// Checks the answer (`bytes` is its body, or what of it arrived).
    pub fn check(self, sent: &Sent<'_>, status: StatusCode, content_type: Option<&str>, bytes: &[u8]) {
        assert!(!status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE, "status {status}");
        if content_type == Some("application/json") && !bytes.is_empty() {
            serde_json::from_slice::<serde_json::Value>(bytes).expect("a JSON body parses");
        }
        let token = sent.authorization.and_then(Authorization::valid_token);
        let preflight_answer = sent.preflight && status == StatusCode::NO_CONTENT && bytes.is_empty();
        if status.is_success() && !sent.path.starts_with("/.well-known/") && !preflight_answer {
            let token = token.unwrap_or_else(|| panic!("{status} on {} without a valid token", sent.path));
            assert!(
                !sent.on_alice_session || token.subject == Subject::Alice,
                "{status}: alice's session served to {:?}",
                token.subject
            );
        }
        self.check_runs(token);
    }
}
