//! `sampling/createMessage`: ask the client's model for a completion.

use super::ClientError;
use super::Input;
use crate::content::{Content, Role};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// One message of a sampling conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said (text, image or audio).
    pub content: Content,
}

impl SamplingMessage {
    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        Self { role: Role::User, content: Content::text(text) }
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self { role: Role::Assistant, content: Content::text(text) }
    }
}

/// Advisory preferences for the client's model choice.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, most preferred first (e.g. `claude-3-5-sonnet`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<Value>,
    /// 0 to 1: how much cost matters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// 0 to 1: how much speed matters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// 0 to 1: how much capability matters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// A sampling request, built up then sent with [`Context::sample`](crate::Context::sample);
/// what a `client` (feature `client`) reads in its sampling handler.
///
/// ```no_run
/// # use mcp_runtime::{Context, Sampling};
/// # async fn f(ctx: Context) -> Result<(), mcp_runtime::ClientError> {
/// let reply = ctx.sample(Sampling::new("What is the capital of France?").max_tokens(100)).await?;
/// println!("{}", reply.text().unwrap_or_default());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sampling {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// Advisory preferences for the model choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to generate.
    pub max_tokens: u32,
    /// Sequences that stop generation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// Tools the model may call (`Tool` objects as JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    #[serde(skip)]
    timeout: Option<Duration>,
}

impl Sampling {
    /// A request with one user message and a 1000-token budget.
    pub fn new(prompt: impl Into<String>) -> Self {
        Self::from_messages(vec![SamplingMessage::user(prompt)])
    }

    /// A request with these messages.
    pub fn from_messages(messages: Vec<SamplingMessage>) -> Self {
        Self {
            messages,
            model_preferences: None,
            system_prompt: None,
            temperature: None,
            max_tokens: 1000,
            stop_sequences: Vec::new(),
            tools: Vec::new(),
            timeout: None,
        }
    }

    /// The most tokens to generate.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// A system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Model preferences.
    pub fn model_preferences(mut self, preferences: ModelPreferences) -> Self {
        self.model_preferences = Some(preferences);
        self
    }

    /// Sequences that stop generation.
    pub fn stop_sequences(mut self, stops: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.stop_sequences = stops.into_iter().map(Into::into).collect();
        self
    }

    /// Tools the model may call (`Tool` objects as JSON); needs the client's `sampling.tools`.
    pub fn tools(mut self, tools: Vec<Value>) -> Self {
        self.tools = tools;
        self
    }

    /// How long to wait for the answer (default: the server's client request timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
}

/// The client model's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sampled {
    /// Usually `assistant`.
    pub role: Role,
    /// The generated content: one block, or several when the model used tools.
    pub content: Value,
    /// The model that answered.
    pub model: String,
    /// Why generation stopped (`endTurn`, `maxTokens`, `toolUse`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// The text of the answer, when it is (or starts with) a text block.
    pub fn text(&self) -> Option<&str> {
        let block = match &self.content {
            Value::Array(blocks) => blocks.first()?,
            block => block,
        };
        (block.get("type")? == "text").then(|| block.get("text")?.as_str()).flatten()
    }
}

impl Input<'_> {
    /// Asks the client's model for a completion (`sampling/createMessage`). Needs the client's
    /// `sampling` capability (and `sampling.tools` when the request carries tools).
    pub async fn sample(self, request: Sampling) -> Result<Sampled, ClientError> {
        let capability = if request.tools.is_empty() {
            ("sampling", &["sampling"][..])
        } else {
            ("sampling.tools", &["sampling", "tools"][..])
        };
        let timeout = request.timeout;
        self.ask(capability, "sampling/createMessage", &request, timeout).await
    }
}
