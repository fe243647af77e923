use mcp_runtime::prelude::*;

struct Language {
    name: String,
}

#[mcp_prompt]
fn review(code: String, language: Option<Language>) -> String {
    format!("Review this {} code: {code}", language.map_or_else(String::new, |l| l.name))
}

fn main() {}
