//! A prompt may return each of these types.

use mcp_runtime::prelude::*;
use mcp_runtime::{GetPromptResult, Role};

#[mcp_prompt]
fn string(topic: String) -> String {
    format!("Tell me about {topic}")
}

#[mcp_prompt]
fn static_str() -> &'static str {
    "Tell me a joke"
}

#[mcp_prompt]
fn message(topic: String) -> PromptMessage {
    PromptMessage::new(Role::User, Content::text(topic))
}

#[mcp_prompt]
async fn messages(topic: String) -> Vec<PromptMessage> {
    vec![PromptMessage::user(topic), PromptMessage::assistant("Sure.")]
}

#[mcp_prompt]
fn result(topic: String) -> GetPromptResult {
    GetPromptResult { description: Some("about a topic".into()), messages: vec![PromptMessage::user(topic)], meta: None }
}

#[mcp_prompt]
fn fallible(path: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

#[mcp_prompt]
async fn fallible_messages(topic: String) -> Result<Vec<PromptMessage>, String> {
    if topic.is_empty() { Err("empty topic".into()) } else { Ok(vec![PromptMessage::user(topic)]) }
}

fn main() {
    let _ = prompts![string, static_str, message, messages, result, fallible, fallible_messages];
    assert_eq!(static_str(), "Tell me a joke");
}
