//! Template operators, optional variables, list functions of each shape and completions.

use mcp_runtime::Completion;
use mcp_runtime::prelude::*;

/// `{+path}` keeps the slashes.
#[mcp_resource(uri = "files:///{+path}", list = list_files)]
fn file(path: String) -> String {
    format!("contents of {path}")
}

/// Query variables are optional.
#[mcp_resource(uri = "search://notes{?term,limit}", list = list_searches)]
fn search(term: Option<String>, limit: Option<u32>) -> Json<(Option<String>, Option<u32>)> {
    Json((term, limit))
}

/// A typed variable, listed by an async function that reads the context.
#[mcp_resource(uri = "archive://{year}/{month}", list = list_archives, complete(year = complete_year, month = complete_month))]
async fn archive(year: u16, month: Option<u8>, ctx: Context) -> String {
    let _ = ctx;
    format!("{year}-{month:?}")
}

/// A renamed variable, listed by a sync function that reads the context.
#[mcp_resource(uri = "notes://{note_id}", list = list_notes)]
fn note(#[mcp(rename = "note_id")] name: String) -> Result<String, ResourceNotFound> {
    if name == "todo" { Ok("buy milk".into()) } else { Err(ResourceNotFound) }
}

fn list_files() -> Vec<ResourceEntry> {
    vec![ResourceEntry::new("files:///README.md", "README.md")]
}

async fn list_searches() -> Vec<ResourceEntry> {
    vec![ResourceEntry::new("search://notes?term=milk", "milk")]
}

async fn list_archives(ctx: Context) -> Result<Vec<ResourceEntry>, std::io::Error> {
    let _ = ctx;
    Ok(vec![ResourceEntry::new("archive://2024/1", "January 2024")])
}

fn list_notes(ctx: Context) -> Vec<ResourceEntry> {
    let _ = ctx;
    vec![ResourceEntry::new("notes://todo", "todo")]
}

fn complete_year(request: CompletionRequest) -> Vec<String> {
    request.filter(["2023", "2024", "2025"])
}

async fn complete_month(request: CompletionRequest) -> Completion {
    Completion::from_values((1..=12).map(|m| m.to_string()).filter(|m| m.starts_with(&request.value)).collect())
}

fn main() {
    let _ = resources![file, search, archive, note];
}
