//! `prompts/get` results, and the conversion from what a prompt function returns.

use crate::content::{Content, Role};
use serde::{Deserialize, Serialize};
use std::fmt::Display;

/// One message of a rendered prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// Text, an image, audio, an embedded resource or a resource link.
    pub content: Content,
}

impl PromptMessage {
    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        Self { role: Role::User, content: Content::text(text) }
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self { role: Role::Assistant, content: Content::text(text) }
    }

    /// A message with any content block.
    pub fn new(role: Role, content: impl Into<Content>) -> Self {
        Self { role, content: content.into() }
    }
}

/// The result of `prompts/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// A description of this rendering.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// `_meta`: what the result says beyond the protocol (see [`with_meta`](Self::with_meta)).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Map<String, serde_json::Value>>,
}

impl GetPromptResult {
    /// Adds `key` to the result's `_meta` (keys of your own prefix, `com.example/source`).
    pub fn with_meta(mut self, key: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        self.meta.get_or_insert_default().insert(key.into(), value.into());
        self
    }
}

/// Turns what a prompt function returns into a [`GetPromptResult`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP prompt",
    label = "this return type is not a prompt",
    note = "return a `String` (one user message), a `PromptMessage`, a `Vec<PromptMessage>`, a `GetPromptResult`, or a `Result<T, E>` of one of these where `E: Display`"
)]
pub trait IntoPromptResult {
    /// The conversion; `Err` carries the message of a failed rendering.
    fn into_prompt_result(self) -> Result<GetPromptResult, String>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, String> {
        Ok(self)
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, String> {
        Ok(GetPromptResult { description: None, messages: self, meta: None })
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, String> {
        vec![self].into_prompt_result()
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, String> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> Result<GetPromptResult, String> {
        PromptMessage::user(self).into_prompt_result()
    }
}

impl<T: IntoPromptResult, E: Display> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, String> {
        self.map_err(|e| e.to_string())?.into_prompt_result()
    }
}
