//! How many tokens the `tools/list` payload costs a model: every tool's name, description and
//! schemas are in the context of every request a client makes.

use serde_json::{Value, json};

/// The tokenizer: o200k_base, the encoding of GPT-4o and later OpenAI models (tiktoken-rs).
/// Other model families tokenize differently; the count is a stable yardstick, not a bill.
pub const ENCODING: &str = "o200k_base";

/// The tokens of `text` in [`ENCODING`].
pub fn count(text: &str) -> u64 {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len() as u64
}

/// The tokens of a `tools/list` result holding `tools` (the tools as the server sent them,
/// compact JSON, as a client passes them on).
pub fn tools_list(tools: &[Value]) -> u64 {
    count(&json!({ "tools": tools }).to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_with_o200k_base() {
        // "hello world" is two tokens in both OpenAI encodings; JSON punctuation adds more.
        assert_eq!(super::count("hello world"), 2);
        assert!(super::tools_list(&[serde_json::json!({"name": "add"})]) > 5);
    }
}
