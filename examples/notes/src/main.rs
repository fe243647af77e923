//! An MCP server for a folder of Markdown notes: a static resource (the index), a resource
//! template (one resource per note), a prompt, argument completion, and tools that change the
//! folder and tell the clients subscribed to what changed.
//!
//! Run it with `cargo run -p notes -- ./my-notes` (or `NOTES_DIR=./my-notes`); the folder
//! defaults to `./notes` and is created with two sample notes when missing.

use mcp_runtime::prelude::*;
use mcp_runtime::{EmbeddedResource, ResourceContents, Role, ServerHandle};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::{fmt, fs, io};

/// The notes folder, chosen once at start-up. A process-wide value rather than `State`,
/// because completion functions receive only the completion request.
static FOLDER: OnceLock<PathBuf> = OnceLock::new();

fn folder() -> &'static Path {
    FOLDER.get().expect("main chooses the folder before serving")
}

/// Why a note name was refused.
#[derive(Debug)]
struct InvalidName(String);

impl fmt::Display for InvalidName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a note name: use 1 to 64 letters, digits, `-` or `_` (no `/`, no `..`)", self.0)
    }
}

/// The file of the note `name`, once the name is known to be safe: letters, digits, `-` and
/// `_` only, so no `/`, `..` or other path trick can leave the folder.
fn note_path(name: &str) -> Result<PathBuf, InvalidName> {
    let safe = (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && name != "index"; // `notes://index` is the index
    if safe { Ok(folder().join(format!("{name}.md"))) } else { Err(InvalidName(name.into())) }
}

/// The names of the notes, sorted.
fn note_names() -> Vec<String> {
    let Ok(entries) = fs::read_dir(folder()) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter_map(|file| Some(file.strip_suffix(".md")?.to_owned()))
        .filter(|name| note_path(name).is_ok())
        .collect();
    names.sort();
    names
}

/// The list of notes, one Markdown link per line.
#[mcp_resource(uri = "notes://index", mime_type = "text/markdown")]
fn index() -> String {
    let lines: Vec<String> = note_names().iter().map(|name| format!("- [{name}](notes://{name})")).collect();
    format!("# Notes\n\n{}\n", lines.join("\n"))
}

/// A note, by name.
#[mcp_resource(uri = "notes://{name}", mime_type = "text/markdown", list = list_notes, complete(name = complete_name))]
fn note(
    /// The note's name (its file name without `.md`)
    name: String,
) -> Result<String, ResourceNotFound> {
    let path = note_path(&name).map_err(|_| ResourceNotFound)?;
    fs::read_to_string(path).map_err(|_| ResourceNotFound)
}

/// Every note, for `resources/list`.
fn list_notes() -> Vec<ResourceEntry> {
    note_names()
        .into_iter()
        .map(|name| ResourceEntry::new(format!("notes://{name}"), name).mime_type("text/markdown"))
        .collect()
}

/// Note names starting with what the user typed.
fn complete_name(request: CompletionRequest) -> Vec<String> {
    let names = note_names();
    request.filter(names.iter().map(String::as_str))
}

/// Summarize a note.
#[mcp_prompt(complete(name = complete_name))]
fn summarize_note(
    /// The note to summarize
    name: String,
) -> Result<Vec<PromptMessage>, String> {
    let path = note_path(&name).map_err(|e| e.to_string())?;
    let text = fs::read_to_string(path).map_err(|_| format!("there is no note `{name}`"))?;
    let embedded = EmbeddedResource::new(ResourceContents::text(format!("notes://{name}"), "text/markdown", text));
    Ok(vec![
        PromptMessage::user(format!("Summarize the note `{name}` in three bullet points.")),
        PromptMessage::new(Role::User, embedded),
    ])
}

/// Create a note, or replace the text of an existing one.
#[mcp_tool(idempotent, open_world = false)]
fn add_note(
    /// The note's name: letters, digits, `-` or `_`
    name: String,
    /// The note's Markdown text
    text: String,
    ctx: Context,
) -> Result<String, String> {
    let path = note_path(&name).map_err(|e| e.to_string())?;
    let is_new = !path.exists();
    fs::write(&path, text).map_err(|e| format!("cannot write `{name}`: {e}"))?;
    let server = ctx.server();
    announce(&server, &name, is_new).map_err(|e| e.to_string())?;
    Ok(if is_new { format!("created notes://{name}") } else { format!("updated notes://{name}") })
}

/// Delete a note. The user is asked to confirm first.
#[mcp_tool(destructive, open_world = false, confirm)]
fn delete_note(
    /// The note to delete
    name: String,
    ctx: Context,
) -> Result<String, String> {
    let path = note_path(&name).map_err(|e| e.to_string())?;
    match fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(format!("there is no note `{name}`")),
        Err(e) => return Err(format!("cannot delete `{name}`: {e}")),
    }
    announce(&ctx.server(), &name, true).map_err(|e| e.to_string())?;
    Ok(format!("deleted notes://{name}"))
}

/// Tells subscribers that the note and the index changed, and, when a note appeared or
/// disappeared, every client that `resources/list` changed.
fn announce(server: &ServerHandle, name: &str, list_changed: bool) -> mcp_runtime::Result<()> {
    server.resource_updated(&format!("notes://{name}"))?;
    server.resource_updated("notes://index")?;
    if list_changed {
        // The template enumerates the folder: what it lists changed, not the registry.
        server.resource_list_changed()?;
    }
    Ok(())
}

/// Creates the folder with two sample notes, unless it exists.
fn create_with_samples(folder: &Path) -> io::Result<()> {
    if folder.exists() {
        return Ok(());
    }
    fs::create_dir_all(folder)?;
    fs::write(folder.join("welcome.md"), "# Welcome\n\nThese notes are served over MCP.\n")?;
    fs::write(folder.join("groceries.md"), "# Groceries\n\n- milk\n- bread\n- coffee\n")
}

fn server() -> Server {
    server!()
        .title("Notes")
        .instructions("Read `notes://index` for the list of notes; `add_note` and `delete_note` change them.")
        .resources(resources![index, note])
        .prompts(prompts![summarize_note])
        .tools(tools![add_note, delete_note])
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    let folder = std::env::args_os().nth(1).or_else(|| std::env::var_os("NOTES_DIR")).unwrap_or_else(|| "notes".into());
    let folder = PathBuf::from(folder);
    create_with_samples(&folder)?;
    FOLDER.set(folder).expect("main runs once");
    server().serve_stdio().await
}
