//! Prompt arguments arrive as text: they bind to `FromStr` types first, `Deserialize` ones
//! otherwise, and `Option<T>` makes one optional.

use mcp_runtime::Completion;
use mcp_runtime::prelude::*;
use std::str::FromStr;

enum Language {
    Rust,
    Python,
}

impl FromStr for Language {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "rust" => Ok(Self::Rust),
            "python" => Ok(Self::Python),
            other => Err(format!("unknown language `{other}`")),
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "lowercase")]
enum Tone {
    Friendly,
    Strict,
}

/// Review a piece of code.
#[mcp_prompt(title = "Code review", complete(language = complete_language, tone = complete_tone))]
fn review(
    /// The code to review
    code: String,
    /// Its language
    language: Language,
    /// How many remarks at most
    max_remarks: u32,
    /// The tone of the review
    tone: Option<Tone>,
    #[mcp(rename = "focus-on", description = "What to look at first")] focus: Option<String>,
) -> String {
    let language = match language {
        Language::Rust => "Rust",
        Language::Python => "Python",
    };
    format!("Review this {language} code ({max_remarks} remarks, {tone:?}, {focus:?}):\n{code}")
}

fn complete_language(request: CompletionRequest) -> Vec<&'static str> {
    ["rust", "python"].into_iter().filter(|l| l.starts_with(&request.value)).collect()
}

async fn complete_tone(request: CompletionRequest) -> Completion {
    Completion::from_values(request.filter(["friendly", "strict"]))
}

fn main() {
    let _ = prompts![review];
    let _ = Tone::Strict;
}
