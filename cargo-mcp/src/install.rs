//! `cargo mcp install`: a server added to an MCP client's configuration file, in the shape that
//! client documents, leaving every other key, comment and the file's indentation as they were.
//!
//! | client | file | servers under | stdio entry | HTTP entry |
//! |---|---|---|---|---|
//! | Claude Desktop | `claude_desktop_config.json` in its settings folder | `mcpServers` | `command`, `args` | through `npx mcp-remote URL` (its file has no remote servers) |
//! | Claude Code | `.mcp.json` (project), `~/.claude.json` (user) | `mcpServers` | `type: "stdio"`, `command`, `args`, `env` | `type: "http"`, `url` |
//! | VS Code | `.vscode/mcp.json` (workspace), the profile's `mcp.json` (user) | `servers` | `type: "stdio"`, `command`, `args` | `type: "http"`, `url` |
//! | Cursor | `.cursor/mcp.json` (project), `~/.cursor/mcp.json` (user) | `mcpServers` | `command`, `args`, `env` | `url` |

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// An MCP client whose configuration file `cargo mcp install` edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Desktop: `claude_desktop_config.json`.
    ClaudeDesktop,
    /// Claude Code: `.mcp.json` in the project, or `~/.claude.json` with `--scope user`.
    ClaudeCode,
    /// VS Code (Copilot agent mode): `.vscode/mcp.json`, or the user profile's `mcp.json`.
    Vscode,
    /// Cursor: `.cursor/mcp.json` in the project, or `~/.cursor/mcp.json` with `--scope user`.
    Cursor,
}

/// Whose configuration: the project's (a file in the repository) or the user's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// A file in the project, to commit and share (Claude Desktop has none: its file is the user's).
    #[default]
    Project,
    /// The user's own file, for every project.
    User,
}

/// How the client reaches the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// The client starts `command` with `args` and speaks over its stdin and stdout.
    Stdio {
        /// The program, best an absolute path.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint's URL, e.g. `http://127.0.0.1:8080/mcp`.
        url: String,
    },
}

impl Client {
    /// How a project's own file (`Scope::Project`, to commit and share) names `program` when it
    /// lies in the project's folder `root`: relative to it, never one machine's absolute path.
    /// VS Code and Cursor expand `${workspaceFolder}`; Claude Code starts a project's servers in
    /// the project's folder, where `./target/...` is found. `None` for a program outside `root`,
    /// and for Claude Desktop, which has no project file.
    pub fn project_command(self, program: &Path, root: &Path) -> Option<String> {
        let relative = program.strip_prefix(root).ok()?;
        let parts: Option<Vec<&str>> = relative.components().map(|c| c.as_os_str().to_str()).collect();
        let relative = parts?.join("/");
        match self {
            Client::ClaudeCode => Some(format!("./{relative}")),
            Client::Vscode | Client::Cursor => Some(format!("${{workspaceFolder}}/{relative}")),
            Client::ClaudeDesktop => None,
        }
    }

    /// The client's name as people write it.
    pub fn title(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::ClaudeCode => "Claude Code",
            Client::Vscode => "VS Code",
            Client::Cursor => "Cursor",
        }
    }

    /// The member of the file that maps server names to their entries.
    pub fn servers_key(self) -> &'static str {
        match self {
            Client::Vscode => "servers",
            _ => "mcpServers",
        }
    }

    /// The entry for a server, as this client documents it.
    pub fn entry(self, transport: &Transport) -> Value {
        match (self, transport) {
            (Client::ClaudeDesktop | Client::Cursor, Transport::Stdio { command, args }) => {
                json!({"command": command, "args": args})
            }
            (Client::ClaudeCode | Client::Vscode, Transport::Stdio { command, args }) => {
                json!({"type": "stdio", "command": command, "args": args})
            }
            (Client::ClaudeCode | Client::Vscode, Transport::Http { url }) => json!({"type": "http", "url": url}),
            (Client::Cursor, Transport::Http { url }) => json!({"url": url}),
            // Claude Desktop's file lists local processes only; mcp-remote (npm) bridges to HTTP.
            (Client::ClaudeDesktop, Transport::Http { url }) => {
                json!({"command": "npx", "args": ["-y", "mcp-remote", url]})
            }
        }
    }

    /// The file this client reads, for `scope`. `project` is the project's root; `home` the
    /// user's home folder (`None` when unknown).
    pub fn config_path(self, scope: Scope, project: &Path, home: Option<&Path>) -> Result<PathBuf, String> {
        let home = || {
            home.map(Path::to_path_buf)
                .ok_or_else(|| "cannot tell your home folder (HOME is not set): pass --config PATH".to_owned())
        };
        Ok(match (self, scope) {
            (Client::ClaudeDesktop, _) => {
                if cfg!(target_os = "macos") {
                    home()?.join("Library/Application Support/Claude/claude_desktop_config.json")
                } else if cfg!(windows) {
                    let appdata = std::env::var_os("APPDATA")
                        .ok_or_else(|| "APPDATA is not set: pass --config PATH".to_owned())?;
                    PathBuf::from(appdata).join("Claude").join("claude_desktop_config.json")
                } else {
                    // Linux has no official build; the community ones read this file.
                    home()?.join(".config/Claude/claude_desktop_config.json")
                }
            }
            (Client::ClaudeCode, Scope::Project) => project.join(".mcp.json"),
            (Client::ClaudeCode, Scope::User) => home()?.join(".claude.json"),
            (Client::Vscode, Scope::Project) => project.join(".vscode").join("mcp.json"),
            (Client::Vscode, Scope::User) => {
                if cfg!(target_os = "macos") {
                    home()?.join("Library/Application Support/Code/User/mcp.json")
                } else if cfg!(windows) {
                    let appdata = std::env::var_os("APPDATA")
                        .ok_or_else(|| "APPDATA is not set: pass --config PATH".to_owned())?;
                    PathBuf::from(appdata).join("Code").join("User").join("mcp.json")
                } else {
                    home()?.join(".config/Code/User/mcp.json")
                }
            }
            (Client::Cursor, Scope::Project) => project.join(".cursor").join("mcp.json"),
            (Client::Cursor, Scope::User) => home()?.join(".cursor").join("mcp.json"),
        })
    }
}

/// What an edit did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The server was not there; now it is.
    Added,
    /// A server of that name was there with another entry; it has this one now.
    Replaced,
    /// The file already had this very entry: nothing to write.
    Unchanged,
}

/// The file's text with `entry` under `servers_key`.`name`: other keys, comments and the
/// indentation are kept. An empty text is a new file. Errors say what is wrong with the file.
pub fn edit(text: &str, servers_key: &str, name: &str, entry: &Value) -> Result<(String, Outcome), String> {
    // A new file starts as an empty object, indented by two spaces.
    let text = if text.trim().is_empty() { "{\n}\n" } else { text };
    let root = CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| format!("it is not valid JSON: {e}"))?;
    let object = root.object_value().ok_or("its top level is not a JSON object")?;
    let servers = object
        .object_value_or_create(servers_key)
        .ok_or_else(|| format!("its `{servers_key}` member is not a JSON object"))?;
    let outcome = match servers.get(name) {
        Some(existing) if existing.value().and_then(|v| v.to_serde_value()).as_ref() == Some(entry) => {
            return Ok((text.to_owned(), Outcome::Unchanged));
        }
        Some(existing) => {
            existing.set_value(input_value(entry));
            Outcome::Replaced
        }
        None => {
            servers.append(name, input_value(entry));
            Outcome::Added
        }
    };
    let mut edited = root.to_string();
    if !edited.ends_with('\n') {
        edited.push('\n');
    }
    Ok((edited, outcome))
}

/// The configuration file's text: empty when there is none yet. A symbolic link is refused,
/// naming it and its target: writing through it would change a file the command was not
/// pointed at (a link planted in a project could aim at any file of the user's).
pub fn read(config: &Path) -> Result<String, String> {
    refuse_link(config)?;
    match std::fs::read_to_string(config) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(format!("cannot read {}: {e}", config.display())),
    }
}

/// Writes the configuration file whole or not at all: into a new file beside it (the same
/// folder, so the same file system), then renamed over it, which replaces the name itself
/// and never follows a link. A symbolic link is refused as by [`read`]; an existing file's
/// permissions are kept.
pub fn write(config: &Path, text: &str) -> Result<(), String> {
    use std::io::Write as _;
    refuse_link(config)?;
    let folder = config.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    let name = config.file_name().ok_or_else(|| format!("{} names no file", config.display()))?;
    let temporary = folder.join(format!(".{}.cargo-mcp-{}.tmp", name.to_string_lossy(), std::process::id()));
    let written = (|| {
        // `create_new`: a file (or a link) already at the temporary name is not written through.
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temporary)?;
        file.write_all(text.as_bytes())?;
        if let Ok(existing) = std::fs::metadata(config) {
            file.set_permissions(existing.permissions())?;
        }
        file.sync_all()?;
        std::fs::rename(&temporary, config)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot write {}: {e}", config.display())
    })
}

fn refuse_link(config: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(config) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::read_link(config).map(|t| t.display().to_string()).unwrap_or_else(|_| "?".into());
            Err(format!(
                "{} is a symbolic link to {target}: cargo mcp install does not write through links; \
                 pass the file itself with --config, or replace the link with a file",
                config.display()
            ))
        }
        _ => Ok(()),
    }
}

/// A unified diff of the file's change, for the terminal.
pub fn diff(path: &Path, before: &str, after: &str) -> String {
    let shown = path.display().to_string();
    similar::TextDiff::from_lines(before, after).unified_diff().context_radius(3).header(&shown, &shown).to_string()
}

fn input_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input_value).collect()),
        Value::Object(map) => {
            let mut members: Vec<(String, CstInputValue)> =
                map.iter().map(|(k, v)| (k.clone(), input_value(v))).collect();
            members.sort_by_key(|(k, _)| KEY_ORDER.iter().position(|known| known == k).unwrap_or(KEY_ORDER.len()));
            CstInputValue::Object(members)
        }
    }
}

/// The order the clients' documentation writes an entry's members in.
const KEY_ORDER: &[&str] = &["type", "command", "args", "env", "url", "headers"];

/// The server crate `install` adds: its name, its release binary and the project's root.
#[derive(Clone, Debug)]
pub struct ServerCrate {
    /// The package's name.
    pub name: String,
    /// The binary target's name.
    pub bin: String,
    /// `target/release/<bin>` of its workspace.
    pub release_binary: PathBuf,
    /// `target/debug/<bin>` of its workspace.
    pub debug_binary: PathBuf,
    /// The workspace root, where project configuration files go.
    pub workspace_root: PathBuf,
    /// The package's entry in `cargo metadata` (description, authors, `metadata`...), for `pack`.
    pub package: Value,
}

/// Runs `cargo build` for the crate's binary (`--release` or not), its output on stderr.
pub fn build(found: &ServerCrate, release: bool) -> Result<(), String> {
    let profile = if release { "release" } else { "debug" };
    crate::terminal::eprint(format_args!("Building {} ({profile})...\n", found.name));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(cargo);
    command.args(["build", "-p", &found.name, "--bin", &found.bin]).current_dir(&found.workspace_root);
    if release {
        command.arg("--release");
    }
    let status = command.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo build` of {} failed (its errors are above)", found.name))
    }
}

/// The crate in the current directory (or `manifest_path`), from `cargo metadata`. `package`
/// and `bin` choose among several.
pub fn find_crate(
    manifest_path: Option<&Path>,
    package: Option<&str>,
    bin: Option<&str>,
) -> Result<ServerCrate, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(cargo);
    command.args(["metadata", "--format-version", "1", "--no-deps"]);
    if let Some(path) = manifest_path {
        command.arg("--manifest-path").arg(path);
    }
    let output = command.output().map_err(|e| format!("cannot run `cargo metadata`: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo metadata` failed (run this in your server's crate, or pass --manifest-path, or --command PATH / --http URL):\n{}",
            String::from_utf8_lossy(&output.stderr).trim_end()
        ));
    }
    let metadata: Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("cannot read `cargo metadata`'s output: {e}"))?;
    let cwd = std::env::current_dir().map_err(|e| format!("cannot tell the current directory: {e}"))?;
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let package_dir = |p: &Value| Path::new(p["manifest_path"].as_str().unwrap_or("")).parent().map(Path::to_path_buf);
    let chosen = match package {
        Some(name) => packages.iter().find(|p| p["name"] == name),
        None => match manifest_path {
            Some(path) => {
                let wanted = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
                packages.iter().find(|p| Path::new(p["manifest_path"].as_str().unwrap_or("")) == wanted)
            }
            // The package whose folder holds the current directory, the innermost one.
            None => packages
                .iter()
                .filter(|p| package_dir(p).is_some_and(|dir| cwd.starts_with(dir)))
                .max_by_key(|p| package_dir(p).map(|d| d.components().count())),
        },
    };
    let names = || packages.iter().filter_map(|p| p["name"].as_str()).collect::<Vec<_>>().join(", ");
    let chosen = chosen.ok_or_else(|| {
        format!(
            "which server? run this in its crate's folder, or pass --package NAME (this workspace has: {})",
            names()
        )
    })?;
    let name = chosen["name"].as_str().unwrap_or("").to_owned();
    let bins: Vec<&str> = chosen["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "bin")))
        .filter_map(|t| t["name"].as_str())
        .collect();
    let bin = match (bin, bins.as_slice()) {
        (Some(wanted), _) if bins.contains(&wanted) => wanted.to_owned(),
        (Some(wanted), _) => {
            return Err(format!("`{name}` has no binary `{wanted}`; its binaries: {}", bins.join(", ")));
        }
        (None, [only]) => (*only).to_owned(),
        (None, []) => {
            return Err(format!("`{name}` has no binary to run: an MCP server over stdio is a `src/main.rs`"));
        }
        (None, several) => {
            return Err(format!("`{name}` has several binaries; choose one with --bin ({})", several.join(", ")));
        }
    };
    let target = PathBuf::from(metadata["target_directory"].as_str().unwrap_or("target"));
    let file = format!("{bin}{}", std::env::consts::EXE_SUFFIX);
    Ok(ServerCrate {
        release_binary: target.join("release").join(&file),
        debug_binary: target.join("debug").join(&file),
        workspace_root: PathBuf::from(metadata["workspace_root"].as_str().unwrap_or(".")),
        package: chosen.clone(),
        name,
        bin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio() -> Transport {
        Transport::Stdio { command: "/bin/calc".into(), args: vec![] }
    }

    #[test]
    fn each_client_gets_its_documented_shape() {
        assert_eq!(Client::ClaudeDesktop.entry(&stdio()), json!({"command": "/bin/calc", "args": []}));
        assert_eq!(Client::ClaudeCode.entry(&stdio()), json!({"type": "stdio", "command": "/bin/calc", "args": []}));
        assert_eq!(Client::Vscode.entry(&stdio()), json!({"type": "stdio", "command": "/bin/calc", "args": []}));
        assert_eq!(Client::Cursor.entry(&stdio()), json!({"command": "/bin/calc", "args": []}));
        let http = Transport::Http { url: "http://127.0.0.1:8080/mcp".into() };
        assert_eq!(Client::ClaudeCode.entry(&http), json!({"type": "http", "url": "http://127.0.0.1:8080/mcp"}));
        assert_eq!(Client::Vscode.entry(&http), json!({"type": "http", "url": "http://127.0.0.1:8080/mcp"}));
        assert_eq!(Client::Cursor.entry(&http), json!({"url": "http://127.0.0.1:8080/mcp"}));
        assert_eq!(Client::ClaudeDesktop.entry(&http)["args"][2], "http://127.0.0.1:8080/mcp");
        assert_eq!(Client::Vscode.servers_key(), "servers");
    }

    #[test]
    fn a_project_file_names_the_binary_relative_to_the_project() {
        let (root, binary) = (Path::new("/home/ada/todo"), Path::new("/home/ada/todo/target/release/todo"));
        assert_eq!(Client::ClaudeCode.project_command(binary, root).as_deref(), Some("./target/release/todo"));
        assert_eq!(
            Client::Vscode.project_command(binary, root).as_deref(),
            Some("${workspaceFolder}/target/release/todo")
        );
        assert_eq!(
            Client::Cursor.project_command(binary, root).as_deref(),
            Some("${workspaceFolder}/target/release/todo")
        );
        assert_eq!(Client::ClaudeCode.project_command(Path::new("/opt/target/todo"), root), None, "outside");
        assert_eq!(Client::ClaudeDesktop.project_command(binary, root), None, "no project file");
    }

    #[test]
    fn default_paths() {
        let (project, home) = (Path::new("/p"), Some(Path::new("/h")));
        assert_eq!(Client::ClaudeCode.config_path(Scope::Project, project, home).unwrap(), Path::new("/p/.mcp.json"));
        assert_eq!(Client::ClaudeCode.config_path(Scope::User, project, home).unwrap(), Path::new("/h/.claude.json"));
        assert_eq!(
            Client::Vscode.config_path(Scope::Project, project, home).unwrap(),
            Path::new("/p/.vscode/mcp.json")
        );
        assert_eq!(
            Client::Cursor.config_path(Scope::Project, project, home).unwrap(),
            Path::new("/p/.cursor/mcp.json")
        );
        assert_eq!(Client::Cursor.config_path(Scope::User, project, home).unwrap(), Path::new("/h/.cursor/mcp.json"));
        assert!(Client::Cursor.config_path(Scope::User, project, None).unwrap_err().contains("--config"));
    }

    #[test]
    fn a_new_file_is_made() {
        let entry = json!({"command": "/bin/calc", "args": []});
        let (text, outcome) = edit("", "mcpServers", "calc", &entry).unwrap();
        assert_eq!(outcome, Outcome::Added);
        assert_eq!(
            text,
            "{\n  \"mcpServers\": {\n    \"calc\": {\n      \"command\": \"/bin/calc\",\n      \"args\": []\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn other_keys_comments_and_order_are_kept_and_a_second_run_changes_nothing() {
        let before = "{\n    // mine\n    \"theme\": \"dark\",\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"}\n    },\n    \"after\": [1, 2]\n}\n";
        let entry = json!({"type": "stdio", "command": "/bin/calc", "args": []});
        let (after, outcome) = edit(before, "mcpServers", "calc", &entry).unwrap();
        assert_eq!(outcome, Outcome::Added);
        assert!(after.starts_with("{\n    // mine\n    \"theme\": \"dark\",\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"},\n"), "{after}");
        assert!(after.ends_with("    \"after\": [1, 2]\n}\n"), "{after}");
        let value =
            jsonc_parser::cst::CstRootNode::parse(&after, &ParseOptions::default()).unwrap().to_serde_value().unwrap();
        assert_eq!(value["mcpServers"]["calc"], entry);
        assert_eq!(value["mcpServers"]["other"], json!({"command": "x"}));
        let (again, outcome) = edit(&after, "mcpServers", "calc", &entry).unwrap();
        assert_eq!((again.as_str(), outcome), (after.as_str(), Outcome::Unchanged));
        let moved = json!({"type": "stdio", "command": "/opt/calc", "args": []});
        let (replaced, outcome) = edit(&after, "mcpServers", "calc", &moved).unwrap();
        assert_eq!(outcome, Outcome::Replaced);
        assert!(replaced.contains("/opt/calc") && !replaced.contains("/bin/calc"), "{replaced}");
    }

    #[test]
    fn a_broken_file_is_refused() {
        let entry = json!({});
        assert!(edit("{ nope", "servers", "a", &entry).unwrap_err().contains("not valid JSON"));
        assert!(edit("[1]", "servers", "a", &entry).unwrap_err().contains("not a JSON object"));
        assert!(edit(r#"{"servers": 3}"#, "servers", "a", &entry).unwrap_err().contains("`servers`"));
    }

    #[test]
    fn the_diff_shows_the_lines_added() {
        let shown = diff(Path::new("x.json"), "{\n}\n", "{\n  \"a\": 1\n}\n");
        assert!(shown.contains("--- x.json") && shown.contains("+  \"a\": 1"), "{shown}");
    }
}
