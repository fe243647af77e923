//! The services of the Redis scenarios (issue 17): a private `redis-server` and an `nginx` in
//! front of several replicas, each started by the harness in a temporary directory of its own,
//! on a free port of 127.0.0.1, and stopped by it.

use crate::{Result, placement};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// Where the two programs are.
#[derive(Clone)]
pub struct Programs {
    pub redis: PathBuf,
    pub nginx: PathBuf,
}

impl Programs {
    /// Finds `redis-server` and `nginx` (in `PATH`, `/usr/sbin`, `/usr/bin`, `/usr/local/...`).
    pub fn find() -> Result<Self> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs: Vec<PathBuf> = std::env::split_paths(&path)
            .chain(["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/sbin"].map(PathBuf::from))
            .collect();
        Ok(Self { redis: find_in(&dirs, "redis-server")?, nginx: find_in(&dirs, "nginx")? })
    }
}

/// The program `name` in the first of `dirs` that has it.
fn find_in(dirs: &[PathBuf], name: &str) -> Result<PathBuf> {
    dirs.iter().map(|dir| dir.join(name)).find(|candidate| candidate.is_file()).ok_or_else(|| {
        format!(
            "{name} not found (PATH, /usr/sbin, /usr/bin, /usr/local): the HTTP scenarios with Redis need \
             redis-server and nginx; run scripts/services.sh to install them (Debian packages), or pass \
             --no-redis to skip those scenarios"
        )
        .into()
    })
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(what: &str) -> Result<Self> {
        static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mcp-bench-{what}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Self(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A port of 127.0.0.1 that was free a moment ago.
fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Starts `program` on `cpus` (0: any), its output discarded.
fn spawn(program: &Path, args: &[&str], cpus: u64) -> Result<Child> {
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    if cpus != 0 {
        // SAFETY: only `sched_setaffinity`, async-signal-safe, runs between fork and exec.
        unsafe {
            command.pre_exec(move || placement::set_affinity(0, cpus));
        }
    }
    command.spawn().map_err(|e| format!("spawn {}: {e}", program.display()).into())
}

/// Ends a child: SIGTERM, then SIGKILL if it is still there after 5 s.
async fn stop(child: &mut Child) {
    if let Some(pid) = child.id() {
        // SAFETY: a signal to our own child, which has not been reaped (it has an id).
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGTERM);
        }
    }
    if tokio::time::timeout(Duration::from_secs(5), child.wait()).await.is_err() {
        let _ = child.kill().await;
    }
}

/// SIGTERM to a child that was not stopped (an error cut the scenario short).
fn terminate(child: &Child) {
    if let Some(pid) = child.id() {
        // SAFETY: as above.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGTERM);
        }
    }
}

/// Waits until something accepts connections on `port`, or `child` exits.
async fn until_listening(child: &mut Child, port: u16, what: &str) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return Ok(());
        }
        if let Some(status) = child.try_wait()? {
            return Err(format!("{what} exited at start ({status})").into());
        }
        if Instant::now() > deadline {
            return Err(format!("{what} did not listen on port {port} within 10 s").into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A `redis-server` of our own: no persistence, its directory a temporary one.
pub struct Redis {
    child: Child,
    pub pid: u32,
    pub port: u16,
    _dir: TempDir,
}

impl Redis {
    pub async fn start(programs: &Programs, cpus: u64) -> Result<Self> {
        let dir = TempDir::new("redis")?;
        let port = free_port()?;
        let (port_arg, dir_arg) = (port.to_string(), dir.0.display().to_string());
        let args = [
            "--port",
            &port_arg,
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            &dir_arg,
            "--daemonize",
            "no",
            "--logfile",
            "",
        ];
        let mut child = spawn(&programs.redis, &args, cpus)?;
        let pid = child.id().ok_or("redis-server: no pid")?;
        if let Err(err) = until_listening(&mut child, port, "redis-server").await {
            terminate(&child);
            return Err(err);
        }
        let redis = Self { child, pid, port, _dir: dir };
        if redis.query(&["PING"]).await? != "PONG" {
            return Err("redis-server does not answer PING".into());
        }
        Ok(redis)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Sends one command on a new connection and reads a simple or bulk string answer.
    async fn query(&self, args: &[&str]) -> Result<String> {
        let mut stream = BufReader::new(TcpStream::connect(("127.0.0.1", self.port)).await?);
        let mut request = format!("*{}\r\n", args.len());
        for arg in args {
            request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
        }
        stream.get_mut().write_all(request.as_bytes()).await?;
        let mut line = String::new();
        stream.read_line(&mut line).await?;
        let line = line.trim_end();
        match line.as_bytes().first() {
            Some(b'+') => Ok(line[1..].to_owned()),
            Some(b'$') => {
                let len: usize = line[1..].parse()?;
                let mut body = vec![0; len + 2];
                stream.read_exact(&mut body).await?;
                body.truncate(len);
                Ok(String::from_utf8(body)?)
            }
            _ => Err(format!("unexpected answer from redis-server to {args:?}: {line}").into()),
        }
    }

    /// The calls of each command so far (`INFO commandstats`), `info` itself left out.
    /// Commands that scripts run count under their own names, beside `evalsha`.
    pub async fn command_calls(&self) -> Result<BTreeMap<String, u64>> {
        let info = self.query(&["INFO", "commandstats"]).await?;
        let mut calls = BTreeMap::new();
        for line in info.lines() {
            // cmdstat_get:calls=12,usec=34,...
            let Some((name, stats)) = line.strip_prefix("cmdstat_").and_then(|l| l.split_once(':')) else { continue };
            if name == "info" {
                continue;
            }
            let n = stats
                .split(',')
                .find_map(|field| field.strip_prefix("calls="))
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("malformed commandstats line: {line}"))?;
            calls.insert(name.to_owned(), n);
        }
        Ok(calls)
    }

    pub async fn stop(mut self) {
        stop(&mut self.child).await;
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        terminate(&self.child);
    }
}

/// What each command was called in a window: `after - before`, zeros left out.
pub fn command_delta(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    after
        .iter()
        .map(|(name, n)| (name.clone(), n - before.get(name).copied().unwrap_or(0).min(*n)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// An `nginx` balancing round robin over `upstreams` (no stickiness), unbuffered, with
/// keep-alive connections to them; `daemon off`, everything in a temporary directory.
pub struct Nginx {
    child: Child,
    pub port: u16,
    /// The master and its workers.
    pub pids: Vec<u32>,
    _dir: TempDir,
}

impl Nginx {
    pub async fn start(programs: &Programs, upstreams: &[u16], cpus: u64) -> Result<Self> {
        let dir = TempDir::new("nginx")?;
        let port = free_port()?;
        let d = dir.0.display();
        let servers: String = upstreams.iter().map(|p| format!("        server 127.0.0.1:{p};\n")).collect();
        let config = format!(
            "daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{
    worker_connections 4096;
}}
http {{
    access_log off;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    tcp_nodelay on;
    keepalive_requests 1000000;
    upstream replicas {{
{servers}        keepalive 128;
        keepalive_requests 1000000;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://replicas;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_set_header Host $http_host;
            proxy_buffering off;
        }}
    }}
}}
"
        );
        let conf = dir.0.join("nginx.conf");
        std::fs::write(&conf, config)?;
        let (prefix, conf, log) =
            (format!("{d}/"), conf.display().to_string(), dir.0.join("error.log").display().to_string());
        let mut child = spawn(&programs.nginx, &["-p", &prefix, "-e", &log, "-c", &conf], cpus)?;
        let master = child.id().ok_or("nginx: no pid")?;
        if let Err(err) = until_listening(&mut child, port, "nginx").await {
            terminate(&child);
            let log = std::fs::read_to_string(dir.0.join("error.log")).unwrap_or_default();
            return Err(format!("{err}; its error log: {log}").into());
        }
        let mut nginx = Self { child, port, pids: vec![master], _dir: dir };
        // Its workers, for their CPU time (forked once it listens).
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let workers = children_of(master);
            if !workers.is_empty() {
                nginx.pids.extend(workers);
                return Ok(nginx);
            }
            if Instant::now() > deadline {
                return Err("nginx started no worker within 5 s".into());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub async fn stop(mut self) {
        stop(&mut self.child).await;
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        terminate(&self.child);
    }
}

/// The processes whose parent is `pid` (`/proc/*/stat`).
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|child| {
            std::fs::read_to_string(format!("/proc/{child}/stat")).ok().is_some_and(|stat| {
                stat.rfind(')').and_then(|end| stat[end + 2..].split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_says_what_installs_it() {
        let err = find_in(&[PathBuf::from("/nonexistent")], "redis-server").unwrap_err().to_string();
        assert!(err.starts_with("redis-server not found"), "{err}");
        assert!(err.contains("scripts/services.sh") && err.contains("--no-redis"), "{err}");
    }

    #[test]
    fn command_deltas_leave_out_what_did_not_run() {
        let before = BTreeMap::from([("get".to_owned(), 3), ("set".to_owned(), 1)]);
        let after = BTreeMap::from([("get".to_owned(), 3), ("set".to_owned(), 4), ("pexpire".to_owned(), 2)]);
        let delta = command_delta(&before, &after);
        assert_eq!(delta, BTreeMap::from([("pexpire".to_owned(), 2), ("set".to_owned(), 3)]));
    }
}
