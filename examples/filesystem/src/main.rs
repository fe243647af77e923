//! Files, within bounds: every path goes through `ctx.path_in_roots` (feature `fs`), which
//! places it beneath the client's root that holds it (relative paths: the first root) and opens
//! it through that root's directory handle, so `..`, absolute paths elsewhere and symlinks out of
//! the root (dangling ones too, even one swapped in after a check) are refused when the file is
//! opened. Reads stop at 1 MiB. A refusal is a tool error result the model can read, never a
//! crash.
//!
//! Run it with `cargo run -p filesystem` from a client that declares the `roots` capability.

use mcp_runtime::prelude::*;
use mcp_runtime::{OutsideRoot, PathInRoot, RootsError};
use std::io;

/// The largest file `read_file` reads: more would flood the model's context.
const MAX_READ_BYTES: u64 = 1024 * 1024;

/// `path` beneath the client's roots, or why it may not be used.
async fn locate(ctx: &Context, path: &str) -> Result<PathInRoot, String> {
    ctx.path_in_roots(path).await.map_err(|e| e.to_string())
}

/// What went wrong doing `what` on `path`, said the same way for every refusal to leave the roots.
fn failure(what: &str, path: &PathInRoot, err: io::Error) -> String {
    if OutsideRoot::is_cause_of(&err) {
        RootsError::OutsideRoots(path.display_path()).to_string()
    } else {
        format!("cannot {what} {}: {err}", path.display_path().display())
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
    let names: Vec<String> =
        entries.into_iter().map(|entry| if entry.is_dir { format!("{}/", entry.name) } else { entry.name }).collect();
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
    Ok(format!("wrote {length} bytes to {}", path.display_path().display()))
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
    Ok(format!("deleted {}", path.display_path().display()))
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
