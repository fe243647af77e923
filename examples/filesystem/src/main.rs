//! Files, within bounds: every path goes through `ctx.resolve_in_roots`, which resolves it
//! (relative paths against the client's first root), follows `..` and symlinks, and refuses
//! anything outside the folders the client shared as its roots. A refusal is a tool error
//! result the model can read, never a crash.
//!
//! Run it with `cargo run -p filesystem` from a client that declares the `roots` capability.

use mcp_runtime::prelude::*;
use std::path::PathBuf;
use tokio::fs;

/// `path` resolved inside the client's roots, or why it may not be used.
async fn resolve(ctx: &Context, path: &str) -> Result<PathBuf, String> {
    ctx.resolve_in_roots(path).await.map_err(|e| e.to_string())
}

/// Read a UTF-8 text file.
#[mcp_tool(read_only, open_world = false)]
async fn read_file(
    /// The file, relative to the first root or absolute
    path: String,
    ctx: Context,
) -> Result<String, String> {
    let path = resolve(&ctx, &path).await?;
    fs::read_to_string(&path).await.map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// List a folder: one entry per line, folders ending in `/`.
#[mcp_tool(read_only, open_world = false)]
async fn list_directory(
    /// The folder, relative to the first root or absolute (`.` for the first root)
    path: String,
    ctx: Context,
) -> Result<String, String> {
    let path = resolve(&ctx, &path).await?;
    let mut entries = fs::read_dir(&path).await.map_err(|e| format!("cannot list {}: {e}", path.display()))?;
    let mut names = Vec::new();
    while let Ok(Some(entry)) = entries.next_entry().await {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().await.is_ok_and(|t| t.is_dir());
        names.push(if is_dir { format!("{name}/") } else { name });
    }
    names.sort();
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
    let path = resolve(&ctx, &path).await?;
    fs::write(&path, &content).await.map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(format!("wrote {} bytes to {}", content.len(), path.display()))
}

/// Delete a file. The user is asked to confirm first.
#[mcp_tool(destructive, open_world = false, confirm)]
async fn delete_file(
    /// The file, relative to the first root or absolute
    path: String,
    ctx: Context,
) -> Result<String, String> {
    let path = resolve(&ctx, &path).await?;
    fs::remove_file(&path).await.map_err(|e| format!("cannot delete {}: {e}", path.display()))?;
    Ok(format!("deleted {}", path.display()))
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
