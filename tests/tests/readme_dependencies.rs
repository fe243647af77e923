//! Every dependency line of the README and the guide works as written: each `mcp-runtime = ...`
//! line of their `toml` blocks goes into a scratch crate, which `cargo metadata --offline` must resolve.
//!
//! The scratch crate sits beside a link named `mcp-runtime` to this checkout, so the README's
//! pre-release `path = "../mcp-runtime/mcp-runtime"` line resolves as a user's would, and its
//! `[patch.crates-io]` points the three published crates at this checkout, so a version line
//! resolves to what `cargo publish` would upload: its requirement must match the workspace's
//! version and each of its features must exist (after the release, the same line resolves on
//! crates.io).
#![cfg(unix)]

use mcp_tests::external::repo_root;
use std::path::Path;
use std::process::Command;

/// The lines of the README's `toml` blocks that depend on the runtime.
fn dependency_lines(readme: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_toml = false;
    for line in readme.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_toml = trimmed == "```toml";
        } else if in_toml && trimmed.starts_with("mcp-runtime") {
            lines.push(trimmed.to_owned());
        }
    }
    lines
}

/// `cargo metadata --offline` on a scratch crate depending on the runtime by `line`.
fn resolve(root: &Path, line: &str) -> Result<(), String> {
    let checkout = repo_root();
    let scratch = root.join("my-server");
    std::fs::create_dir_all(scratch.join("src")).unwrap();
    std::fs::write(scratch.join("src/main.rs"), "fn main() {}\n").unwrap();
    let manifest = format!(
        "[package]\nname = \"my-server\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [dependencies]\n{line}\n\n\
         [patch.crates-io]\n\
         mcp-runtime = {{ path = \"{0}/mcp-runtime\" }}\n\
         mcp-runtime-macros = {{ path = \"{0}/mcp-macros\" }}\n\
         mcp-runtime-uri-template = {{ path = \"{0}/uri-template\" }}\n\n\
         [workspace]\n",
        checkout.display()
    );
    std::fs::write(scratch.join("Cargo.toml"), manifest).unwrap();
    // The workspace's lock file: resolving needs no index, only the crates already downloaded.
    std::fs::copy(checkout.join("Cargo.lock"), scratch.join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .current_dir(&scratch)
        .output()
        .expect("cargo runs");
    if output.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&output.stderr).into_owned()) }
}

#[test]
fn every_dependency_line_of_the_readme_resolves() {
    // The README and every chapter of the guide.
    let guide = repo_root().join("docs/guide/src");
    let mut pages = vec![repo_root().join("README.md")];
    pages.extend(std::fs::read_dir(&guide).unwrap().map(|entry| entry.unwrap().path()));
    let mut lines: Vec<String> =
        pages.iter().flat_map(|page| dependency_lines(&std::fs::read_to_string(page).unwrap())).collect();
    lines.sort();
    lines.dedup();
    assert!(lines.iter().any(|l| l.contains("path = ")), "the README shows the pre-release path dependency");
    assert!(lines.iter().any(|l| l == "mcp-runtime = \"0.1\""), "the README shows the released dependency");
    let root = std::env::temp_dir().join(format!("mcp-readme-deps-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::os::unix::fs::symlink(repo_root(), root.join("mcp-runtime")).unwrap();
    let failures: Vec<String> =
        lines.iter().filter_map(|line| resolve(&root, line).err().map(|why| format!("`{line}`:\n{why}"))).collect();
    std::fs::remove_dir_all(&root).unwrap();
    assert!(failures.is_empty(), "README lines that do not resolve:\n{}", failures.join("\n"));
}

#[test]
fn a_wrong_feature_or_version_does_not_resolve() {
    // The check is not vacuous: what a typo in the README would write fails.
    let root = std::env::temp_dir().join(format!("mcp-readme-deps-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    assert!(resolve(&root, "mcp-runtime = { version = \"0.1\", features = [\"htp\"] }").is_err());
    assert!(resolve(&root, "mcp-runtime = \"0.2\"").is_err());
    std::fs::remove_dir_all(&root).unwrap();
}
