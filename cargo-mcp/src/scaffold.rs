//! `cargo mcp new`: a server crate that builds, runs and passes its own test at once.
//!
//! `mcp-runtime` is not on crates.io yet, so the generated `Cargo.toml` depends on it by path:
//! the runtime source this `cargo-mcp` was built from, unless `--runtime-path` or
//! `--runtime-version` says otherwise.

use std::path::{Path, PathBuf};

/// Where the generated crate takes `mcp-runtime` from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// A folder holding the runtime's `Cargo.toml`.
    Path(PathBuf),
    /// A version requirement on crates.io (`"0.1"`).
    Version(String),
}

impl Runtime {
    /// The runtime source this `cargo-mcp` was built from: `mcp-runtime/` beside `cargo-mcp/`.
    pub fn built_from() -> Result<Runtime, String> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("mcp-runtime");
        match path.canonicalize() {
            Ok(path) if path.join("Cargo.toml").is_file() => Ok(Runtime::Path(path)),
            _ => Err(format!(
                "the runtime source this cargo-mcp was built from ({}) is gone: pass --runtime-path DIR (a checkout's mcp-runtime/) or --runtime-version VERSION",
                path.display()
            )),
        }
    }

    fn dependency(&self, transport: Transport) -> String {
        let features = match transport {
            Transport::Stdio => "",
            Transport::Http => ", features = [\"http\"]",
        };
        match self {
            Runtime::Path(path) => {
                format!("mcp-runtime = {{ path = \"{}\"{features} }}", toml_escape(&path.display().to_string()))
            }
            Runtime::Version(version) => {
                format!("mcp-runtime = {{ version = \"{}\"{features} }}", toml_escape(version))
            }
        }
    }
}

fn toml_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Rust's keywords, which `cargo new` refuses as crate names too.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn", "else",
    "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod",
    "move", "mut", "override", "priv", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true",
    "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Names that would shadow a crate the server needs.
const TAKEN: &[&str] = &["test", "std", "core", "alloc", "proc_macro", "mcp_runtime", "serde_json", "tokio"];

/// Checks `name` as a crate (and binary) name, with a message that says what would do.
pub fn check_name(name: &str) -> Result<(), String> {
    let advice = "use letters, digits, `-` and `_`, starting with a letter, e.g. `weather-server`";
    let Some(first) = name.chars().next() else {
        return Err(format!("the crate name is empty: {advice}"));
    };
    if !first.is_ascii_alphabetic() {
        return Err(format!("`{name}` is not a valid crate name: it must start with a letter ({advice})"));
    }
    if let Some(bad) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
        return Err(format!("`{name}` is not a valid crate name: `{bad}` is not allowed ({advice})"));
    }
    let ident = name.replace('-', "_");
    if KEYWORDS.contains(&ident.as_str()) {
        return Err(format!("`{name}` is a Rust keyword and cannot name a crate: try `{name}-server`"));
    }
    if TAKEN.contains(&ident.as_str()) {
        return Err(format!("`{name}` would shadow a crate the server uses: try `{name}-server`"));
    }
    Ok(())
}

/// How the generated server is served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Transport {
    /// stdio: the client starts the binary (what desktop clients do).
    #[default]
    Stdio,
    /// Streamable HTTP at `http://127.0.0.1:8080/mcp` (`PORT` changes the port), with an
    /// `HttpConfig` to change what it allows.
    Http,
}

/// The generated files, relative to the crate's folder.
pub fn files(name: &str, runtime: &Runtime, transport: Transport) -> Vec<(&'static str, String)> {
    // serde and schemars are the crates the prelude's `Deserialize`, `Serialize` and
    // `JsonSchema` derives expand to paths of: without them a derive cannot find its crate.
    let cargo_toml = format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
{dependency}
serde = {{ version = "1", features = ["derive"] }}
schemars = "1"

[dev-dependencies]
serde_json = "1"
"#,
        dependency = runtime.dependency(transport)
    );
    let (header, main_fn) = match transport {
        Transport::Stdio => (
            format!(
                r#"//! {name}: an MCP server over stdio.
//!
//! Try it: `cargo mcp call --stdio target/debug/{name} greet name=Ada tone=excited`
//! Add it to a client: `cargo build --release && cargo mcp install claude-code`"#
            ),
            r#"// Served over stdio, whose connection has a thread of its own: one runtime thread is enough,
// and the server starts sooner. For HTTP, drop `flavor` (connections need the workers).
#[mcp_runtime::main(flavor = "current_thread")]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    server!().tools(tools![greet]).serve_stdio().await
}"#
            .to_owned(),
        ),
        Transport::Http => (
            format!(
                r#"//! {name}: an MCP server over Streamable HTTP, at http://127.0.0.1:8080/mcp (`PORT` changes
//! the port). It stops on Ctrl-C or SIGTERM, letting calls in flight finish.
//!
//! Try it: `cargo run`, then `cargo mcp call --http http://127.0.0.1:8080/mcp greet name=Ada`
//! Add it to a client: `cargo mcp install claude-code --http http://127.0.0.1:8080/mcp`"#
            ),
            r#"#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    let port = std::env::var("PORT").unwrap_or_else(|_| "8080".into());
    // What the endpoint allows: `.allow_host("mcp.example.com")` behind a proxy, `.auth(..)`
    // for OAuth bearer tokens (feature `auth`), `.max_sessions(..)`, `.idle_timeout(..)`.
    let config = mcp_runtime::http::HttpConfig::default();
    server!().tools(tools![greet]).serve_http_with(format!("127.0.0.1:{port}"), config).await
}"#
            .to_owned(),
        ),
    };
    let main_rs = format!(
        r#"{header}

use mcp_runtime::prelude::*;

/// How to greet: an argument of your own type derives `Deserialize` and `JsonSchema`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Tone {{
    #[default]
    Plain,
    Excited,
}}

/// Greet someone by name.
#[mcp_tool(read_only, idempotent, open_world = false)]
fn greet(
    /// Who to greet
    name: String,
    /// How to greet them (plain if left out)
    tone: Option<Tone>,
) -> String {{
    match tone.unwrap_or_default() {{
        Tone::Plain => format!("Hello, {{name}}."),
        Tone::Excited => format!("Hello, {{name}}!"),
    }}
}}

{main_fn}

#[cfg(test)]
mod tests {{
    use super::*;
    use mcp_runtime::testing::TestClient;
    use serde_json::json;

    #[test]
    fn greet_stays_plain_rust() {{
        assert_eq!(greet("Ada".into(), Some(Tone::Excited)), "Hello, Ada!");
    }}

    #[mcp_runtime::main]
    #[test]
    async fn greet_answers_through_the_protocol() {{
        let client = TestClient::connect(server!().tools(tools![greet])).await;
        let result = client.call_tool("greet", json!({{"name": "Ada"}})).await.unwrap();
        assert!(!result.is_error);
        assert_eq!(result.text(), Some("Hello, Ada."));
    }}
}}
"#
    );
    vec![("Cargo.toml", cargo_toml), ("src/main.rs", main_rs), (".gitignore", "/target\n".to_owned())]
}

/// Writes a new server crate named `name` into `dir`, which must not exist yet. Returns the
/// files written.
pub fn create(dir: &Path, name: &str, runtime: &Runtime, transport: Transport) -> Result<Vec<PathBuf>, String> {
    check_name(name)?;
    if dir.exists() {
        return Err(format!(
            "{} already exists: choose another name, or another folder with --path DIR (cargo mcp new never writes into an existing folder)",
            dir.display()
        ));
    }
    if let Runtime::Path(path) = runtime
        && !path.join("Cargo.toml").is_file()
    {
        return Err(format!(
            "{} holds no Cargo.toml: --runtime-path must name the mcp-runtime/ folder of a checkout",
            path.display()
        ));
    }
    let mut written = Vec::new();
    for (relative, text) in files(name, runtime, transport) {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// The `Cargo.toml` of a workspace above `dir`, if any: cargo refuses to build a crate inside a
/// workspace that does not list it.
pub fn enclosing_workspace(dir: &Path) -> Option<PathBuf> {
    let dir = std::path::absolute(dir).ok()?;
    dir.ancestors().skip(1).map(|d| d.join("Cargo.toml")).find(|manifest| {
        std::fs::read_to_string(manifest).is_ok_and(|text| text.lines().any(|l| l.trim() == "[workspace]"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_with_advice() {
        assert!(check_name("weather-server").is_ok());
        assert!(check_name("calc_2").is_ok());
        assert!(check_name("").unwrap_err().contains("empty"));
        assert!(check_name("2fast").unwrap_err().contains("start with a letter"));
        assert!(check_name("my server").unwrap_err().contains("` ` is not allowed"));
        assert!(check_name("fn").unwrap_err().contains("keyword"));
        assert!(check_name("mcp-runtime").unwrap_err().contains("shadow"));
    }

    #[test]
    fn the_runtime_dependency_is_a_path_or_a_version() {
        let by_path = files("x", &Runtime::Path(PathBuf::from("/src/mcp-runtime")), Transport::Stdio);
        assert!(by_path[0].1.contains("mcp-runtime = { path = \"/src/mcp-runtime\" }"));
        let by_version = files("x", &Runtime::Version("0.1".into()), Transport::Http);
        assert!(by_version[0].1.contains("mcp-runtime = { version = \"0.1\", features = [\"http\"] }"));
        assert!(Runtime::built_from().is_ok(), "this checkout has mcp-runtime/ beside cargo-mcp/");
    }

    #[test]
    fn a_workspace_above_is_found() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let workspace = enclosing_workspace(&here.join("new-server")).unwrap();
        assert_eq!(workspace, here.parent().unwrap().join("Cargo.toml"));
        assert_eq!(enclosing_workspace(Path::new("/nonexistent-folder/x")), None);
    }
}
