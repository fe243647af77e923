//! Several replicas of one server behind a load balancer, with real parts: a `redis-server` they
//! share, N replicas of the conformance fixture (`examples/conformance`) and `nginx` balancing
//! them round robin without stickiness. Each runs as a process on a free port of 127.0.0.1, its
//! config, data and logs in a temp dir of its own; `scripts/services.sh` installs the two
//! programs from Debian's packages. Dropped, each part kills its process; a cluster dropped
//! while its test panics prints every part's log first.

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// How long a part may take to start (or to stop) before the rig gives up.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// The shared secret of sealed 2026-07-28 `requestState` that every replica is given
/// (`MCP_REQUEST_STATE_SECRET`): a state sealed by one replica must open on another.
pub const REQUEST_STATE_SECRET: &str = "cluster-tests: the replicas' shared requestState secret";

// ---------------------------------------------------------------------------------------------
// Temp dirs, ports, programs

/// A directory under the system's temp dir, removed with what it holds when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new, empty directory whose name starts with `prefix`.
    pub fn new(prefix: &str) -> Self {
        static COUNT: AtomicU32 = AtomicU32::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("{prefix}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        Self(path)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A port of 127.0.0.1 that nothing listens on, below the kernel's ephemeral range, so that
/// the port a replica or Redis gets back on restart is not meanwhile the local port of some
/// outgoing connection. Ports are spread by process id and handed out once per process.
pub fn free_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    const FIRST: u32 = 20_000;
    const COUNT: u32 = 12_000; // 20000..32000, below Linux's default ephemeral range (32768..)
    let offset = std::process::id().wrapping_mul(97) % COUNT;
    for _ in 0..COUNT {
        let port = FIRST + (offset + NEXT.fetch_add(1, Ordering::Relaxed)) % COUNT;
        let port = u16::try_from(port).expect("a port number");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port of 127.0.0.1 in {FIRST}..{}", FIRST + COUNT);
}

/// The path of `program`: on `PATH`, else in `/usr/sbin` or `/usr/bin` (where Debian puts
/// nginx and redis-server, and a non-root `PATH` may lack `/usr/sbin`). Missing, the test fails
/// and says how to install it: nothing is skipped silently.
pub fn program(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")]);
    dirs.into_iter().map(|dir| dir.join(name)).find(|candidate| is_executable(candidate)).unwrap_or_else(|| {
        panic!(
            "`{name}` is not installed: run scripts/services.sh (it installs redis-server, nginx and chromium from Debian's packages)"
        )
    })
}

pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The conformance fixture's binary: `CONFORMANCE_BIN`, else `conformance` in the target
/// directory this test binary was built in (`target/debug/deps/..`).
pub fn conformance_binary() -> PathBuf {
    crate::external::example_binary("conformance")
}

/// Waits until `ready` holds, checking every 20 ms; `Err` after `timeout`.
fn wait_for(timeout: Duration, mut ready: impl FnMut() -> Result<bool, String>) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    loop {
        if ready()? {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!("not ready after {timeout:?}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `request` to `127.0.0.1:port` on a fresh connection and returns what comes back
/// within half a second (as much as one read gives), `None` if it cannot connect.
fn exchange(port: u16, request: &[u8]) -> Option<Vec<u8>> {
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_millis(200)).ok()?;
    stream.set_read_timeout(Some(Duration::from_millis(500))).ok()?;
    stream.write_all(request).ok()?;
    let mut answer = vec![0; 256];
    let n = stream.read(&mut answer).ok()?;
    answer.truncate(n);
    Some(answer)
}

/// Whether an HTTP server answers on `port`, with any status.
fn answers_http(port: u16) -> bool {
    let probe = b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n";
    exchange(port, probe).is_some_and(|answer| answer.starts_with(b"HTTP/1."))
}

/// The last `limit` bytes of a log file, as text.
fn tail(path: &Path, limit: usize) -> String {
    match std::fs::read(path) {
        Ok(bytes) => {
            let start = bytes.len().saturating_sub(limit);
            let cut = if start > 0 { "[...]\n" } else { "" };
            format!("{cut}{}", String::from_utf8_lossy(&bytes[start..]))
        }
        Err(e) => format!("<cannot read {}: {e}>", path.display()),
    }
}

/// A log file opened for appending (a restarted process continues its predecessor's log), as
/// the stdout and stderr of a child.
fn log_output(path: &Path) -> (Stdio, Stdio) {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let copy = file.try_clone().expect("duplicate the log file");
    (Stdio::from(file), Stdio::from(copy))
}

/// Kills a child with SIGKILL and reaps it.
fn kill(child: &mut Option<Child>) {
    if let Some(mut child) = child.take() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Panics when the child has exited, with its log.
fn check_alive(child: &mut Option<Child>, what: &str, log: &Path) -> Result<bool, String> {
    match child.as_mut().map(Child::try_wait) {
        Some(Ok(None)) => Ok(false),
        Some(Ok(Some(status))) => Err(format!("{what} exited ({status}):\n{}", tail(log, 4000))),
        Some(Err(e)) => Err(format!("{what}: {e}")),
        None => Err(format!("{what} is not running")),
    }
}

// ---------------------------------------------------------------------------------------------
// Redis

/// A `redis-server` on a free port, without persistence of its own (`--save ''`,
/// `--appendonly no`), its working dir a temp dir.
pub struct Redis {
    port: u16,
    dir: TempDir,
    child: Option<Child>,
}

impl Redis {
    /// Starts one and waits until it answers `PING`.
    pub fn start() -> Self {
        let mut redis = Self { port: free_port(), dir: TempDir::new("mcp-redis"), child: None };
        redis.spawn();
        redis
    }

    fn spawn(&mut self) {
        let (stdout, stderr) = log_output(&self.log_path());
        let child = Command::new(program("redis-server"))
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .args(["--daemonize", "no", "--logfile", ""])
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start redis-server: {e}"));
        self.child = Some(child);
        let log = self.log_path();
        if let Err(e) =
            wait_for(START_TIMEOUT, || Ok(check_alive(&mut self.child, "redis-server", &log)? || self.ping()))
        {
            kill(&mut self.child);
            panic!("redis-server on port {} did not answer PING: {e}\n{}", self.port, tail(&log, 4000));
        }
    }

    /// Whether it answers `PING` with `+PONG` (an inline command on a fresh connection).
    pub fn ping(&self) -> bool {
        exchange(self.port, b"PING\r\n").is_some_and(|answer| answer.starts_with(b"+PONG"))
    }

    /// Sends one inline command (`SET key value`: words separated by spaces, none quoted) on a
    /// fresh connection and returns the raw reply (`+OK\r\n`, `$5\r\nvalue\r\n`, `$-1\r\n`...),
    /// `None` when Redis does not answer.
    pub fn command(&self, inline: &str) -> Option<String> {
        let answer = exchange(self.port, format!("{inline}\r\n").as_bytes())?;
        Some(String::from_utf8_lossy(&answer).into_owned())
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:PORT/`, what the replicas get as `REDIS_URL`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Stops it as an operator would: `SHUTDOWN SAVE` writes its data to `dump.rdb` in its
    /// dir, which [`restart`](Self::restart) loads, as a Redis with persistence comes back with
    /// its data. Waits until the process has exited.
    pub fn stop(&mut self) {
        let _ = exchange(self.port, b"SHUTDOWN SAVE\r\n");
        let exited = wait_for(START_TIMEOUT, || {
            Ok(self.child.as_mut().is_none_or(|child| matches!(child.try_wait(), Ok(Some(_)) | Err(_))))
        });
        if exited.is_err() {
            eprintln!("redis-server ignored SHUTDOWN for {START_TIMEOUT:?}: killed");
        }
        kill(&mut self.child);
    }

    /// Kills it with SIGKILL, as a crash would: what it held is lost (no persistence).
    pub fn kill9(&mut self) {
        kill(&mut self.child);
        let _ = std::fs::remove_file(self.dir.path().join("dump.rdb"));
    }

    /// Starts it again on the same port and dir (after [`stop`](Self::stop), with its data).
    pub fn restart(&mut self) {
        kill(&mut self.child);
        self.spawn();
    }

    /// Its log file (stdout and stderr).
    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("redis.log")
    }

    /// The end of its log.
    pub fn log(&self) -> String {
        tail(&self.log_path(), 8000)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        kill(&mut self.child);
    }
}

// ---------------------------------------------------------------------------------------------
// Replicas

/// One replica: a server binary serving Streamable HTTP at `127.0.0.1:PORT/mcp`, with `PORT`
/// and the environment it was given, its stdout and stderr appended to a log file.
pub struct Replica {
    binary: PathBuf,
    port: u16,
    env: Vec<(OsString, OsString)>,
    dir: TempDir,
    child: Option<Child>,
}

impl Replica {
    /// Starts `binary` with `PORT=port` and `env` (`RUST_LOG` defaults to `info`), and waits
    /// until it answers HTTP.
    pub fn start(binary: &Path, port: u16, env: &[(&str, &str)]) -> Self {
        let env = env.iter().map(|(name, value)| (OsString::from(name), OsString::from(value))).collect();
        let mut replica =
            Self { binary: binary.to_path_buf(), port, env, dir: TempDir::new("mcp-replica"), child: None };
        replica.spawn();
        replica
    }

    fn spawn(&mut self) {
        let log = self.log_path();
        let (stdout, stderr) = log_output(&log);
        let _ =
            writeln!(OpenOptions::new().append(true).open(&log).expect("the log file"), "--- start on {}", self.port);
        let mut command = Command::new(&self.binary);
        command.env("RUST_LOG", std::env::var_os("RUST_LOG").unwrap_or_else(|| "info".into()));
        command.env("RUST_BACKTRACE", "1");
        command.envs(self.env.iter().map(|(name, value)| (name, value)));
        command.env("PORT", self.port.to_string());
        let child = command
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.binary.display()));
        self.child = Some(child);
        let what = format!("the replica on port {}", self.port);
        if let Err(e) =
            wait_for(START_TIMEOUT, || Ok(check_alive(&mut self.child, &what, &log)? || answers_http(self.port)))
        {
            kill(&mut self.child);
            panic!("{what} did not answer HTTP: {e}\n{}", tail(&log, 4000));
        }
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `127.0.0.1:PORT`, to reach it without the load balancer.
    pub fn address(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// Its process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills it with SIGKILL (no shutdown of any kind) and reaps it.
    pub fn kill9(&mut self) {
        kill(&mut self.child);
        let _ = writeln!(OpenOptions::new().append(true).open(self.log_path()).expect("the log file"), "--- killed");
    }

    /// Starts it again on the same port with the same environment (killing it first if it
    /// runs), and waits until it answers HTTP.
    pub fn restart(&mut self) {
        if self.child.is_some() {
            self.kill9();
        }
        self.spawn();
    }

    /// Its log file.
    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("replica.log")
    }

    /// The end of its log (every run since the first start).
    pub fn log(&self) -> String {
        tail(&self.log_path(), 8000)
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        kill(&mut self.child);
    }
}

// ---------------------------------------------------------------------------------------------
// nginx

/// `nginx` on a free port, balancing the replicas round robin: no stickiness of any kind, so
/// consecutive requests of one session reach different replicas.
pub struct Nginx {
    port: u16,
    dir: TempDir,
    child: Option<Child>,
}

impl Nginx {
    /// Writes its config (everything in a temp dir: pid, logs, temp paths; nothing under
    /// `/var`, so it runs as root or not) and starts it in the foreground.
    pub fn start(upstream_ports: &[u16]) -> Self {
        assert!(!upstream_ports.is_empty(), "nginx needs at least one upstream");
        let nginx = program("nginx");
        let dir = TempDir::new("mcp-nginx");
        let port = free_port();
        let conf = dir.path().join("nginx.conf");
        std::fs::write(&conf, config(dir.path(), port, upstream_ports, &compiled_without(&nginx)))
            .expect("write nginx.conf");
        let log = dir.path().join("nginx.log");
        let (stdout, stderr) = log_output(&log);
        // `-e`: the error log of start-up, before the config is read (else the compiled-in path).
        let child = Command::new(&nginx)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&conf)
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", nginx.display()));
        let mut nginx = Self { port, dir, child: Some(child) };
        let error_log = nginx.dir.path().join("error.log");
        if let Err(e) =
            wait_for(START_TIMEOUT, || Ok(check_alive(&mut nginx.child, "nginx", &log)? || answers_http(port)))
        {
            panic!("nginx on port {port} did not answer: {e}\n{}\n{}", tail(&log, 4000), tail(&error_log, 4000));
        }
        nginx
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// The MCP endpoint through it: `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Its whole access log: a line per request, `upstream=` naming the replicas tried, in order
    /// (`127.0.0.1:P1, 127.0.0.1:P2` when the first refused the connection).
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("access.log")).unwrap_or_default()
    }

    /// The end of its error log and of its access log (which names the replica that served
    /// each request, `upstream=`).
    pub fn log(&self) -> String {
        format!(
            "error log:\n{}\naccess log:\n{}",
            tail(&self.dir.path().join("error.log"), 4000),
            tail(&self.dir.path().join("access.log"), 8000)
        )
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // One process (`master_process off`): no worker is left behind by SIGKILL.
        kill(&mut self.child);
    }
}

/// The `--without-http_*_module` flags this nginx was built with: a temp path directive of a
/// module left out would be an unknown directive.
fn compiled_without(nginx: &Path) -> String {
    Command::new(nginx)
        .arg("-V")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stderr).into_owned())
        .unwrap_or_default()
}

/// The config: one server on `port`, one upstream of the replicas.
fn config(dir: &Path, port: u16, upstream_ports: &[u16], build: &str) -> String {
    let dir = dir.display();
    let servers: String =
        upstream_ports.iter().map(|p| format!("        server 127.0.0.1:{p} max_fails=1 fail_timeout=1s;\n")).collect();
    let temp_paths: String = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
        .into_iter()
        .filter(|module| *module == "client_body" || !build.contains(&format!("--without-http_{module}_module")))
        .map(|module| format!("    {module}_temp_path {dir}/{module}_temp;\n"))
        .collect();
    format!(
        r#"# Written by tests/src/cluster.rs: nginx in front of the replicas, everything in {dir}.
# One process in the foreground: no worker runs as another user (as root, workers would switch
# to an unprivileged user that cannot enter this dir), and SIGKILL leaves nothing behind.
daemon off;
master_process off;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;

events {{
    worker_connections 1024;
}}

http {{
    log_format upstream '$remote_addr "$request" $status upstream=$upstream_addr '
                        'upstream_status=$upstream_status session=$http_mcp_session_id '
                        'last_event_id=$http_last_event_id time=$request_time';
    access_log {dir}/access.log upstream;
{temp_paths}
    # Round robin, no stickiness (no ip_hash, hash or cookie): a session's requests go to every
    # replica in turn. A replica that refuses a connection is skipped for 1 s (max_fails=1,
    # fail_timeout=1s), then tried again: a restarted one is back within a second. No
    # `keepalive` either: each request opens its own connection, so a dead replica is always a
    # refused connection (safe to retry), never a reused connection that breaks after the
    # request went out.
    upstream replicas {{
{servers}    }}

    server {{
        listen 127.0.0.1:{port};
        # The replicas enforce their own body limit.
        client_max_body_size 0;

        location / {{
            proxy_pass http://replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # The client's Host (127.0.0.1:PORT), which the replicas' DNS-rebinding check accepts
            # as loopback; nginx's default would be the upstream's name, `replicas`, refused
            # with 403. A Host the replicas must refuse is passed on as well, for them to refuse.
            proxy_set_header Host $http_host;
            # SSE: every event goes to the client as it comes; requests stream to the replica.
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_cache off;
            # A GET stream may stay quiet for long (the replicas send keep-alive comments).
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            proxy_connect_timeout 2s;
            # A killed replica refuses the connection: the request goes to the next one. Not
            # `non_idempotent`: a POST once sent to a replica may have run there (a tool call
            # with effects), and must not run a second time elsewhere; a replica dying after
            # the request went out is the client's error to see (502) and its call to retry.
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 0;
        }}
    }}
}}
"#
    )
}

// ---------------------------------------------------------------------------------------------
// The cluster

/// `redis-server`, N replicas of the conformance fixture with `REDIS_URL` and
/// `MCP_REQUEST_STATE_SECRET`, and `nginx` in front of them. Dropped while a test panics, it
/// prints every part's log.
pub struct Cluster {
    // Dropped in this order: the load balancer, the replicas, then Redis.
    nginx: Nginx,
    replicas: Vec<Replica>,
    redis: Redis,
}

impl Cluster {
    /// Starts Redis, `n` replicas of the conformance fixture ([`conformance_binary`]) and nginx.
    pub fn start(n: usize) -> Self {
        Self::with_binary(&conformance_binary(), n)
    }

    /// Starts Redis, `n` replicas of `binary` and nginx.
    pub fn with_binary(binary: &Path, n: usize) -> Self {
        let redis = Redis::start();
        let url = redis.url();
        let env = [("REDIS_URL", url.as_str()), ("MCP_REQUEST_STATE_SECRET", REQUEST_STATE_SECRET)];
        let replicas: Vec<Replica> = (0..n).map(|_| Replica::start(binary, free_port(), &env)).collect();
        let nginx = Nginx::start(&replicas.iter().map(Replica::port).collect::<Vec<_>>());
        Self { nginx, replicas, redis }
    }

    /// The load balancer's address, `127.0.0.1:PORT`.
    pub fn address(&self) -> SocketAddr {
        self.nginx.address()
    }

    /// The MCP endpoint through the load balancer.
    pub fn url(&self) -> String {
        self.nginx.url()
    }

    /// The replicas.
    pub fn replicas(&self) -> &[Replica] {
        &self.replicas
    }

    /// Replica `i`.
    pub fn replica(&mut self, i: usize) -> &mut Replica {
        &mut self.replicas[i]
    }

    /// Kills replica `i` with SIGKILL.
    pub fn kill9(&mut self, i: usize) {
        self.replicas[i].kill9();
    }

    /// Restarts replica `i` on its port and waits until it answers.
    pub fn restart(&mut self, i: usize) {
        self.replicas[i].restart();
    }

    /// The Redis the replicas share.
    pub fn redis(&mut self) -> &mut Redis {
        &mut self.redis
    }

    /// The port of the Redis the replicas share.
    pub fn redis_port(&self) -> u16 {
        self.redis.port
    }

    /// The load balancer.
    pub fn nginx(&self) -> &Nginx {
        &self.nginx
    }

    /// The end of every part's log.
    pub fn logs(&self) -> String {
        let mut all = format!("=== nginx on {}\n{}\n", self.nginx.port, self.nginx.log());
        for (i, replica) in self.replicas.iter().enumerate() {
            all += &format!("=== replica {i} on {}\n{}\n", replica.port, replica.log());
        }
        all + &format!("=== redis on {}\n{}\n", self.redis.port, self.redis.log())
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("\nthe cluster's logs:\n{}", self.logs());
        }
    }
}
