//! Files, within bounds: every path goes through `ctx.path_in_roots` (feature `fs`), which
//! places it beneath the client's root that holds it (relative paths: the first root) and opens
//! it through that root's directory handle, so `..`, absolute paths elsewhere and symlinks out of
//! the root (dangling ones too, even one swapped in after a check) are refused when the file is
//! opened. Reads stop at 1 MiB. A refusal is a tool error result the model can read, never a
//! crash. File names are shown escaped (`evil\nfake_dir`): a name is any bytes but `/` and NUL,
//! and one holding a newline must not pass for two entries of a listing.
//!
//! Run it with `cargo run -p filesystem` from a client that declares the `roots` capability.

use mcp_runtime::prelude::*;
use mcp_runtime::{OutsideRoot, PathInRoot, RootsError};
use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// The largest file `read_file` reads: more would flood the model's context.
const MAX_READ_BYTES: u64 = 1024 * 1024;

/// `path` beneath the client's roots, or why it may not be used.
async fn locate(ctx: &Context, path: &str) -> Result<PathInRoot, String> {
    ctx.path_in_roots(path).await.map_err(|e| e.to_string())
}

/// A file name or path as shown to the client, on one line and unambiguous: the control
/// characters (newlines among them) and the bidirectional overrides, which would make one name
/// look like two or like another, are escaped (`\n`, `\u{1b}`), and so is the backslash.
fn shown(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// A path as shown to the client (see [`shown`]).
fn shown_path(path: &Path) -> String {
    shown(&path.to_string_lossy())
}

/// What went wrong doing `what` on `path`, said the same way for every refusal to leave the roots.
fn failure(what: &str, path: &PathInRoot, err: io::Error) -> String {
    if OutsideRoot::is_cause_of(&err) {
        shown(&RootsError::OutsideRoots(path.display_path()).to_string())
    } else {
        format!("cannot {what} {}: {err}", shown_path(&path.display_path()))
    }
}

/// Read a UTF-8 text file of at most 1 MiB.
#[mcp_tool(read_only, open_world = false)]
async fn read_file(
    /// The file, relative to the first root or absolute
    path: String,
    ctx: Context,
) -> Result<String, String> {
    let path = locate(&ctx, &path).await?;
    path.read_to_string(MAX_READ_BYTES).await.map_err(|e| failure("read", &path, e))
}

/// List a folder: one entry per line, folders ending in `/`.
#[mcp_tool(read_only, open_world = false)]
async fn list_directory(
    /// The folder, relative to the first root or absolute (`.` for the first root)
    path: String,
    ctx: Context,
) -> Result<String, String> {
    let path = locate(&ctx, &path).await?;
    let entries = path.list().await.map_err(|e| failure("list", &path, e))?;
    let names: Vec<String> = entries
        .into_iter()
        .map(|entry| if entry.is_dir { format!("{}/", shown(&entry.name)) } else { shown(&entry.name) })
        .collect();
    Ok(names.join("\n"))
}

/// Write a text file, replacing it if it exists.
#[mcp_tool(destructive, idempotent, open_world = false)]
async fn write_file(
    /// The file, relative to the first root or absolute; its folder must exist
    path: String,
    /// The new contents
    content: String,
    ctx: Context,
) -> Result<String, String> {
    let path = locate(&ctx, &path).await?;
    let length = content.len();
    path.write(content).await.map_err(|e| failure("write", &path, e))?;
    Ok(format!("wrote {length} bytes to {}", shown_path(&path.display_path())))
}

/// Delete a file. The user is asked to confirm first.
#[mcp_tool(destructive, open_world = false, confirm)]
async fn delete_file(
    /// The file, relative to the first root or absolute
    path: String,
    ctx: Context,
) -> Result<String, String> {
    let path = locate(&ctx, &path).await?;
    path.remove_file().await.map_err(|e| failure("delete", &path, e))?;
    Ok(format!("deleted {}", shown_path(&path.display_path())))
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    server!()
        .title("Filesystem")
        .instructions(
            "Paths are relative to the first folder you shared; nothing outside your shared folders is reachable.",
        )
        .tools(tools![read_file, list_directory, write_file, delete_file])
        .serve_stdio()
        .await
}
