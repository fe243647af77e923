use mcp_runtime::prelude::*;

#[mcp_prompt(complete(lang = complete_language))]
fn review(code: String, language: String) -> String {
    format!("Review this {language} code: {code}")
}

fn complete_language(request: CompletionRequest) -> Vec<String> {
    request.filter(["python", "rust"])
}

fn main() {}
