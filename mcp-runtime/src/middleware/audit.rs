//! [`AuditLog`]: a record of each tool call (or of every request): who, what, with which
//! arguments (redactable), and how it ended.

use super::{Middleware, RequestInfo, Response, Verdict};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Argument names redacted unless [`AuditLog::redact_only`] says otherwise: the usual names of
/// secrets.
const SECRET_NAMES: &[&str] = &["password", "passwd", "secret", "token", "api_key", "apikey", "authorization"];

/// What a redacted argument's value becomes.
const REDACTED: &str = "[redacted]";

/// Writes an [`AuditRecord`] for each tool call when it ends: by default as a `tracing` event
/// (target `mcp_runtime::audit`, field `record`: the record as JSON), or to a function of
/// yours ([`to`](Self::to)). Arguments named like secrets (`password`, `token`, `api_key`...,
/// at any depth, case-insensitively) are redacted; add names with [`redact`](Self::redact).
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
            .field("redacted", &self.redacted)
            .field("all_requests", &self.all_requests)
            .finish_non_exhaustive()
    }
}

impl AuditLog {
    /// Tool calls, written as `tracing` events (target `mcp_runtime::audit`).
    pub fn new() -> Self {
        Self {
            redacted: SECRET_NAMES.iter().map(|name| (*name).to_owned()).collect(),
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

    /// Redacts arguments with these names only, not the usual secret names.
    pub fn redact_only<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.redacted.clear();
        self.redact(names)
    }

    /// Records every request (reads, lists, prompts, vendor methods...), not only tool calls.
    pub fn all_requests(mut self) -> Self {
        self.all_requests = true;
        self
    }

    fn redacted(&self, mut value: Value) -> Value {
        redact(&mut value, &self.redacted);
        value
    }
}

/// Replaces the values of members named in `names`, at any depth.
fn redact(value: &mut Value, names: &[String]) {
    match value {
        Value::Object(members) => {
            for (name, member) in members.iter_mut() {
                if names.iter().any(|secret| secret.eq_ignore_ascii_case(name)) {
                    *member = Value::String(REDACTED.to_owned());
                } else {
                    redact(member, names);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| redact(item, names)),
        _ => {}
    }
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
            session: request.session_id().map(str::to_owned),
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
    /// The HTTP session it came on.
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

    #[test]
    fn redact_only_drops_the_defaults() {
        let log = AuditLog::new().redact_only(["pin"]);
        assert_eq!(log.redacted(json!({"password": "p", "pin": 1})), json!({"password": "p", "pin": "[redacted]"}));
    }
}
