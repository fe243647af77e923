//! The benchmark harness: spawns each server, drives it over stdio and HTTP, repeats the whole
//! comparison `--runs` times alternating the servers (ours, rmcp, ceiling, ours, ...), and writes
//! the medians and ratios to a Markdown report.
//!
//! `harness --bench-dir bench --runs 5 --compile-runs 3 --out BENCHMARKS.md --command "..."`
//! (`./bench/run.sh` builds everything in release and runs this).
//!
//! The client runs on one thread (a current-thread tokio runtime) so it takes at most one of the
//! machine's cores from the server; it is the same client for every server.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

type Error = Box<dyn std::error::Error + Send + Sync>;
type Result<T> = std::result::Result<T, Error>;

const SERVERS: [(&str, &str); 3] = [("ours", "bench-ours"), ("rmcp", "bench-rmcp"), ("ceiling", "bench-ceiling")];
const PROTOCOL: &str = "2025-11-25";

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-harness","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn echo_call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello, benchmark"}}}}}}"#
    )
}
fn big_call(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"big","arguments":{{}}}}}}"#)
}
fn list_call(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{}}}}"#)
}

/// Sizes of each workload.
#[derive(Clone, Copy)]
struct Sizes {
    startups: usize,
    stdio_seq: u64,
    stdio_pipelined: u64,
    big: u64,
    list: u64,
    http_calls_per_level: u64,
    idle_sessions: usize,
}

const FULL: Sizes = Sizes {
    startups: 20,
    stdio_seq: 20_000,
    stdio_pipelined: 60_000,
    big: 2_000,
    list: 2_000,
    http_calls_per_level: 8_000,
    idle_sessions: 1_000,
};
const QUICK: Sizes = Sizes {
    startups: 5,
    stdio_seq: 2_000,
    stdio_pipelined: 5_000,
    big: 200,
    list: 200,
    http_calls_per_level: 1_000,
    idle_sessions: 1_000,
};

/// One metric: key, label, unit, whether higher is better.
struct Metric {
    key: &'static str,
    label: &'static str,
    unit: &'static str,
    higher_is_better: bool,
}

const METRICS: &[Metric] = &[
    Metric {
        key: "stdio_seq_rps",
        label: "stdio `tools/call`, 1 in flight: throughput",
        unit: "calls/s",
        higher_is_better: true,
    },
    Metric {
        key: "stdio_seq_p50", label: "stdio `tools/call`, 1 in flight: p50", unit: "µs", higher_is_better: false
    },
    Metric {
        key: "stdio_seq_p99", label: "stdio `tools/call`, 1 in flight: p99", unit: "µs", higher_is_better: false
    },
    Metric {
        key: "stdio_seq_cpu",
        label: "stdio `tools/call`, 1 in flight: server CPU time per call",
        unit: "µs",
        higher_is_better: false,
    },
    Metric {
        key: "stdio_seq_cs",
        label: "stdio `tools/call`, 1 in flight: server context switches per call",
        unit: "",
        higher_is_better: false,
    },
    Metric {
        key: "stdio_32_rps",
        label: "stdio `tools/call`, 32 in flight: throughput",
        unit: "calls/s",
        higher_is_better: true,
    },
    Metric {
        key: "stdio_32_p50", label: "stdio `tools/call`, 32 in flight: p50", unit: "µs", higher_is_better: false
    },
    Metric {
        key: "stdio_32_p99", label: "stdio `tools/call`, 32 in flight: p99", unit: "µs", higher_is_better: false
    },
    Metric {
        key: "stdio_32_cpu",
        label: "stdio `tools/call`, 32 in flight: server CPU time per call",
        unit: "µs",
        higher_is_better: false,
    },
    Metric { key: "big_p50", label: "stdio 64 KB result: p50", unit: "µs", higher_is_better: false },
    Metric { key: "big_rps", label: "stdio 64 KB result: throughput", unit: "calls/s", higher_is_better: true },
    Metric { key: "list_p50", label: "stdio `tools/list` (103 tools): p50", unit: "µs", higher_is_better: false },
    Metric { key: "http1_rps", label: "HTTP, 1 session: throughput", unit: "calls/s", higher_is_better: true },
    Metric { key: "http1_p50", label: "HTTP, 1 session: p50", unit: "µs", higher_is_better: false },
    Metric { key: "http1_p99", label: "HTTP, 1 session: p99", unit: "µs", higher_is_better: false },
    Metric { key: "http16_rps", label: "HTTP, 16 sessions: throughput", unit: "calls/s", higher_is_better: true },
    Metric { key: "http16_p50", label: "HTTP, 16 sessions: p50", unit: "µs", higher_is_better: false },
    Metric { key: "http16_p99", label: "HTTP, 16 sessions: p99", unit: "µs", higher_is_better: false },
    Metric { key: "http64_rps", label: "HTTP, 64 sessions: throughput", unit: "calls/s", higher_is_better: true },
    Metric { key: "http64_p50", label: "HTTP, 64 sessions: p50", unit: "µs", higher_is_better: false },
    Metric { key: "http64_p99", label: "HTTP, 64 sessions: p99", unit: "µs", higher_is_better: false },
    Metric {
        key: "startup_ms",
        label: "start-up (spawn to `initialize` answered), median",
        unit: "ms",
        higher_is_better: false,
    },
    Metric { key: "stdio_hwm_kb", label: "peak memory, stdio run (VmHWM)", unit: "KiB", higher_is_better: false },
    Metric { key: "http_hwm_kb", label: "peak memory, HTTP run (VmHWM)", unit: "KiB", higher_is_better: false },
    Metric {
        key: "idle_session_bytes",
        label: "memory per idle HTTP session (RSS delta / 1000)",
        unit: "bytes",
        higher_is_better: false,
    },
    Metric {
        key: "compile_s",
        label: "compile time, 100-tool server crate (deps prebuilt)",
        unit: "s",
        higher_is_better: false,
    },
    Metric { key: "binary_kb", label: "release binary size, 100-tool server", unit: "KiB", higher_is_better: false },
];

type Samples = BTreeMap<&'static str, Vec<f64>>;

struct Args {
    bench_dir: PathBuf,
    runs: usize,
    compile_runs: usize,
    out: Option<PathBuf>,
    command: String,
    sizes: Sizes,
    only: Option<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        bench_dir: PathBuf::from("bench"),
        runs: 5,
        compile_runs: 3,
        out: None,
        command: "./bench/run.sh".into(),
        sizes: FULL,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--bench-dir" => args.bench_dir = value().into(),
            "--runs" => args.runs = value().parse().expect("--runs N"),
            "--compile-runs" => args.compile_runs = value().parse().expect("--compile-runs N"),
            "--out" => args.out = Some(value().into()),
            "--command" => args.command = value(),
            "--only" => args.only = Some(value()),
            "--quick" => args.sizes = QUICK,
            other => panic!("unknown flag {other}"),
        }
    }
    args
}

fn main() -> Result<()> {
    let args = parse_args();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(run(args))
}

async fn run(args: Args) -> Result<()> {
    let bin_dir = args.bench_dir.join("target/release");
    let load_before = loadavg();
    let started = Instant::now();
    let mut samples: BTreeMap<&str, Samples> = BTreeMap::new();
    let servers: Vec<_> =
        SERVERS.iter().filter(|(name, _)| args.only.as_deref().is_none_or(|only| only == *name)).copied().collect();
    for run in 0..args.runs {
        eprintln!("run {}/{}: stdio one at a time, the servers interleaved", run + 1, args.runs);
        let exes: Vec<_> = servers.iter().map(|(name, bin)| (*name, bin_dir.join(bin))).collect();
        sequential_interleaved(&exes, args.sizes, &mut samples).await?;
        for &(name, bin) in &servers {
            eprintln!("run {}/{}: {name}", run + 1, args.runs);
            let exe = bin_dir.join(bin);
            let s = samples.entry(name).or_default();
            measure_server(&exe, args.sizes, s).await.map_err(|e| format!("{name}: {e}"))?;
        }
    }
    for run in 0..args.compile_runs {
        for &(name, bin) in &servers {
            eprintln!("compile {}/{}: {name}", run + 1, args.compile_runs);
            let seconds = compile_time(&args.bench_dir, bin)?;
            eprintln!("  {seconds:.2} s");
            samples.entry(name).or_default().entry("compile_s").or_default().push(seconds);
        }
    }
    for &(name, bin) in &servers {
        let size = std::fs::metadata(bin_dir.join(bin))?.len() as f64 / 1024.0;
        samples.entry(name).or_default().entry("binary_kb").or_default().push(size);
    }
    let load_after = loadavg();
    let mut report = report(&args, &samples, &load_before, &load_after, started.elapsed());
    // The analysis (profiles, causes, changes) is kept by hand in bench/NOTES.md.
    if let Ok(notes) = std::fs::read_to_string(args.bench_dir.join("NOTES.md")) {
        report.push_str("\n");
        report.push_str(&notes);
    }
    match &args.out {
        Some(path) => std::fs::write(path, &report)?,
        None => print!("{report}"),
    }
    eprint!("{report}");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Statistics and the report

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    if v.is_empty() {
        return f64::NAN;
    }
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as f64 / 1000.0 // ns -> µs
}

fn fmt_value(v: f64) -> String {
    if v.is_nan() {
        "-".into()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn machine() -> String {
    let lscpu = std::process::Command::new("lscpu").output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let model = lscpu
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("Model name:")).map(|l| l["Model name:".len()..].trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let ram_kb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| s.lines().next().and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<u64>().ok()))
        .unwrap_or(0);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    format!("{model}, {cores} cores, {:.1} GiB RAM, Linux {}, {rustc}", ram_kb as f64 / 1024.0 / 1024.0, kernel.trim())
}

fn report(
    args: &Args,
    samples: &BTreeMap<&str, Samples>,
    load_before: &str,
    load_after: &str,
    took: Duration,
) -> String {
    let med = |server: &str, key: &str| samples.get(server).and_then(|s| s.get(key)).map_or(f64::NAN, |v| median(v));
    let mut out = String::new();
    out.push_str("# Benchmarks\n\n");
    out.push_str(&format!("Command: `{}`\n\n", args.command));
    out.push_str(&format!("Machine: {}\n\n", machine()));
    out.push_str(&format!(
        "Load average (1, 5, 15 min) at start: {load_before}; at end: {load_after}. Took {:.0} s: {} runs of the \
         runtime measurements and {} of the compile measurement, alternating the servers; each cell is the median of the runs.\n\n",
        took.as_secs_f64(),
        args.runs,
        args.compile_runs
    ));
    out.push_str(
        "| Metric | unit | ours | rmcp | ceiling | ours/rmcp | ours/ceiling |\n|---|---|---:|---:|---:|---:|---:|\n",
    );
    for m in METRICS {
        let (o, r, c) = (med("ours", m.key), med("rmcp", m.key), med("ceiling", m.key));
        let better = if m.higher_is_better { "↑" } else { "↓" };
        out.push_str(&format!(
            "| {} {better} | {} | {} | {} | {} | {} | {} |\n",
            m.label,
            m.unit,
            fmt_value(o),
            fmt_value(r),
            fmt_value(c),
            fmt_ratio(o / r),
            fmt_ratio(o / c)
        ));
    }
    out.push_str("\n↑: higher is better; ↓: lower is better. Ratios are ours divided by the other server.\n\n");
    out.push_str("## Targets (issue 8)\n\n| Target | value | met |\n|---|---|---|\n");
    let mut target = |name: &str, value: String, met: bool| {
        out.push_str(&format!("| {name} | {value} | {} |\n", if met { "yes" } else { "**no**" }));
    };
    for (key, what) in [("stdio_seq_rps", "1 in flight"), ("stdio_32_rps", "32 in flight")] {
        let (o, r, c) = (med("ours", key), med("rmcp", key), med("ceiling", key));
        target(&format!("stdio throughput ({what}) ≥ 1.5× rmcp"), format!("{}×", fmt_ratio(o / r)), o / r >= 1.5);
        target(
            &format!("stdio throughput ({what}) within 1.25× of the ceiling"),
            format!("ceiling is {}× ours", fmt_ratio(c / o)),
            c / o <= 1.25,
        );
    }
    let (o, r) = (med("ours", "http16_p99"), med("rmcp", "http16_p99"));
    target("HTTP p99 at 16 sessions ≤ rmcp", format!("{} µs vs {} µs", fmt_value(o), fmt_value(r)), o <= r);
    let o = med("ours", "idle_session_bytes");
    target("≤ 16 KB per idle HTTP session", format!("{:.1} KiB", o / 1024.0), o <= 16.0 * 1024.0);
    let o = med("ours", "startup_ms");
    target("start-up < 5 ms", format!("{} ms", fmt_value(o)), o < 5.0);
    let (o, r) = (med("ours", "compile_s"), med("rmcp", "compile_s"));
    target("compile time of the 100-tool server ≤ rmcp", format!("{} s vs {} s", fmt_value(o), fmt_value(r)), o <= r);
    out.push_str("\n### Every run\n\n");
    for m in METRICS {
        out.push_str(&format!("- {} ({}):", m.key, m.unit));
        for (server, _) in SERVERS {
            if let Some(v) = samples.get(server).and_then(|s| s.get(m.key)) {
                let vals: Vec<_> = v.iter().map(|x| fmt_value(*x)).collect();
                out.push_str(&format!(" {server} [{}];", vals.join(", ")));
            }
        }
        out.push('\n');
    }
    out
}

fn fmt_ratio(r: f64) -> String {
    if r.is_nan() || r.is_infinite() { "-".into() } else { format!("{r:.2}") }
}

// ---------------------------------------------------------------------------------------------
// Compile time

fn compile_time(bench_dir: &Path, bin: &str) -> Result<f64> {
    let krate = match bin {
        "bench-ours" => "ours",
        "bench-rmcp" => "rmcp-server",
        _ => "ceiling",
    };
    let main = bench_dir.join(krate).join("src/main.rs");
    // Bump the mtime: cargo rebuilds just this crate (its build script and deps are fresh).
    let file = std::fs::OpenOptions::new().append(true).open(&main)?;
    file.set_modified(std::time::SystemTime::now())?;
    drop(file);
    let start = Instant::now();
    let status = std::process::Command::new("cargo")
        .args(["build", "--release", "--quiet", "-p", bin])
        .current_dir(bench_dir)
        .status()?;
    let took = start.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("cargo build -p {bin} failed").into());
    }
    Ok(took)
}

// ---------------------------------------------------------------------------------------------
// One server, one run

/// `tools/call` one at a time on stdio, the servers running side by side and measured in
/// turn, a slice at a time: how fast a cross-thread wake-up is on this VM changes from second
/// to second (an idle vCPU is slow to wake), and one-at-a-time latency is mostly wake-ups, so
/// the servers must share the same moments.
async fn sequential_interleaved(
    exes: &[(&'static str, PathBuf)],
    sizes: Sizes,
    samples: &mut BTreeMap<&str, Samples>,
) -> Result<()> {
    const SLICES: u64 = 10;
    let mut servers = Vec::new();
    for (name, exe) in exes {
        let mut server = StdioServer::spawn(exe).await?;
        server.initialize().await?;
        server.sequential(sizes.stdio_seq / 10, echo_call, "hello, benchmark", true).await?; // warm-up
        servers.push((*name, server, 0.0f64, Vec::new(), 0.0f64, 0.0f64));
    }
    let per_slice = sizes.stdio_seq / SLICES;
    for _ in 0..SLICES {
        for (_, server, seconds, latencies, cpu, switches) in &mut servers {
            let (cpu0, switches0) = (cpu_seconds(server.pid)?, context_switches(server.pid)?);
            let (rps, lat) = server.sequential(per_slice, echo_call, "hello, benchmark", false).await?;
            *cpu += cpu_seconds(server.pid)? - cpu0;
            *switches += context_switches(server.pid)? - switches0;
            *seconds += per_slice as f64 / rps;
            latencies.extend(lat);
        }
    }
    for (name, server, seconds, mut latencies, cpu, switches) in servers {
        let calls = (per_slice * SLICES) as f64;
        latencies.sort_unstable();
        let s = samples.entry(name).or_default();
        let mut push = |key: &'static str, v: f64| s.entry(key).or_default().push(v);
        push("stdio_seq_rps", calls / seconds);
        push("stdio_seq_p50", percentile(&latencies, 50.0));
        push("stdio_seq_p99", percentile(&latencies, 99.0));
        push("stdio_seq_cpu", cpu * 1e6 / calls);
        push("stdio_seq_cs", switches / calls);
        server.close().await?;
    }
    Ok(())
}

async fn measure_server(exe: &Path, sizes: Sizes, s: &mut Samples) -> Result<()> {
    let mut push = |key: &'static str, v: f64| s.entry(key).or_default().push(v);

    // Start-up: spawn to the initialize answer, median of several spawns.
    let mut startups = Vec::new();
    for _ in 0..sizes.startups {
        let start = Instant::now();
        let mut server = StdioServer::spawn(exe).await?;
        server.initialize().await?;
        startups.push(start.elapsed().as_secs_f64() * 1000.0);
        server.close().await?;
    }
    push("startup_ms", median(&startups));

    // stdio workloads on one process.
    let mut server = StdioServer::spawn(exe).await?;
    server.initialize().await?;
    let cpu = cpu_seconds(server.pid)?;
    let (rps, lat) = server.pipelined(sizes.stdio_pipelined, 32).await?;
    push("stdio_32_cpu", (cpu_seconds(server.pid)? - cpu) * 1e6 / sizes.stdio_pipelined as f64);
    push("stdio_32_rps", rps);
    push("stdio_32_p50", percentile(&lat, 50.0));
    push("stdio_32_p99", percentile(&lat, 99.0));
    let (rps, lat) = server.sequential(sizes.big, big_call, "0123456789abcdef0123", true).await?;
    push("big_rps", rps);
    push("big_p50", percentile(&lat, 50.0));
    let (_, lat) = server.sequential(sizes.list, list_call, "tool_099", true).await?;
    push("list_p50", percentile(&lat, 50.0));
    push("stdio_hwm_kb", proc_status_kb(server.pid, "VmHWM")?);
    server.close().await?;

    // HTTP load, then idle sessions, each on a fresh process.
    let http = HttpServer::spawn(exe).await?;
    for (sessions, prefix) in [(1usize, "http1"), (16, "http16"), (64, "http64")] {
        let (rps, lat) = http.load(sessions, sizes.http_calls_per_level).await?;
        push(leak(format!("{prefix}_rps")), rps);
        push(leak(format!("{prefix}_p50")), percentile(&lat, 50.0));
        push(leak(format!("{prefix}_p99")), percentile(&lat, 99.0));
    }
    push("http_hwm_kb", proc_status_kb(http.pid, "VmHWM")?);
    drop(http);

    let http = HttpServer::spawn(exe).await?;
    push("idle_session_bytes", http.idle_sessions(sizes.idle_sessions).await?);
    drop(http);
    Ok(())
}

/// Metric keys are `&'static str`; the few built with `format!` are interned once.
fn leak(key: String) -> &'static str {
    for m in METRICS {
        if m.key == key {
            return m.key;
        }
    }
    panic!("unknown metric {key}")
}

fn proc_status_kb(pid: u32, field: &str) -> Result<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line =
        status.lines().find(|l| l.starts_with(field)).ok_or_else(|| format!("no {field} in /proc/{pid}/status"))?;
    Ok(line.split_whitespace().nth(1).ok_or("malformed status line")?.parse()?)
}

#[derive(Deserialize)]
struct Incoming {
    id: Option<u64>,
}

fn response_id(line: &[u8]) -> Result<Option<u64>> {
    Ok(serde_json::from_slice::<Incoming>(line).map_err(|e| format!("bad message from server: {e}"))?.id)
}

// ---------------------------------------------------------------------------------------------
// stdio

struct StdioServer {
    child: Child,
    pid: u32,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl StdioServer {
    async fn spawn(exe: &Path) -> Result<Self> {
        let mut child = Command::new(exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", exe.display()))?;
        let pid = child.id().ok_or("no pid")?;
        let stdin = BufWriter::with_capacity(64 * 1024, child.stdin.take().unwrap());
        let stdout = BufReader::with_capacity(256 * 1024, child.stdout.take().unwrap());
        Ok(Self { child, pid, stdin: Some(stdin), stdout, line: Vec::new() })
    }

    fn stdin(&mut self) -> &mut BufWriter<ChildStdin> {
        self.stdin.as_mut().unwrap()
    }

    /// The next message that answers a request (notifications are skipped): its id.
    async fn next_response(&mut self) -> Result<u64> {
        loop {
            self.line.clear();
            if self.stdout.read_until(b'\n', &mut self.line).await? == 0 {
                return Err("server closed stdout".into());
            }
            if let Some(id) = response_id(&self.line)? {
                return Ok(id);
            }
        }
    }

    async fn send(&mut self, line: &str) -> Result<()> {
        let stdin = self.stdin();
        stdin.write_all(line.as_bytes()).await?;
        stdin.write_all(b"\n").await?;
        stdin.flush().await?;
        Ok(())
    }

    async fn initialize(&mut self) -> Result<()> {
        self.send(INITIALIZE).await?;
        let id = self.next_response().await?;
        if id != 0 || !contains(&self.line, b"\"result\"") {
            return Err(format!("bad initialize answer: {}", String::from_utf8_lossy(&self.line)).into());
        }
        self.send(INITIALIZED).await
    }

    /// `count` requests one at a time: (calls/s, latencies in ns, sorted). The first answer is
    /// checked for `expect`.
    async fn sequential(
        &mut self,
        count: u64,
        request: fn(u64) -> String,
        expect: &str,
        warm_up: bool,
    ) -> Result<(f64, Vec<u64>)> {
        let warmup = if warm_up { (count / 10).max(10) } else { 0 };
        let mut latencies = Vec::with_capacity(count as usize);
        let mut start = Instant::now();
        for i in 0..warmup + count {
            if i == warmup {
                start = Instant::now();
            }
            let id = 1_000_000 + i;
            let line = request(id);
            let sent = Instant::now();
            self.send(&line).await?;
            let got = self.next_response().await?;
            let took = sent.elapsed();
            if got != id {
                return Err(format!("answer to {got} while waiting for {id}").into());
            }
            if i == 0 && !(contains(&self.line, expect.as_bytes()) && contains(&self.line, b"\"result\"")) {
                let text = String::from_utf8_lossy(&self.line);
                return Err(format!("unexpected answer: {}", &text[..text.len().min(300)]).into());
            }
            if i >= warmup {
                latencies.push(took.as_nanos() as u64);
            }
        }
        let rps = count as f64 / start.elapsed().as_secs_f64();
        latencies.sort_unstable();
        Ok((rps, latencies))
    }

    /// `count` echo calls with `depth` in flight: (calls/s, latencies in ns, sorted). Every
    /// request must be answered exactly once.
    async fn pipelined(&mut self, count: u64, depth: u64) -> Result<(f64, Vec<u64>)> {
        let base = 10_000_000u64;
        let sent_at: Arc<Vec<AtomicU64>> = Arc::new((0..count).map(|_| AtomicU64::new(0)).collect());
        let t0 = Instant::now();
        let permits = Arc::new(tokio::sync::Semaphore::new(depth as usize));
        let mut stdin = self.stdin.take().unwrap();
        let writer = {
            let sent_at = sent_at.clone();
            let permits = permits.clone();
            tokio::spawn(async move {
                let mut i = 0;
                while i < count {
                    permits.acquire().await.unwrap().forget();
                    let mut batch = 1;
                    while i + batch < count && permits.try_acquire().map(|p| p.forget()).is_ok() {
                        batch += 1;
                    }
                    let now = t0.elapsed().as_nanos() as u64;
                    for j in i..i + batch {
                        sent_at[j as usize].store(now, Ordering::Relaxed);
                        stdin.write_all(echo_call(base + j).as_bytes()).await?;
                        stdin.write_all(b"\n").await?;
                    }
                    stdin.flush().await?;
                    i += batch;
                }
                Ok::<_, std::io::Error>(stdin)
            })
        };
        let mut latencies = Vec::with_capacity(count as usize);
        let mut seen = vec![false; count as usize];
        while (latencies.len() as u64) < count {
            let id = self.next_response().await?;
            let now = t0.elapsed().as_nanos() as u64;
            let index =
                id.checked_sub(base).filter(|i| *i < count).ok_or_else(|| format!("unexpected id {id}"))? as usize;
            if std::mem::replace(&mut seen[index], true) {
                return Err(format!("id {id} answered twice").into());
            }
            latencies.push(now.saturating_sub(sent_at[index].load(Ordering::Relaxed)));
            permits.add_permits(1);
        }
        let rps = count as f64 / t0.elapsed().as_secs_f64();
        self.stdin = Some(writer.await??);
        latencies.sort_unstable();
        Ok((rps, latencies))
    }

    async fn close(mut self) -> Result<()> {
        drop(self.stdin.take());
        match tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await {
            Ok(status) => {
                status?;
            }
            Err(_) => self.child.kill().await?,
        }
        Ok(())
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

// ---------------------------------------------------------------------------------------------
// HTTP

struct HttpServer {
    _child: Child,
    pid: u32,
    port: u16,
}

struct Session {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    id: String,
    port: u16,
}

impl HttpServer {
    async fn spawn(exe: &Path) -> Result<Self> {
        let mut child = Command::new(exe)
            .arg("http")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let pid = child.id().ok_or("no pid")?;
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(10), stdout.read_line(&mut line)).await??;
        let port = line.trim().parse().map_err(|_| format!("expected a port, got {line:?}"))?;
        // Keep draining stdout so the server never blocks on it.
        tokio::spawn(async move {
            let mut sink = tokio::io::sink();
            let _ = tokio::io::copy(&mut stdout, &mut sink).await;
        });
        Ok(Self { _child: child, pid, port })
    }

    async fn connect(&self) -> Result<hyper::client::conn::http1::SendRequest<Full<Bytes>>> {
        let stream = tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(sender)
    }

    /// A new session on a new connection (initialize, then notifications/initialized).
    async fn session(&self) -> Result<Session> {
        let sender = self.connect().await?;
        let mut session = Session { sender, id: String::new(), port: self.port };
        session.open().await?;
        Ok(session)
    }

    /// `sessions` sessions, each calling echo one call at a time, `total` calls in all.
    async fn load(&self, sessions: usize, total: u64) -> Result<(f64, Vec<u64>)> {
        let mut opened = Vec::new();
        for _ in 0..sessions {
            opened.push(self.session().await?);
        }
        let per_session = total / sessions as u64;
        let warmup = (per_session / 10).max(5);
        let start_gate = Arc::new(tokio::sync::Barrier::new(sessions + 1));
        let mut tasks = Vec::new();
        for mut session in opened {
            let gate = start_gate.clone();
            tasks.push(tokio::spawn(async move {
                for i in 0..warmup {
                    session.call(&echo_call(i)).await?;
                }
                gate.wait().await;
                let mut latencies = Vec::with_capacity(per_session as usize);
                for i in 0..per_session {
                    let start = Instant::now();
                    session.call(&echo_call(1000 + i)).await?;
                    latencies.push(start.elapsed().as_nanos() as u64);
                }
                Ok::<_, Error>(latencies)
            }));
        }
        start_gate.wait().await;
        let start = Instant::now();
        let mut latencies = Vec::new();
        for task in tasks {
            latencies.extend(task.await??);
        }
        let rps = latencies.len() as f64 / start.elapsed().as_secs_f64();
        latencies.sort_unstable();
        Ok((rps, latencies))
    }

    /// Opens `count` sessions (after a few to warm the allocator), closes the connections, and
    /// returns the RSS growth per session in bytes.
    async fn idle_sessions(&self, count: usize) -> Result<f64> {
        let mut warm = Vec::new();
        for _ in 0..10 {
            warm.push(self.session().await?);
        }
        drop(warm);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let before = proc_status_kb(self.pid, "VmRSS")?;
        let connections = 8;
        let mut tasks = Vec::new();
        for c in 0..connections {
            let mut sender = self.connect().await?;
            let port = self.port;
            let n = count / connections + usize::from(c < count % connections);
            tasks.push(tokio::spawn(async move {
                for _ in 0..n {
                    let mut session = Session { sender, id: String::new(), port };
                    session.open().await?;
                    sender = session.sender;
                }
                Ok::<_, Error>(())
            }));
        }
        for task in tasks {
            task.await??;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = proc_status_kb(self.pid, "VmRSS")?;
        Ok((after - before) * 1024.0 / count as f64)
    }
}

impl Session {
    fn request(&self, body: &str) -> hyper::Request<Full<Bytes>> {
        let mut builder = hyper::Request::post("/mcp")
            .header("host", format!("127.0.0.1:{}", self.port))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if !self.id.is_empty() {
            builder = builder.header("mcp-session-id", &self.id).header("mcp-protocol-version", PROTOCOL);
        }
        builder.body(Full::new(Bytes::copy_from_slice(body.as_bytes()))).unwrap()
    }

    async fn open(&mut self) -> Result<()> {
        self.sender.ready().await?;
        let response = self.sender.send_request(self.request(INITIALIZE)).await?;
        if !response.status().is_success() {
            return Err(format!("initialize: HTTP {}", response.status()).into());
        }
        self.id = response.headers().get("mcp-session-id").ok_or("initialize: no mcp-session-id")?.to_str()?.to_owned();
        read_answer(response, 0).await?;
        self.sender.ready().await?;
        let response = self.sender.send_request(self.request(INITIALIZED)).await?;
        let status = response.status();
        response.into_body().collect().await?;
        if status.as_u16() != 202 {
            return Err(format!("notifications/initialized: HTTP {status}").into());
        }
        Ok(())
    }

    async fn call(&mut self, body: &str) -> Result<()> {
        self.sender.ready().await?;
        let response = self.sender.send_request(self.request(body)).await?;
        if !response.status().is_success() {
            return Err(format!("tools/call: HTTP {}", response.status()).into());
        }
        let id = response_id(body.as_bytes())?.unwrap();
        let answer = read_answer(response, id).await?;
        if !contains(&answer, b"\"result\"") {
            return Err(format!("tools/call: {}", String::from_utf8_lossy(&answer)).into());
        }
        Ok(())
    }
}

/// Reads a POST's answer (a JSON body, or an SSE stream read to its end) and returns the
/// message answering `id`.
async fn read_answer(response: hyper::Response<hyper::body::Incoming>, id: u64) -> Result<Vec<u8>> {
    let sse = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let body = response.into_body().collect().await?.to_bytes();
    if !sse {
        return Ok(body.to_vec());
    }
    for line in body.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(data) = line.strip_prefix(b"data:") {
            let data = data.strip_prefix(b" ").unwrap_or(data);
            if !data.is_empty() && response_id(data).ok().flatten() == Some(id) {
                return Ok(data.to_vec());
            }
        }
    }
    Err(format!("no answer to {id} in the SSE stream: {}", String::from_utf8_lossy(&body)).into())
}

/// User plus system CPU time of a process so far, in seconds (`/proc/<pid>/stat`, 100 Hz ticks).
fn cpu_seconds(pid: u32) -> Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')').ok_or("malformed stat")? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>()? + fields[12].parse::<f64>()?;
    Ok(ticks / 100.0)
}

/// Context switches (voluntary and not) of all of a process's threads so far.
fn context_switches(pid: u32) -> Result<f64> {
    let mut total = 0.0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let status = std::fs::read_to_string(task?.path().join("status"))?;
        for line in status.lines().filter(|l| l.contains("ctxt_switches:")) {
            total += line.split_whitespace().nth(1).ok_or("malformed status")?.parse::<f64>()?;
        }
    }
    Ok(total)
}
