//! What the client reads from a server: list entries, the negotiated protocol, notifications,
//! and the server's requests it answers. Results the runtime already describes
//! ([`CallToolResult`](crate::CallToolResult), [`ReadResourceResult`](crate::ReadResourceResult),
//! [`GetPromptResult`](crate::GetPromptResult), [`Completion`](crate::Completion),
//! [`ResourceEntry`](crate::ResourceEntry)...) are reused, not copied.

use crate::logging::LoggingLevel;
use crate::protocol::{Implementation, ProtocolVersion};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A tool, as `tools/list` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The name to call it by.
    pub name: String,
    /// A display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of its arguments.
    #[serde(default)]
    pub input_schema: Value,
    /// The JSON Schema of its structured result, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Hints (`readOnlyHint`, `destructiveHint`...), as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// `_meta`, as sent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

/// A resource template, as `resources/templates/list` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// An RFC 6570 URI template.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// A display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of what it names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// A prompt, as `prompts/list` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Prompt {
    /// The name to get it by.
    pub name: String,
    /// A display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a [`Prompt`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default)]
    pub required: bool,
}

/// One page of a list, and the cursor of the next one.
#[derive(Clone, Debug, PartialEq)]
pub struct Page<T> {
    /// The entries of this page.
    pub items: Vec<T>,
    /// Pass it to the paged call for the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// How the protocol version is chosen when connecting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Negotiation {
    /// Probe `server/discover` at 2026-07-28 and use it if the server speaks it; otherwise
    /// the initialize handshake (what the official Python SDK's `auto` mode does).
    #[default]
    Auto,
    /// The initialize handshake only, asking for 2025-11-25 (servers may answer an older
    /// revision of that era).
    Handshake,
    /// 2026-07-28 only: `server/discover`, then stateless requests.
    Stateless,
}

/// What the connection settled on: the protocol version, and what the server said about itself.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ServerDetails {
    /// The negotiated revision: 2026-07-28 (stateless) or one of the handshake era.
    pub protocol_version: ProtocolVersion,
    /// The server's `serverInfo`, when it sent one.
    pub server_info: Option<Implementation>,
    /// The server's capabilities.
    pub capabilities: Map<String, Value>,
    /// Its instructions for the model, if any.
    pub instructions: Option<String>,
}

impl ServerDetails {
    /// Whether the server declared the capability at `path` (`["resources", "subscribe"]`).
    pub fn has_capability(&self, path: &[&str]) -> bool {
        crate::server_requests::declared(Some(&self.capabilities), path)
    }
}

/// Progress a server reported on one call (`notifications/progress`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Progress {
    /// The progress so far; it increases with each report.
    pub progress: f64,
    /// The total, when known.
    #[serde(default)]
    pub total: Option<f64>,
    /// What is happening.
    #[serde(default)]
    pub message: Option<String>,
}

/// A notification from the server, for [`ClientBuilder::on_notification`](super::ClientBuilder::on_notification).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Notification {
    /// `notifications/message`: a log line.
    Log {
        /// Its severity.
        level: LoggingLevel,
        /// The logger's name, if any.
        logger: Option<String>,
        /// The message: any JSON.
        data: Value,
    },
    /// `notifications/progress` for a request (also given to that call's progress callback).
    Progress {
        /// The request's progress token.
        token: Value,
        /// The report.
        progress: Progress,
    },
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/updated`: a subscribed resource changed.
    ResourceUpdated {
        /// The resource's URI.
        uri: String,
    },
    /// Any other notification (vendor methods, `notifications/subscriptions/acknowledged`...).
    Other {
        /// Its method.
        method: String,
        /// Its params, `null` when absent.
        params: Value,
    },
}

impl Notification {
    /// Reads a notification from its method and params.
    pub(crate) fn from_message(method: &str, params: Value) -> Self {
        #[derive(Deserialize)]
        struct Log {
            level: LoggingLevel,
            #[serde(default)]
            logger: Option<String>,
            #[serde(default)]
            data: Value,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct ProgressParams {
            progress_token: Value,
            #[serde(flatten)]
            progress: Progress,
        }
        let other = |params| Self::Other { method: method.to_owned(), params };
        match method {
            "notifications/message" => match serde_json::from_value::<Log>(params.clone()) {
                Ok(Log { level, logger, data }) => Self::Log { level, logger, data },
                Err(_) => other(params),
            },
            "notifications/progress" => match serde_json::from_value::<ProgressParams>(params.clone()) {
                Ok(p) => Self::Progress { token: p.progress_token, progress: p.progress },
                Err(_) => other(params),
            },
            "notifications/tools/list_changed" => Self::ToolsListChanged,
            "notifications/resources/list_changed" => Self::ResourcesListChanged,
            "notifications/prompts/list_changed" => Self::PromptsListChanged,
            "notifications/resources/updated" => match params.get("uri").and_then(Value::as_str) {
                Some(uri) => Self::ResourceUpdated { uri: uri.to_owned() },
                None => other(params),
            },
            _ => other(params),
        }
    }
}

/// What a server asks the user through the client (`elicitation/create`), for
/// [`ClientBuilder::on_elicitation`](super::ClientBuilder::on_elicitation). The answer is an
/// [`Elicitation`](crate::Elicitation) of the form's content.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElicitationRequest {
    /// Fill in a form.
    Form {
        /// What to ask.
        message: String,
        /// The form: a flat JSON Schema object.
        requested_schema: Map<String, Value>,
    },
    /// Go to a URL (credentials, payments: what must not pass through the client).
    Url {
        /// What to tell the user.
        message: String,
        /// Where to send them.
        url: String,
        /// The server's id for this elicitation.
        elicitation_id: String,
    },
}

impl ElicitationRequest {
    pub(crate) fn from_params(params: &Value) -> Option<Self> {
        let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_owned);
        let message = text("message").unwrap_or_default();
        if params.get("mode").and_then(Value::as_str) == Some("url") {
            return Some(Self::Url { message, url: text("url")?, elicitation_id: text("elicitationId")? });
        }
        let requested_schema = params.get("requestedSchema").and_then(Value::as_object).cloned().unwrap_or_default();
        Some(Self::Form { message, requested_schema })
    }

    /// The message to show.
    pub fn message(&self) -> &str {
        match self {
            Self::Form { message, .. } | Self::Url { message, .. } => message,
        }
    }
}
