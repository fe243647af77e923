//! [`AuditLog`]: a record of each tool call (or of every request): who, what, with which
//! arguments (secrets redacted), and how it ended.

use super::{Middleware, RequestInfo, Response, Verdict};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest as _, Sha256};
use std::sync::Arc;
use std::time::Duration;

/// A name holding one of these, anywhere and in any case, names a secret (`db_password`,
/// `clientSecret`, `accesstoken`): each is rare enough inside an innocent word.
const SECRET_FRAGMENTS: &[&str] =
    &["password", "passwd", "secret", "token", "credential", "authorization", "cookie", "apikey", "privatekey"];

/// A name with one of these as a whole word (`api_key`, `apiKey`, `x-auth`, `session_id`) names
/// a secret: inside a word they are innocent (`keyword`, `monkey`, `author`).
const SECRET_WORDS: &[&str] = &["key", "keys", "auth", "pwd", "session", "sessions", "jwt"];

/// What a redacted argument's value becomes.
const REDACTED: &str = "[redacted]";

/// Writes an [`AuditRecord`] for each tool call when it ends: by default as a `tracing` event
/// (target `mcp_runtime::audit`, field `record`: the record as JSON), or to a function of
/// yours ([`to`](Self::to)). Arguments named like secrets are redacted at any depth: a name
/// holding `password`, `passwd`, `secret`, `token`, `credential`, `authorization` or `cookie`
/// anywhere (`db_password`, `clientSecret`), or with `key`, `auth`, `pwd`, `session` or `jwt`
/// as one of its words (`api_key`, `privateKey`, `x-auth`; not `keyword` or `author`), in any
/// case. Add names with [`redact`](Self::redact). The session id is recorded as a digest.
///
/// Audit events never reach a client's log (`notifications/message`): they hold other callers'
/// arguments.
///
/// ```
/// use mcp_runtime::middleware::AuditLog;
/// use mcp_runtime::Server;
///
/// let server = Server::new("bank", "1.0").middleware(
///     AuditLog::new()
///         .redact(["iban"])
///         .to(|record| eprintln!("{}", serde_json::to_string(record).unwrap())),
/// );
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct AuditLog {
    /// Whether names that look like secrets are redacted (not after [`redact_only`](Self::redact_only)).
    by_pattern: bool,
    /// Names redacted as well, lowercase.
    redacted: Vec<String>,
    all_requests: bool,
    sink: Arc<dyn Fn(&AuditRecord) + Send + Sync>,
}

impl Default for AuditLog {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog")
            .field("by_pattern", &self.by_pattern)
            .field("redacted", &self.redacted)
            .field("all_requests", &self.all_requests)
            .finish_non_exhaustive()
    }
}

impl AuditLog {
    /// Tool calls, written as `tracing` events (target `mcp_runtime::audit`).
    pub fn new() -> Self {
        Self {
            by_pattern: true,
            redacted: Vec::new(),
            all_requests: false,
            sink: Arc::new(|record| {
                let json = serde_json::to_string(record).unwrap_or_default();
                tracing::info!(target: "mcp_runtime::audit", record = %json, "audit");
            }),
        }
    }

    /// Sends each record to `sink` instead (a file, a queue, a database writer). It runs where
    /// the request ends: hand slow work to a task or a channel.
    pub fn to(mut self, sink: impl Fn(&AuditRecord) + Send + Sync + 'static) -> Self {
        self.sink = Arc::new(sink);
        self
    }

    /// Also redacts arguments with these names, at any depth (compared case-insensitively).
    pub fn redact<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.redacted.extend(names.into_iter().map(|name| name.into().to_ascii_lowercase()));
        self
    }

    /// Redacts arguments with these names only, not those that look like secrets.
    pub fn redact_only<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.by_pattern = false;
        self.redacted.clear();
        self.redact(names)
    }

    /// Records every request (reads, lists, prompts, vendor methods...), not only tool calls.
    pub fn all_requests(mut self) -> Self {
        self.all_requests = true;
        self
    }

    fn redacted(&self, mut value: Value) -> Value {
        self.redact_in(&mut value);
        value
    }

    /// Replaces the values of members with secret names, at any depth.
    fn redact_in(&self, value: &mut Value) {
        match value {
            Value::Object(members) => {
                for (name, member) in members.iter_mut() {
                    if self.is_secret(name) {
                        *member = Value::String(REDACTED.to_owned());
                    } else {
                        self.redact_in(member);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.redact_in(item)),
            _ => {}
        }
    }

    fn is_secret(&self, name: &str) -> bool {
        self.redacted.iter().any(|secret| secret.eq_ignore_ascii_case(name)) || (self.by_pattern && looks_secret(name))
    }
}

/// Whether `name` looks like the name of a secret (see [`AuditLog`]).
fn looks_secret(name: &str) -> bool {
    let lower = name.to_lowercase();
    SECRET_FRAGMENTS.iter().any(|fragment| lower.contains(fragment))
        || words(name).any(|word| SECRET_WORDS.iter().any(|secret| word.eq_ignore_ascii_case(secret)))
}

/// The words of an identifier in any of the usual cases: `snake_case`, `kebab-case`,
/// `camelCase`, `PascalCase`, `HTTPHeader` (`HTTP`, `Header`), `dotted.name`.
fn words(name: &str) -> impl Iterator<Item = &str> {
    name.split(|c: char| !c.is_alphanumeric()).flat_map(|part| {
        let chars: Vec<(usize, char)> = part.char_indices().collect();
        let mut starts = vec![0];
        for i in 1..chars.len() {
            let (previous, (at, this)) = (chars[i - 1].1, chars[i]);
            let next_is_lower = chars.get(i + 1).is_some_and(|(_, next)| next.is_lowercase());
            // `aB` starts a word at `B`; so does `AB` before a lowercase letter (`HTTPHeader`).
            if this.is_uppercase() && (!previous.is_uppercase() || next_is_lower) {
                starts.push(at);
            }
        }
        starts.push(part.len());
        starts.windows(2).map(|bounds| &part[bounds[0]..bounds[1]]).collect::<Vec<_>>()
    })
}

/// How a session id appears in a record: the first 16 hex digits of its SHA-256, the same on
/// every replica (so one session's records can be joined) and no way back to the id, which
/// would let whoever reads the log use the session.
fn session_digest(id: &str) -> String {
    let digest = Sha256::digest(id.as_bytes());
    digest[..8].iter().map(|byte| format!("{byte:02x}")).collect()
}

impl Middleware for AuditLog {
    fn on_request(&self, request: &RequestInfo<'_>) -> Verdict {
        if !self.all_requests && request.method() != "tools/call" {
            return Verdict::Continue;
        }
        let arguments = request
            .arguments()
            .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
            .map(|arguments| self.redacted(arguments));
        let mut record = AuditRecord {
            time: crate::tasks::time::now_iso(),
            caller: request.caller_key(),
            session: request.session_id().map(session_digest),
            request_id: request.id().to_string(),
            method: request.method().to_owned(),
            target: request.target().map(str::to_owned),
            arguments,
            outcome: AuditOutcome::Cancelled,
            duration: Duration::ZERO,
        };
        let sink = Arc::clone(&self.sink);
        Verdict::watch(move |response: &Response<'_>| {
            record.duration = response.duration();
            record.outcome = AuditOutcome::of(response);
            sink(&record);
        })
    }
}

/// One audited request.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuditRecord {
    /// When it arrived, ISO 8601 UTC (`2026-12-03T16:41:34.123Z`).
    pub time: String,
    /// Who made it (see [`RequestInfo::caller_key`]): `user:NAME`, `client:NAME`, `session:ID`.
    pub caller: Option<String>,
    /// The HTTP session it came on, as a digest: the first 16 hex digits of the SHA-256 of its
    /// id (the id itself would let a reader of the log use the session).
    pub session: Option<String>,
    /// Its JSON-RPC id.
    pub request_id: String,
    /// The method.
    pub method: String,
    /// The tool or prompt name, or the resource URI.
    pub target: Option<String>,
    /// The arguments, with secrets redacted.
    pub arguments: Option<Value>,
    /// How it ended.
    pub outcome: AuditOutcome,
    /// How long it took.
    #[serde(rename = "durationMs", serialize_with = "as_millis")]
    pub duration: Duration,
}

fn as_millis<S: serde::Serializer>(duration: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(duration.as_secs_f64() * 1000.0)
}

/// How an audited request ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuditOutcome {
    /// A result.
    Ok,
    /// A tool's error result (`isError: true`).
    ToolError,
    /// A JSON-RPC error.
    Error {
        /// Its code.
        code: i32,
        /// Its message.
        message: String,
    },
    /// No answer: cancelled by the client, or its connection gone.
    Cancelled,
}

impl AuditOutcome {
    fn of(response: &Response<'_>) -> Self {
        if response.is_cancelled() {
            return Self::Cancelled;
        }
        if response.is_tool_error() {
            return Self::ToolError;
        }
        match response.outcome() {
            Some(Err(error)) => Self::Error { code: error.code, message: error.message },
            _ => Self::Ok,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn redacts_secret_names_at_any_depth_and_case() {
        let log = AuditLog::new().redact(["IBAN"]);
        let args = json!({"user": "ann", "Password": "p", "nested": [{"api_key": "k", "iban": "DE00"}], "n": 1});
        assert_eq!(
            log.redacted(args),
            json!({"user": "ann", "Password": "[redacted]", "nested": [{"api_key": "[redacted]", "iban": "[redacted]"}], "n": 1})
        );
    }

    /// The attack of issue 31 (row 8): secrets under names that were not on a fixed list.
    #[test]
    fn names_that_look_like_secrets_are_redacted_wherever_they_are() {
        let args = json!({
            "access_token": "t", "client_secret": "s", "db_password": "p", "private_key": "k",
            "apiKey": "k", "X-Api-Key": "k", "privateKEY": "k", "AWSSecretAccessKey": "k", "auth": "a",
            "refreshToken": "t", "Cookie": "c", "session_id": "s", "userPwd": "p", "credentials": {"u": 1},
            "Authorization": "Bearer t", "accesstoken": "t",
            "deep": [{"config": {"db": {"DB_PASSWORD": "p", "host": "h"}}}],
            "keyword": "rust", "monkey": 1, "author": "ann", "keyboard": "us", "path": "/k", "query": "SELECT 1",
        });
        let redacted = AuditLog::new().redacted(args);
        let kept = ["keyword", "monkey", "author", "keyboard", "path", "query", "deep"];
        for (name, value) in redacted.as_object().unwrap() {
            assert_eq!(value == REDACTED, !kept.contains(&name.as_str()), "{name}: {value}");
        }
        assert_eq!(redacted["deep"], json!([{"config": {"db": {"DB_PASSWORD": "[redacted]", "host": "h"}}}]));
    }

    #[test]
    fn words_split_every_usual_case() {
        let split = |name| words(name).filter(|w| !w.is_empty()).collect::<Vec<_>>();
        assert_eq!(split("private_key"), ["private", "key"]);
        assert_eq!(split("apiKey"), ["api", "Key"]);
        assert_eq!(split("X-Api-Key"), ["X", "Api", "Key"]);
        assert_eq!(split("HTTPHeaderKey2"), ["HTTP", "Header", "Key2"]);
        assert_eq!(split("keyword"), ["keyword"]);
    }

    #[test]
    fn a_session_digest_is_short_stable_and_not_the_id() {
        let id = "0f6c1f3e-6b1a-4f0e-9d1c-3c2a1b0e9f8d";
        assert_eq!(session_digest(id), session_digest(id));
        assert_eq!(session_digest(id).len(), 16);
        assert_ne!(session_digest(id), session_digest("another"));
        assert!(!id.contains(&session_digest(id)));
    }

    #[test]
    fn redact_only_drops_the_defaults() {
        let log = AuditLog::new().redact_only(["pin"]);
        assert_eq!(log.redacted(json!({"password": "p", "pin": 1})), json!({"password": "p", "pin": "[redacted]"}));
    }
}
