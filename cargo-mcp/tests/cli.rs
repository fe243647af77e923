//! `cargo mcp` as a person runs it: the binary, against the calculator example over stdio.
//!
//! The calculator is `CALCULATOR_BIN`, else `calculator` in the target folder these tests were
//! built in, built with `cargo build -p calculator` when missing.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const CARGO_MCP: &str = env!("CARGO_BIN_EXE_cargo-mcp");

/// The workspace's root, where `Cargo.toml` names every member.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cargo-mcp/ is in the workspace").to_path_buf()
}

/// The target folder this test was built in (`target/debug/deps/..` -> `target/`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut dir = exe.parent().expect("the test binary's folder").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.pop(); // the profile's folder (debug)
    dir
}

/// An example's binary: `<NAME>_BIN`, else the one in the target folder, built when missing.
fn example(name: &str, variable: &str) -> String {
    if let Some(path) = std::env::var_os(variable) {
        return path.to_string_lossy().into_owned();
    }
    let binary = target_dir().join("debug").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !binary.is_file() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-p", name])
            .current_dir(workspace())
            .env("CARGO_TARGET_DIR", target_dir())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "`cargo build -p {name}` failed");
    }
    binary.to_string_lossy().into_owned()
}

fn calculator() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| example("calculator", "CALCULATOR_BIN"))
}

fn notes() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| example("notes", "NOTES_BIN"))
}

fn cargo_mcp(args: &[&str]) -> Output {
    cargo_mcp_in(&std::env::temp_dir(), args)
}

fn cargo_mcp_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(CARGO_MCP).args(args).current_dir(dir).output().expect("cargo-mcp runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited, not killed")
}

#[test]
fn list_shows_each_tool_with_its_arguments() {
    let output = cargo_mcp(&["list", "--stdio", calculator()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("tools:\n  add(a: number, b: number)  "), "{text}");
    assert!(text.contains("divide(a: number, b: number)    Divide `a` by `b`."), "{text}");

    let output = cargo_mcp(&["list", "--stdio", calculator(), "--json"]);
    let lists: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let names: Vec<&str> = lists["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "subtract", "multiply", "divide"]);
    assert_eq!(lists["prompts"], json!([]), "a server without prompts lists none");
}

#[test]
fn the_cargo_subcommand_form_is_accepted() {
    // `cargo mcp list` runs `cargo-mcp mcp list`.
    let output = cargo_mcp(&["mcp", "list", "--stdio", calculator()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
}

#[test]
fn call_prints_the_result_typed_by_the_schema() {
    let output = cargo_mcp(&["call", "--stdio", calculator(), "add", "a=2", "b=3"]);
    assert_eq!((code(&output), stdout(&output).as_str()), (0, "5\n"), "{}", stderr(&output));
    let output = cargo_mcp(&["call", "--stdio", calculator(), "multiply", "a=-1.5", "b=2"]);
    assert_eq!(stdout(&output), "-3\n");
    let output = cargo_mcp(&["call", "--stdio", calculator(), "add", "a=2", "b=3", "--json"]);
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["content"], json!([{"type": "text", "text": "5"}]));
}

#[test]
fn a_tool_error_exits_with_1() {
    let output = cargo_mcp(&["call", "--stdio", calculator(), "divide", "a=1", "b=0"]);
    assert_eq!(code(&output), 1);
    assert_eq!(stdout(&output), "");
    assert!(stderr(&output).contains("tool error: cannot divide by zero"), "{}", stderr(&output));
    let output = cargo_mcp(&["call", "--stdio", calculator(), "divide", "a=1", "b=0", "--json"]);
    assert_eq!(code(&output), 1);
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["isError"], true);
}

#[test]
fn read_and_get_print_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let server = format!("{} {}", notes(), dir.path().join("notes").display()); // made, with samples
    let output = cargo_mcp(&["read", "--stdio", &server, "notes://index"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(stdout(&output).starts_with("# Notes\n"), "{}", stdout(&output));
    let output = cargo_mcp(&["read", "--stdio", &server, "notes://welcome", "--json"]);
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result["contents"][0]["uri"], "notes://welcome");
    let output = cargo_mcp(&["get", "--stdio", &server, "summarize_note", "name=welcome"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(stdout(&output).starts_with("user: Summarize the note `welcome`"), "{}", stdout(&output));
    let output = cargo_mcp(&["read", "--stdio", &server, "notes://missing"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("Resource not found"), "{}", stderr(&output));

    let output = cargo_mcp(&["list", "--stdio", &server]);
    let text = stdout(&output);
    assert!(text.contains("\nresource templates:\n  notes://{name}  A note, by name.\n"), "{text}");
    assert!(text.contains("\nprompts:\n  summarize_note(name)  Summarize a note.\n"), "{text}");
}

#[test]
fn usage_and_connection_errors_exit_with_2_and_say_what_to_do() {
    let cases: &[(&[&str], &str)] = &[
        (&["call", "--stdio", calculator(), "add", "a=two", "b=1"], "`a` must be number (got `two`)"),
        (&["call", "--stdio", calculator(), "add", "a=1"], "missing required argument(s): b=..."),
        (&["call", "--stdio", calculator(), "add", "a=1", "b=2", "c=3"], "no argument `c`"),
        (&["call", "--stdio", calculator(), "power"], "no tool `power`; its tools: add, subtract, multiply, divide"),
        (&["call", "--stdio", "/nonexistent/server", "add"], "cannot run the server `/nonexistent/server` over stdio"),
        (&["list", "--http", "http://127.0.0.1:9/mcp"], "cannot connect to http://127.0.0.1:9/mcp"),
        (&["list"], "no server given: pass --stdio"),
        (&["list", "--stdio", calculator(), "--http", "http://127.0.0.1:9/mcp"], "cannot be used with"),
        (
            &["surface", "--stdio", calculator(), "--check", "--file", "/nonexistent/mcp-surface.json"],
            "record one first",
        ),
    ];
    for (args, message) in cases {
        let output = cargo_mcp(args);
        assert_eq!(code(&output), 2, "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains(message), "{args:?}: {}", stderr(&output));
    }
}

/// A server that answers with one 64 MiB line: the command stops reading at the limit (4 MiB,
/// or `--max-message-size`) and fails saying which, and how to raise it.
#[test]
fn an_answer_over_the_message_size_limit_fails_naming_it() {
    let flood = "sh -c 'head -c 67108864 /dev/zero | tr \"\\000\" x'";
    for (extra, limit) in [(&[][..], "4194304"), (&["--max-message-size", "1024"][..], "1024")] {
        let output = cargo_mcp(&[&["list", "--stdio", flood][..], extra].concat());
        let text = stderr(&output);
        assert_eq!(code(&output), 2, "{text}");
        let said = format!("a stdio line over the limit of {limit} bytes (raise it with --max-message-size BYTES)");
        assert!(text.contains(&said), "{text}");
    }
}

/// An HTTP example (`examples/http-server`, unless named) on a free port, stopped when dropped.
struct HttpServer {
    child: std::process::Child,
    url: String,
    port: u16,
}

impl HttpServer {
    fn start() -> Self {
        Self::start_example("http-server", "HTTP_SERVER_BIN")
    }

    fn start_example(name: &str, variable: &str) -> Self {
        Self::start_program(&example(name, variable), name)
    }

    /// `program` serving HTTP on the free port given in `PORT`.
    fn start_program(program: &str, name: &str) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut child = Command::new(program)
            .env("PORT", port.to_string())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("http-server starts");
        for _ in 0..500 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Self { child, url: format!("http://127.0.0.1:{port}/mcp"), port };
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("{name} did not listen on port {port}");
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn list_call_and_surface_over_http() {
    let server = HttpServer::start();
    let output = cargo_mcp(&["list", "--http", &server.url]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(stdout(&output).contains("count_slowly"), "{}", stdout(&output));

    let output = cargo_mcp(&["call", "--http", &server.url, "add", "a=2", "b=3"]);
    assert_eq!((code(&output), stdout(&output).trim()), (0, "5"), "{}", stderr(&output));

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp-surface.json");
    let file = file.to_str().unwrap();
    let output = cargo_mcp(&["surface", "--http", &server.url, "--file", file]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let output = cargo_mcp(&["surface", "--http", &server.url, "--file", file, "--check"]);
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
}

#[test]
fn help_shows_examples_for_each_subcommand() {
    for command in ["new", "install", "surface", "list", "call", "read", "get", "pack"] {
        let output = cargo_mcp(&[command, "--help"]);
        assert_eq!(code(&output), 0);
        assert!(stdout(&output).contains("Examples:\n  cargo "), "{command}: {}", stdout(&output));
    }
}

#[test]
fn surface_is_written_then_checked() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp-surface.json");
    let file_arg = file.to_str().unwrap();
    let output = cargo_mcp(&["surface", "--stdio", calculator(), "--file", file_arg]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(stdout(&output).starts_with("wrote "), "{}", stdout(&output));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with("}\n"));
    let recorded: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(recorded["tools"].as_array().unwrap().len(), 4);
    assert_eq!(recorded["tokens"]["encoding"], "o200k_base");

    // Nothing changed: written again, the file is the same; checked, it passes.
    let output = cargo_mcp(&["surface", "--stdio", calculator(), "--file", file_arg]);
    assert!(stdout(&output).contains("is up to date"), "{}", stdout(&output));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    let output = cargo_mcp(&["surface", "--stdio", calculator(), "--check", "--file", file_arg]);
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));

    // A recorded surface the server no longer meets: an argument it dropped, one it now
    // requires, a tool it removed.
    let mut old = recorded.clone();
    let add = &mut old["tools"][0];
    assert_eq!(add["name"], "add");
    add["inputSchema"]["properties"]["c"] = json!({"type": "number"});
    add["inputSchema"]["required"] = json!(["a", "c"]);
    let mut power = add.clone();
    power["name"] = json!("power");
    old["tools"].as_array_mut().unwrap().push(power);
    let modified = dir.path().join("old-surface.json");
    std::fs::write(&modified, serde_json::to_string_pretty(&old).unwrap()).unwrap();
    let output = cargo_mcp(&["surface", "--stdio", calculator(), "--check", "--file", modified.to_str().unwrap()]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let report = stdout(&output);
    for line in [
        "breaking: tool `add`: argument `b` is now required",
        "breaking: tool `add`: argument `c` removed",
        "breaking: tool `power`: removed",
        "3 breaking change(s)",
    ] {
        assert!(report.contains(line), "missing {line:?} in:\n{report}");
    }
}

#[test]
fn the_token_budget_fails_the_check_when_exceeded() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp-surface.json");
    let file_arg = file.to_str().unwrap();
    let output = cargo_mcp(&["surface", "--stdio", calculator(), "--file", file_arg, "--token-budget", "10"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(recorded["tokenBudget"], 10);
    let output = cargo_mcp(&["surface", "--stdio", calculator(), "--check", "--file", file_arg]);
    assert_eq!(code(&output), 1);
    assert!(stdout(&output).contains("over budget: tools/list takes"), "{}", stdout(&output));
    // Recording again keeps the budget; a larger one passes.
    let output = cargo_mcp(&["surface", "--stdio", calculator(), "--file", file_arg]);
    assert_eq!(code(&output), 0);
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(recorded["tokenBudget"], 10);
    cargo_mcp(&["surface", "--stdio", calculator(), "--file", file_arg, "--token-budget", "100000"]);
    let output = cargo_mcp(&["surface", "--stdio", calculator(), "--check", "--file", file_arg]);
    assert_eq!(code(&output), 0, "{}", stdout(&output));
    assert!(stdout(&output).contains("of 100000 tokens (o200k_base)"), "{}", stdout(&output));
}

fn install(config: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["install"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--config", config.to_str().unwrap()]);
    cargo_mcp(&args)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn install_writes_a_fresh_file_then_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("nested").join("claude_desktop_config.json");
    let output = install(&config, &["claude-desktop", "--command", calculator()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(stdout(&output).contains("+      \"command\": "), "the change is shown as a diff: {}", stdout(&output));
    assert!(stderr(&output).contains("added `calculator`"), "{}", stderr(&output));
    assert_eq!(read_json(&config), json!({"mcpServers": {"calculator": {"command": calculator(), "args": []}}}));

    let before = std::fs::read_to_string(&config).unwrap();
    let output = install(&config, &["claude-desktop", "--command", calculator()]);
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), "", "no diff the second time");
    assert!(stderr(&output).contains("nothing to change"), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
}

/// Issue 31, row 14: a configuration file that is a symbolic link (a project's `.mcp.json`
/// aimed at another file of the user's) is not written through, dry run or not; the error
/// names the link and its target, and both are left as they were.
#[cfg(unix)]
#[test]
fn install_refuses_to_write_through_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("settings.json");
    std::fs::write(&victim, "{\"theme\": \"dark\"}\n").unwrap();
    let config = dir.path().join(".mcp.json");
    std::os::unix::fs::symlink(&victim, &config).unwrap();
    for extra in [&[][..], &["--dry-run"]] {
        let mut args = vec!["claude-code", "--command", calculator()];
        args.extend_from_slice(extra);
        let output = install(&config, &args);
        assert_eq!(code(&output), 2, "{}", stderr(&output));
        let expected = format!("{} is a symbolic link to {}", config.display(), victim.display());
        assert!(stderr(&output).contains(&expected), "{}", stderr(&output));
        assert_eq!(stdout(&output), "", "no diff is shown");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "{\"theme\": \"dark\"}\n");
    assert!(std::fs::symlink_metadata(&config).unwrap().file_type().is_symlink());
}

/// The file is replaced whole (a new file renamed over it): nothing is left beside it, and
/// its permissions are kept.
#[cfg(unix)]
#[test]
fn install_replaces_the_file_whole_and_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".mcp.json");
    std::fs::write(&config, "{\"mcpServers\": {}}\n").unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    let output = install(&config, &["claude-code", "--command", calculator()]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(read_json(&config)["mcpServers"]["calculator"]["command"], calculator());
    assert_eq!(std::fs::metadata(&config).unwrap().permissions().mode() & 0o777, 0o600);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, [".mcp.json"], "no temporary file is left");
}

#[test]
fn install_keeps_other_servers_and_keys() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(".mcp.json");
    let original = "{\n  \"mcpServers\": {\n    \"github\": {\n      \"type\": \"http\",\n      \"url\": \"https://example.com/mcp\"\n    }\n  },\n  \"other\": true\n}\n";
    std::fs::write(&config, original).unwrap();
    let output = install(&config, &["claude-code", "--command", calculator(), "--name", "calc", "--arg", "--verbose"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(written.starts_with("{\n  \"mcpServers\": {\n    \"github\": {\n      \"type\": \"http\","), "{written}");
    assert!(written.ends_with("  },\n  \"other\": true\n}\n"), "{written}");
    let value = read_json(&config);
    assert_eq!(value["mcpServers"]["github"], json!({"type": "http", "url": "https://example.com/mcp"}));
    assert_eq!(value["mcpServers"]["calc"], json!({"type": "stdio", "command": calculator(), "args": ["--verbose"]}));
    assert_eq!(value["other"], true);

    // --dry-run shows the change and writes nothing.
    let output =
        install(&config, &["claude-code", "--http", "http://127.0.0.1:8080/mcp", "--name", "calc", "--dry-run"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(stdout(&output).contains("+      \"url\": \"http://127.0.0.1:8080/mcp\""), "{}", stdout(&output));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), written);
}

#[test]
fn install_http_in_each_clients_shape() {
    let dir = tempfile::tempdir().unwrap();
    let url = "http://127.0.0.1:8080/mcp";
    let cases = [
        ("vscode", "servers", json!({"type": "http", "url": url})),
        ("claude-code", "mcpServers", json!({"type": "http", "url": url})),
        ("cursor", "mcpServers", json!({"url": url})),
        ("claude-desktop", "mcpServers", json!({"command": "npx", "args": ["-y", "mcp-remote", url]})),
    ];
    for (client, key, entry) in cases {
        let config = dir.path().join(format!("{client}.json"));
        let output = install(&config, &[client, "--http", url, "--name", "notes"]);
        assert_eq!(code(&output), 0, "{client}: {}", stderr(&output));
        assert_eq!(read_json(&config), json!({ key: { "notes": entry } }), "{client}");
        let output = install(&config, &[client, "--http", url, "--name", "notes"]);
        assert!(stderr(&output).contains("nothing to change"), "{client}: {}", stderr(&output));
    }
}

#[test]
fn install_finds_the_crate_with_cargo_metadata_and_explains_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    let manifest = workspace().join("examples/calculator/Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let output = install(&config, &["cursor", "--manifest-path", manifest, "--bin", "calc"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("`calculator` has no binary `calc`; its binaries: calculator"),
        "{}",
        stderr(&output)
    );
    // With --http, the crate gives the server's default name.
    let output = install(&config, &["cursor", "--manifest-path", manifest, "--http", "http://127.0.0.1:1/mcp"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(read_json(&config), json!({"mcpServers": {"calculator": {"url": "http://127.0.0.1:1/mcp"}}}));
    // A broken file is left alone, with the entry to add by hand.
    std::fs::write(&config, "{ \"mcpServers\": ").unwrap();
    let output = install(&config, &["cursor", "--http", "http://127.0.0.1:1/mcp", "--name", "x"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("not valid JSON") && stderr(&output).contains("add this by hand"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn new_refuses_an_existing_folder_and_a_bad_name() {
    let dir = tempfile::tempdir().unwrap();
    let output = cargo_mcp_in(dir.path(), &["new", "taken"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let output = cargo_mcp_in(dir.path(), &["new", "taken"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("already exists: choose another name, or another folder with --path"));
    for (name, message) in [("2fast", "must start with a letter"), ("my server", "is not allowed"), ("fn", "keyword")] {
        let output = cargo_mcp_in(dir.path(), &["new", name]);
        assert_eq!(code(&output), 2, "{name}");
        assert!(stderr(&output).contains(message), "{name}: {}", stderr(&output));
        assert!(!dir.path().join(name).exists());
    }
    let output = cargo_mcp_in(dir.path(), &["new", "x", "--runtime-path", "/nonexistent"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("--runtime-path /nonexistent"), "{}", stderr(&output));
}

/// `cargo mcp new NAME [ARGS]` in a fresh folder, then the generated crate's `cargo test`, which
/// builds in the workspace's target folder, with the workspace's lock file, so it reuses what the
/// workspace built. Returns the crate's folder (in the temporary folder, kept while it lives).
fn new_crate_passing_its_test(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let output = cargo_mcp_in(dir, &[&["new", name, "--path", name], args].concat());
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let crate_dir = dir.join(name);
    std::fs::copy(workspace().join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["test", "--quiet"])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "cargo test in the new crate failed:\n{}\n{}", stdout(&output), stderr(&output));
    assert!(stdout(&output).contains("2 passed"), "{}", stdout(&output));
    assert!(!stderr(&output).contains("warning"), "a warning in the new crate's build:\n{}", stderr(&output));
    crate_dir
}

/// The generated crate's own test passes; its argument type derives `Deserialize` and
/// `JsonSchema` from the prelude, which needs serde and schemars in its `Cargo.toml`.
#[test]
fn a_new_server_builds_and_passes_its_test() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = new_crate_passing_its_test(dir.path(), "hello-mcp", &[]);
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let runtime = workspace().join("mcp-runtime").canonicalize().unwrap();
    assert!(manifest.contains(&format!("mcp-runtime = {{ path = \"{}\" }}", runtime.display())), "{manifest}");
    let main_rs = std::fs::read_to_string(crate_dir.join("src/main.rs")).unwrap();
    assert!(main_rs.contains("#[derive(Debug, Default, Deserialize, JsonSchema)]"), "{main_rs}");

    // It runs as a server too: without --stdio, `cargo mcp` builds the crate it is run in and
    // runs its binary.
    let output = Command::new(CARGO_MCP)
        .args(["call", "greet", "name=Ada", "tone=excited"])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .expect("cargo-mcp runs");
    assert_eq!((code(&output), stdout(&output).as_str()), (0, "Hello, Ada!\n"), "{}", stderr(&output));
    assert!(stderr(&output).contains("Building hello-mcp (debug)"), "{}", stderr(&output));
}

/// `cargo mcp new --http`: a server on Streamable HTTP with an `HttpConfig`, in a `main` of a
/// few lines, that builds without warnings, passes its test and answers a call on `PORT`.
#[test]
fn a_new_http_server_serves_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = new_crate_passing_its_test(dir.path(), "hello-http", &["--http"]);
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("features = [\"http\"]"), "{manifest}");
    let main_rs = std::fs::read_to_string(crate_dir.join("src/main.rs")).unwrap();
    let main_fn = main_rs.split("#[mcp_runtime::main]").nth(1).and_then(|rest| rest.split("\n}\n").next()).unwrap();
    assert!(main_fn.contains("serve_http_with(") && main_fn.contains("HttpConfig::default()"), "{main_fn}");
    assert!(main_fn.lines().count() < 15, "main takes {} lines", main_fn.lines().count());

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(cargo)
        .args(["build", "--quiet"])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .status()
        .expect("cargo runs");
    assert!(built.success());
    let binary = target_dir().join("debug/hello-http");
    let server = HttpServer::start_program(binary.to_str().unwrap(), "hello-http");
    let output = cargo_mcp(&["call", "--http", &server.url, "greet", "name=Ada"]);
    assert_eq!((code(&output), stdout(&output).as_str()), (0, "Hello, Ada.\n"), "{}", stderr(&output));
}

/// What a hostile server puts in every string it sends: a colour, a window title, a line
/// rewrite, a C1 CSI, a right-to-left override.
const HOSTILE: &str = "\x1b[31mred\x1b]0;pwned\x07\rover\u{9b}2J\u{202e}desrever";

/// A hostile MCP server over Streamable HTTP (2026-07-28, stateless, one request per
/// connection) on a real socket: every name, description, result and error message it sends
/// carries [`HOSTILE`].
struct HostileServer {
    url: String,
}

impl HostileServer {
    fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                std::thread::spawn(move || Self::answer(stream));
            }
        });
        Self { url }
    }

    fn answer(mut stream: std::net::TcpStream) {
        use std::io::{BufRead as _, BufReader, Read as _, Write as _};
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut length = 0;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let request: Value = serde_json::from_slice(&body).unwrap_or_default();
        let item = |key: &str| json!({key: format!("{HOSTILE}-item"), "description": HOSTILE});
        let result = match request["method"].as_str().unwrap_or_default() {
            "server/discover" => json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
                "serverInfo": {"name": HOSTILE, "version": "1"},
            }),
            "tools/list" => json!({"tools": [{
                "name": format!("{HOSTILE}-tool"), "description": HOSTILE,
                "inputSchema": {"type": "object", "properties": {HOSTILE: {"type": "string", "description": HOSTILE}}},
            }, {"name": "fail", "inputSchema": {"type": "object"}}]}),
            "resources/list" => json!({"resources": [item("uri")]}),
            "resources/templates/list" => json!({"resourceTemplates": [item("uriTemplate")]}),
            "prompts/list" => json!({"prompts": [{"name": HOSTILE, "arguments": [{"name": HOSTILE}]}]}),
            "tools/call" if request["params"]["name"] == "fail" => Value::Null,
            "tools/call" => json!({"content": [{"type": "text", "text": HOSTILE}], "isError": false}),
            "resources/read" => json!({"contents": [{"uri": "x://y", "text": HOSTILE}]}),
            "prompts/get" => json!({"description": HOSTILE, "messages": [{"role": "user",
                "content": {"type": "text", "text": HOSTILE}}]}),
            _ => Value::Null,
        };
        let answer = match result {
            Value::Null => {
                json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32602, "message": HOSTILE}})
            }
            result => json!({"jsonrpc": "2.0", "id": request["id"], "result": result}),
        };
        let answer = answer.to_string();
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
            answer.len()
        );
    }
}

/// Whether `text` holds a character a terminal acts on (but the line feed and the tab).
fn acts_on_terminal(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        matches!(c, '\0'..='\x08' | '\x0b'..='\x1f' | '\x7f'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

/// Issue 31, row 13: whatever a server sends, `cargo mcp` prints no character a terminal acts
/// on, in words or in JSON (which stays the same JSON), on stdout or stderr; it shows them
/// escaped instead.
#[test]
fn nothing_a_server_sends_reaches_the_terminal_raw() {
    let server = HostileServer::start();
    let url = server.url.as_str();
    let tool = format!("{HOSTILE}-tool");
    let runs: [&[&str]; 10] = [
        &["list", "--http", url],
        &["list", "--http", url, "--json"],
        &["call", "--http", url, &tool],
        &["call", "--http", url, &tool, "--json"],
        &["call", "--http", url, "missing"],
        &["call", "--http", url, "fail"],
        &["read", "--http", url, "x://y"],
        &["get", "--http", url, "p"],
        &["get", "--http", url, "p", "--json"],
        &["surface", "--http", url, "--file", "/dev/null/none.json"],
    ];
    for args in runs {
        let output = cargo_mcp(args);
        let (out, err) = (stdout(&output), stderr(&output));
        let printed = format!("{out}{err}");
        assert_eq!(acts_on_terminal(&printed), None, "{args:?} printed raw: {printed:?}");
        if args.contains(&"--json") {
            let value: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"));
            assert!(value.to_string().contains("\\u001b[31mred"), "the same JSON: {value}");
        }
    }
    let output = cargo_mcp(&["list", "--http", url]);
    assert!(stdout(&output).contains("\\u001b[31mred\\u001b]0;pwned\\u0007\\u000dover\\u009b2J\\u202edesrever-tool("));
    let output = cargo_mcp(&["call", "--http", url, "fail"]);
    assert!(stderr(&output).contains("error -32602: \\u001b[31mred"), "{}", stderr(&output));
}

/// Against a server behind authorization (`examples/auth-server`, its development tokens), a
/// refusal says what to do: without a token, sign in (`cargo mcp login`) or pass `--bearer`; with
/// a token that lacks a tool's scope, the server's 403 and the scope, not "no such tool" (the
/// tool is hidden from that caller's list, and called all the same).
#[test]
fn authorization_failures_say_what_the_server_wants() {
    let server = HttpServer::start_example("auth-server", "AUTH_SERVER_BIN");
    let tokens = std::env::temp_dir().join(format!("cargo-mcp-no-tokens-{}.json", std::process::id()));
    let run = |args: &[&str]| {
        Command::new(CARGO_MCP)
            .args(args)
            .env("CARGO_MCP_TOKENS", &tokens)
            .env_remove("MCP_BEARER_TOKEN")
            .output()
            .unwrap()
    };
    let output = run(&["call", "--http", &server.url, "whoami"]);
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    let said = stderr(&output);
    assert!(said.contains("HTTP 401") && said.contains("cargo mcp login") && said.contains("--bearer"), "{said}");

    let printed = Command::new(example("auth-server", "AUTH_SERVER_BIN"))
        .args(["--print-test-token", "notes:read"])
        .env("PORT", server.port.to_string())
        .output()
        .unwrap();
    let token = String::from_utf8(printed.stdout).unwrap().trim().to_owned();
    let output = run(&["call", "--http", &server.url, "--bearer", &token, "whoami"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let output = run(&["call", "--http", &server.url, "--bearer", &token, "add_note", "text=milk"]);
    let said = stderr(&output);
    assert_eq!(code(&output), 2, "{said}");
    assert!(said.contains("HTTP 403") && said.contains("notes:write") && !said.contains("has no tool"), "{said}");
}
