//! Replication (several HTTP replicas sharing sessions through a store, feature `redis`) sits
//! behind one seam (`transport/http/replication/`): the endpoint, the session and the engine
//! name no store feature, and the core keeps no code alive for the store's sake alone.

use std::path::{Path, PathBuf};

fn runtime_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-runtime/src")
}

/// The `.rs` files at `path` (a file, or every file beneath a folder), relative to the runtime's `src`.
fn sources(path: &str) -> Vec<(String, String)> {
    let root = runtime_src();
    let mut pending = vec![root.join(path)];
    let mut found = Vec::new();
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            pending.extend(std::fs::read_dir(&path).unwrap().map(|entry| entry.unwrap().path()));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            found.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    assert!(!found.is_empty(), "no sources at {path}");
    found
}

/// Lines of `files` that mention `needle`, as `file:line: text`.
fn lines_with(files: &[&str], needle: impl Fn(&str) -> bool) -> Vec<String> {
    let mut hits = Vec::new();
    for file in files {
        for (name, text) in sources(file) {
            for (number, line) in text.lines().enumerate() {
                if needle(line) {
                    hits.push(format!("{name}:{}: {}", number + 1, line.trim()));
                }
            }
        }
    }
    hits
}

#[test]
fn the_endpoint_the_session_and_the_engine_name_no_store_feature() {
    let files = ["transport/http/endpoint.rs", "transport/http/session.rs", "engine"];
    let hits = lines_with(&files, |line| line.contains("feature = \"redis\""));
    assert!(hits.is_empty(), "replication belongs behind transport/http/replication/:\n{}", hits.join("\n"));
}

/// Nor code alive for any feature's sake: what a transport or a store alone uses is compiled
/// with it (`#[cfg(feature = ..)]`) or lives with it, never allowed to be dead without it.
#[test]
fn the_core_keeps_no_code_alive_for_a_feature_alone() {
    let files = [
        "session",
        "registry.rs",
        "type_map.rs",
        "tasks",
        "engine",
        "router",
        "server",
        "context.rs",
        "settings.rs",
        "store.rs",
        "sync.rs",
    ];
    let hits = lines_with(&files, |line| line.contains("allow(dead_code)") && line.contains("feature"));
    assert!(hits.is_empty(), "what only a feature uses is compiled with it:\n{}", hits.join("\n"));
}
