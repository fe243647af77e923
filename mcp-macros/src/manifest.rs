//! What the user's `Cargo.toml` says, for error messages only: whether the crate depends on a
//! schemars older than the 1.x that mcp-runtime reads. A `JsonSchema` derived with schemars 0.8
//! is another trait, so a type deriving it is "not `JsonSchema`" to the runtime; the message
//! should name the version rather than ask for a derive the user already wrote.
//!
//! The manifest is read, not parsed: the few forms a dependency is written in (`schemars =
//! "0.8"`, `{ version = "0.8", .. }`, `[dependencies.schemars]`, `workspace = true` with the
//! workspace's `[workspace.dependencies]`). Anything else reads as "not older", which keeps the
//! general message.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Whether the crate being compiled depends on schemars 0.x. Read once per crate (a proc-macro
/// server such as rust-analyzer's expands several crates in one process).
pub(crate) fn depends_on_old_schemars() -> bool {
    static READ: Mutex<Option<(PathBuf, bool)>> = Mutex::new(None);
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else { return false };
    let mut read = READ.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((cached, old)) = read.as_ref()
        && *cached == dir
    {
        return *old;
    }
    let old = requirement_of(&dir).is_some_and(|version| is_before_1(&version));
    *read = Some((dir, old));
    old
}

/// How the manifest in `dir` asks for schemars: a version requirement, found in the manifest or
/// in its workspace's.
fn requirement_of(dir: &Path) -> Option<String> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    match schemars_in(&manifest, |table| table != "workspace.dependencies")? {
        Requirement::Version(version) => Some(version),
        Requirement::Workspace => dir.ancestors().skip(1).find_map(|parent| {
            let root = std::fs::read_to_string(parent.join("Cargo.toml")).ok()?;
            match schemars_in(&root, |table| table == "workspace.dependencies")? {
                Requirement::Version(version) => Some(version),
                Requirement::Workspace => None,
            }
        }),
    }
}

#[derive(Debug, PartialEq)]
enum Requirement {
    Version(String),
    /// `workspace = true`: the workspace's `[workspace.dependencies]` says.
    Workspace,
}

/// The `schemars` dependency of the dependency tables `wanted` accepts (named without brackets:
/// `dependencies`, `target.'cfg(unix)'.dependencies`, `workspace.dependencies`).
fn schemars_in(manifest: &str, wanted: impl Fn(&str) -> bool) -> Option<Requirement> {
    let mut table = String::new();
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if let Some(header) = line.strip_prefix('[') {
            table = header.trim_end_matches(']').trim().to_owned();
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((key, value)) => (key.trim(), value.trim()),
            None => continue,
        };
        if let Some(dependencies) = table.strip_suffix(".schemars") {
            // `[dependencies.schemars]` then `version = "0.8"` or `workspace = true`
            if dependencies.ends_with("dependencies") && wanted(dependencies) {
                match key {
                    "version" => return quoted(value).map(Requirement::Version),
                    "workspace" if value == "true" => return Some(Requirement::Workspace),
                    _ => {}
                }
            }
        } else if table.ends_with("dependencies") && wanted(&table) {
            match key {
                "schemars" => return inline(value),
                "schemars.workspace" if value == "true" => return Some(Requirement::Workspace),
                _ => {}
            }
        }
    }
    None
}

/// `"0.8"` or `{ version = "0.8", .. }` or `{ workspace = true }`.
fn inline(value: &str) -> Option<Requirement> {
    if let Some(version) = quoted(value) {
        return Some(Requirement::Version(version));
    }
    let table = value.strip_prefix('{')?.trim_end_matches('}');
    for entry in table.split(',') {
        let Some((key, value)) = entry.split_once('=') else { continue };
        match key.trim() {
            "version" => return quoted(value.trim()).map(Requirement::Version),
            "workspace" if value.trim() == "true" => return Some(Requirement::Workspace),
            _ => {}
        }
    }
    None
}

/// The text of a TOML basic or literal string.
fn quoted(value: &str) -> Option<String> {
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &value[1..];
    rest.find(quote).map(|end| rest[..end].to_owned())
}

/// Whether a version requirement (`0.8`, `^0.8.21`, `=0.8.22`, `~0.8`) asks for a 0.x.
fn is_before_1(requirement: &str) -> bool {
    requirement.trim_start_matches(['^', '~', '=', ' ']).starts_with("0.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(manifest: &str) -> Option<Requirement> {
        schemars_in(manifest, |table| table != "workspace.dependencies")
    }

    #[test]
    fn each_way_of_writing_the_dependency() {
        let version = |v: &str| Some(Requirement::Version(v.to_owned()));
        assert_eq!(find("[dependencies]\nschemars = \"0.8\"\n"), version("0.8"));
        assert_eq!(
            find("[dependencies]\nschemars = { version = \"0.8.21\", features = [\"uuid1\"] }"),
            version("0.8.21")
        );
        assert_eq!(find("[dependencies.schemars]\nfeatures = [\"a\"]\nversion = '0.8'\n"), version("0.8"));
        assert_eq!(find("[target.'cfg(unix)'.dependencies]\nschemars = \"1\""), version("1"));
        assert_eq!(find("[dependencies]\nschemars.workspace = true"), Some(Requirement::Workspace));
        assert_eq!(find("[dependencies]\nschemars = { workspace = true }"), Some(Requirement::Workspace));
        assert_eq!(find("[dependencies]\nserde = \"1\"\n[features]\nschemars = []"), None);
        assert_eq!(find("[dependencies]\n# schemars = \"0.8\"\nschemars_derive = \"0.8\""), None);
        assert_eq!(find("[workspace.dependencies]\nschemars = \"0.8\""), None, "a member's own tables only");
    }

    #[test]
    fn versions_before_1() {
        assert!(is_before_1("0.8") && is_before_1("^0.8.21") && is_before_1("=0.8.22") && is_before_1("~0.7"));
        assert!(!is_before_1("1") && !is_before_1("1.0.0-alpha.17") && !is_before_1("^1.2"));
    }

    #[test]
    fn a_workspace_dependency_is_looked_up_in_the_workspace() {
        let root = std::env::temp_dir().join(format!("mcp-macros-manifest-{}", std::process::id()));
        let member = root.join("member");
        std::fs::create_dir_all(&member).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[workspace]\n[workspace.dependencies]\nschemars = \"0.8\"\n").unwrap();
        std::fs::write(
            member.join("Cargo.toml"),
            "[package]\nname = \"m\"\n[dependencies]\nschemars.workspace = true\n",
        )
        .unwrap();
        assert_eq!(requirement_of(&member).as_deref(), Some("0.8"));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
