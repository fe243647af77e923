//! The benchmark harness: spawns each server, drives it over stdio and HTTP, pinned and
//! unpinned, repeats the whole comparison `--runs` times alternating the servers, and writes
//! the medians, ranges and ratios to a Markdown report.
//!
//! `harness --bench-dir bench --runs 5 --compile-runs 3 --cold-runs 1 --out BENCHMARKS.md --summary
//! docs/guide/src/status.md --command "..."` (`./bench/run.sh` builds everything in release and runs this). For
//! development: `--quick`, `--only ours,ceiling`, `--pinned` or `--unpinned`, `--no-http`,
//! `--pipelined N` (calls of the 32-in-flight measurement, after `--quick`), `--scale N` (idle
//! sessions of the scale scenario, `scale.rs`; 100,000 in a full run) or `--no-scale`, `--no-allocations`
//! (no counts under valgrind's DHAT), `--no-redis` (no
//! scenarios with the Redis session store), `--redis-only` (only those: our HTTP server with its
//! sessions in memory, in Redis, and in Redis as three replicas behind nginx; no compile rounds).
//! Only the builds: `--runs 0 --no-allocations` (`--compile-runs N`, `--cold-runs N`).
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

mod allocations;
mod build;
mod placement;
mod report;
mod scale;
mod services;

use placement::Placement;
use report::{Results, Samples, metric_key, percentile};
use services::{Nginx, Programs, Redis};

/// A server the harness measures.
#[derive(Clone, Copy)]
pub struct Server {
    /// Its key in the samples.
    pub name: &'static str,
    /// Its column in the report.
    pub column: &'static str,
    bin: &'static str,
    /// Arguments that make it serve stdio (`http` makes it serve HTTP).
    stdio_args: &'static [&'static str],
    /// Whether to measure its HTTP (the eager ceiling is the same HTTP server as the other).
    http: bool,
    /// Its crate, for the compile measurement (none for a second form of the same binary).
    krate: Option<&'static str>,
}

pub const SERVERS: [Server; 5] = [
    Server { name: "ours", column: "ours", bin: "bench-ours", stdio_args: &[], http: true, krate: Some("ours") },
    Server {
        name: "ours-current",
        column: "ours, `flavor = \"current_thread\"`",
        bin: "bench-ours",
        stdio_args: &["current-thread"],
        http: false,
        krate: None,
    },
    Server { name: "rmcp", column: "rmcp", bin: "bench-rmcp", stdio_args: &[], http: true, krate: Some("rmcp-server") },
    Server {
        name: "ceiling",
        column: "ceiling, a write per burst",
        bin: "bench-ceiling",
        stdio_args: &[],
        http: true,
        krate: Some("ceiling"),
    },
    Server {
        name: "ceiling-eager",
        column: "ceiling, a write per answer",
        bin: "bench-ceiling",
        stdio_args: &["eager"],
        http: false,
        krate: None,
    },
];

/// How to start a server: its binary, its stdio arguments, the CPUs it may use (0: any).
struct Exe {
    path: PathBuf,
    stdio_args: &'static [&'static str],
    cpus: u64,
}
const PROTOCOL: &str = "2025-11-25";

/// Our server built with the Redis session store (`./bench/run.sh` builds it beside
/// `bench-ours`, which stays without it).
const OURS_WITH_REDIS: &str = "bench-ours-redis";

/// The session counts of the HTTP loads, and their metrics' prefix.
const HTTP_LEVELS: [(usize, &str); 3] = [(1, "http1"), (16, "http16"), (64, "http64")];

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
    /// Only the HTTP load with this many sessions (`--sessions N`), to probe one level.
    http_sessions_only: Option<usize>,
    idle_sessions: usize,
    /// Sessions of the scale scenario (0: not run), and its loads' calls.
    scale_sessions: usize,
    scale_calls: u64,
}

const FULL: Sizes = Sizes {
    startups: 20,
    stdio_seq: 20_000,
    stdio_pipelined: 60_000,
    big: 2_000,
    list: 2_000,
    http_calls_per_level: 8_000,
    http_sessions_only: None,
    idle_sessions: 900,
    scale_sessions: 100_000,
    scale_calls: 8_000,
};
const QUICK: Sizes = Sizes {
    startups: 5,
    stdio_seq: 2_000,
    stdio_pipelined: 5_000,
    big: 200,
    list: 200,
    http_calls_per_level: 1_000,
    http_sessions_only: None,
    idle_sessions: 900,
    scale_sessions: 30_000,
    scale_calls: 1_000,
};

struct Args {
    bench_dir: PathBuf,
    runs: usize,
    compile_runs: usize,
    /// Cold builds (every dependency compiled): minutes each, so fewer than the rebuilds.
    cold_runs: usize,
    out: Option<PathBuf>,
    /// The page whose bench-summary markers get the run's summary (the guide's status page).
    summary: Option<PathBuf>,
    command: String,
    sizes: Sizes,
    only: Option<Vec<String>>,
    placements: Vec<Placement>,
    /// The stdio scenarios and start-up (`--no-stdio` leaves them out, to probe HTTP alone).
    stdio: bool,
    http: bool,
    /// The scenarios with the Redis session store (issue 17).
    redis: bool,
    /// Only those.
    redis_only: bool,
    /// Allocations per call, counted under valgrind's DHAT.
    allocations: bool,
}

fn parse_args() -> Args {
    let mut args = Args {
        bench_dir: PathBuf::from("bench"),
        runs: 5,
        compile_runs: 3,
        cold_runs: 1,
        out: None,
        summary: None,
        command: "./bench/run.sh".into(),
        sizes: FULL,
        only: None,
        placements: vec![Placement::Pinned, Placement::Unpinned],
        stdio: true,
        http: true,
        redis: true,
        redis_only: false,
        allocations: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--bench-dir" => args.bench_dir = value().into(),
            "--runs" => args.runs = value().parse().expect("--runs N"),
            "--compile-runs" => args.compile_runs = value().parse().expect("--compile-runs N"),
            "--cold-runs" => args.cold_runs = value().parse().expect("--cold-runs N"),
            "--out" => args.out = Some(value().into()),
            "--summary" => args.summary = Some(value().into()),
            "--command" => args.command = value(),
            "--only" => args.only = Some(value().split(',').map(str::to_owned).collect()),
            "--pinned" => args.placements = vec![Placement::Pinned],
            "--unpinned" => args.placements = vec![Placement::Unpinned],
            "--no-http" => args.http = false,
            "--no-stdio" => args.stdio = false,
            "--sessions" => args.sizes.http_sessions_only = Some(value().parse().expect("--sessions N")),
            "--http-calls" => args.sizes.http_calls_per_level = value().parse().expect("--http-calls N"),
            "--no-redis" => args.redis = false,
            "--redis-only" => args.redis_only = true,
            "--no-allocations" => args.allocations = false,
            "--scale" => args.sizes.scale_sessions = value().parse().expect("--scale N"),
            "--no-scale" => args.sizes.scale_sessions = 0,
            "--quick" => args.sizes = QUICK,
            "--pipelined" => args.sizes.stdio_pipelined = value().parse().expect("--pipelined N"),
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

async fn run(mut args: Args) -> Result<()> {
    let bin_dir = args.bench_dir.join("target/release");
    let load_before = loadavg();
    let started = Instant::now();
    let all_cpus = placement::all_cpus()?;
    if all_cpus.count_ones() < 2 && args.placements.contains(&Placement::Pinned) {
        eprintln!("fewer than 2 CPUs: measuring unpinned only");
        args.placements = vec![Placement::Unpinned];
    }
    let servers: Vec<Server> = SERVERS
        .iter()
        .filter(|s| args.only.as_ref().is_none_or(|only| only.iter().any(|o| o == s.name)))
        .copied()
        .collect();
    let mut results = Results { placements: args.placements.clone(), ..Results::default() };
    // The Redis scenarios need our server built with the store, redis-server and nginx: checked
    // before anything is measured.
    let store_scenarios = args.http && (args.redis || args.redis_only) && servers.iter().any(|s| s.name == "ours");
    if args.redis_only && !store_scenarios {
        return Err("--redis-only: nothing to run (the Redis scenarios need ours, and HTTP)".into());
    }
    let programs = match store_scenarios {
        true => {
            let with_store = bin_dir.join(OURS_WITH_REDIS);
            if !with_store.is_file() {
                return Err(format!("{} is missing: ./bench/run.sh builds it", with_store.display()).into());
            }
            Some(Programs::find()?)
        }
        false => None,
    };
    results.tools = same_tools(&bin_dir, &servers).await?;
    for run in 0..args.runs {
        for &placement in &args.placements {
            placement.apply_to_client(all_cpus)?;
            let cpus = placement.server_cpus(all_cpus);
            let round = format!("round {}/{}, {}", run + 1, args.runs, placement.key());
            if !args.redis_only {
                eprintln!("{round}: stdio one at a time, the servers interleaved");
                sequential_interleaved(&bin_dir, &servers, cpus, args.sizes, placement, &mut results.runtime).await?;
                // Each round starts one server later, so none is always the first after the
                // round's other loads (the interleaved stdio run, the Redis scenarios).
                for server in servers.iter().cycle().skip(run % servers.len()).take(servers.len()) {
                    eprintln!("{round}: {}", server.name);
                    let s = results.runtime.entry((placement, server.name)).or_default();
                    let exe = Exe { path: bin_dir.join(server.bin), stdio_args: server.stdio_args, cpus };
                    measure_server(
                        &exe,
                        args.stdio,
                        server.http && args.http,
                        run == 0 && server.name == "ours",
                        args.sizes,
                        s,
                    )
                    .await
                    .map_err(|e| format!("{}: {e}", server.name))?;
                }
            }
            if let Some(programs) = &programs {
                eprintln!(
                    "{round}: ours over HTTP, sessions in memory, in Redis, in Redis with 3 replicas behind nginx"
                );
                session_stores(&bin_dir, programs, cpus, args.sizes, run, placement, &mut results.stores).await?;
            }
        }
    }
    Placement::Unpinned.apply_to_client(all_cpus)?;
    // Counts, which the load does not move: once, after the timed rounds.
    for server in servers.iter().filter(|s| s.krate.is_some() && args.allocations && !args.redis_only) {
        eprintln!("allocations per call (valgrind's DHAT): {}", server.name);
        let exe = Exe { path: bin_dir.join(server.bin), stdio_args: server.stdio_args, cpus: 0 };
        let samples = results.allocations.entry(server.name).or_default();
        allocations::per_call(&exe, server.http && args.http, samples)
            .await
            .map_err(|e| format!("allocations of {}: {e}", server.name))?;
    }
    let compile_runs = if args.redis_only { 0 } else { args.compile_runs };
    let cold_runs = if args.redis_only { 0 } else { args.cold_runs };
    let crates: Vec<(&str, build::Crate)> = servers
        .iter()
        .filter_map(|s| s.krate.map(|dir| (s.name, build::Crate { dir, bin: s.bin })))
        .filter(|_| compile_runs + cold_runs > 0)
        .collect();
    if !crates.is_empty() {
        eprintln!("builds: the four-tool crates, untimed");
        build::warm_up(&args.bench_dir, &crates.iter().map(|(_, c)| *c).collect::<Vec<_>>())?;
    }
    for run in 0..compile_runs {
        for (name, krate) in &crates {
            eprintln!("compile {}/{compile_runs}: {name}", run + 1);
            build::rebuild_round(&args.bench_dir, *krate, results.build.entry(name).or_default())?;
        }
    }
    for run in 0..cold_runs {
        for (name, krate) in &crates {
            eprintln!("cold build {}/{cold_runs}: {name}", run + 1);
            build::cold_round(&args.bench_dir, *krate, results.build.entry(name).or_default())?;
        }
    }
    for (name, krate) in &crates {
        build::sizes(&args.bench_dir, *krate, results.build.entry(name).or_default())?;
    }
    let header = report::Header {
        command: &args.command,
        rounds: args.runs,
        compile_runs,
        cold_runs,
        load_before,
        load_after: loadavg(),
        seconds: started.elapsed().as_secs_f64(),
    };
    let report = report::render(&header, &results, &servers);
    match &args.out {
        Some(path) => std::fs::write(path, &report)?,
        None => print!("{report}"),
    }
    eprint!("{report}");
    if let (Some(path), Some(out)) = (&args.summary, &args.out) {
        let page = std::fs::read_to_string(path)?;
        let summary = report::summary(&results, &relative_link(path, out));
        let updated = report::replace_summary(&page, &summary)
            .ok_or_else(|| format!("{}: no bench-summary markers", path.display()))?;
        std::fs::write(path, updated)?;
    }
    Ok(())
}

/// The link to `target` from the page at `page`, both relative to the repository's root.
fn relative_link(page: &Path, target: &Path) -> String {
    let depth = page.parent().map_or(0, |folder| folder.components().count());
    format!("{}{}", "../".repeat(depth), target.display())
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Every server must list the same tools, or the comparison is unfair: the number of tools.
async fn same_tools(bin_dir: &Path, servers: &[Server]) -> Result<usize> {
    let mut first: Option<(&str, Vec<String>)> = None;
    for server in servers {
        let exe = Exe { path: bin_dir.join(server.bin), stdio_args: server.stdio_args, cpus: 0 };
        let mut process = StdioServer::spawn(&exe).await?;
        process.initialize().await?;
        let names = process.tool_names().await?;
        process.close().await?;
        match &first {
            None => first = Some((server.name, names)),
            Some((name, expected)) if *expected != names => {
                return Err(format!("{} and {name} list different tools", server.name).into());
            }
            Some(_) => {}
        }
    }
    Ok(first.map_or(0, |(_, names)| names.len()))
}

// ---------------------------------------------------------------------------------------------
// One server, one run

/// `tools/call` one at a time on stdio, the servers running side by side and measured in
/// turn, a slice at a time: how fast a cross-thread wake-up is on this VM changes from second
/// to second (an idle vCPU is slow to wake), and one-at-a-time latency is mostly wake-ups, so
/// the servers must share the same moments.
async fn sequential_interleaved(
    bin_dir: &Path,
    servers: &[Server],
    cpus: u64,
    sizes: Sizes,
    placement: Placement,
    samples: &mut BTreeMap<(Placement, &'static str), Samples>,
) -> Result<()> {
    const SLICES: u64 = 10;
    let mut running = Vec::new();
    for server in servers {
        let exe = Exe { path: bin_dir.join(server.bin), stdio_args: server.stdio_args, cpus };
        let mut process = StdioServer::spawn(&exe).await?;
        process.initialize().await?;
        process.sequential(sizes.stdio_seq / 10, echo_call, "hello, benchmark", true).await?; // warm-up
        running.push((server.name, process, 0.0f64, Vec::new(), 0.0f64, 0.0f64));
    }
    let per_slice = sizes.stdio_seq / SLICES;
    for _ in 0..SLICES {
        for (_, server, seconds, latencies, cpu, switches) in &mut running {
            let (cpu0, switches0) = (cpu_seconds(server.pid)?, context_switches(server.pid)?);
            let (rps, lat) = server.sequential(per_slice, echo_call, "hello, benchmark", false).await?;
            *cpu += cpu_seconds(server.pid)? - cpu0;
            *switches += context_switches(server.pid)? - switches0;
            *seconds += per_slice as f64 / rps;
            latencies.extend(lat);
        }
    }
    for (name, server, seconds, mut latencies, cpu, switches) in running {
        let calls = (per_slice * SLICES) as f64;
        latencies.sort_unstable();
        let s = samples.entry((placement, name)).or_default();
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

/// `scale`: also the scale scenario (ours only, its targets being ours' own figures; in the
/// first round of each placement, for its minutes).
async fn measure_server(exe: &Exe, stdio: bool, http: bool, scale: bool, sizes: Sizes, s: &mut Samples) -> Result<()> {
    let mut push = |key: &'static str, v: f64| s.entry(key).or_default().push(v);
    if stdio {
        measure_stdio(exe, sizes, &mut push).await?;
    }
    if !http {
        return Ok(());
    }

    // HTTP load, then idle sessions, each on a fresh process.
    let http = HttpServer::spawn(exe).await?;
    for (sessions, prefix) in HTTP_LEVELS {
        if sizes.http_sessions_only.is_some_and(|only| only != sessions) {
            continue;
        }
        let load = http.load(sessions, sizes.http_calls_per_level).await?;
        push(metric_key(&format!("{prefix}_rps")), load.rps);
        push(metric_key(&format!("{prefix}_p50")), percentile(&load.latencies, 50.0));
        push(metric_key(&format!("{prefix}_p99")), percentile(&load.latencies, 99.0));
        push(metric_key(&format!("{prefix}_cpu")), load.cpu_per_call);
        push(metric_key(&format!("{prefix}_cs")), load.switches_per_call);
    }
    push("http_hwm_kb", proc_status_kb(http.pid, "VmHWM")?);
    drop(http);

    let http = HttpServer::spawn(exe).await?;
    push("idle_session_bytes", http.idle_sessions(sizes.idle_sessions).await?);
    drop(http);

    if scale && sizes.scale_sessions > 0 {
        let measured = scale::measure(exe, sizes.scale_sessions, sizes.scale_calls).await?;
        push("scale_rss_kb", measured.rss_kb);
        push("scale_projected_kb", measured.projected_kb);
        push("scale_streams", measured.streams as f64);
        push("scale_p99_quiet", measured.p99_quiet);
        push("scale_p99_crowded", measured.p99_crowded);
    }
    Ok(())
}

/// Start-up and the stdio workloads.
async fn measure_stdio(exe: &Exe, sizes: Sizes, push: &mut impl FnMut(&'static str, f64)) -> Result<()> {
    // Start-up: spawn to the initialize answer, median of several spawns.
    let mut startups = Vec::new();
    for _ in 0..sizes.startups {
        let start = Instant::now();
        let mut server = StdioServer::spawn(exe).await?;
        server.initialize().await?;
        startups.push(start.elapsed().as_secs_f64() * 1000.0);
        server.close().await?;
    }
    push("startup_ms", report::median(&startups));

    // stdio workloads on one process.
    let mut server = StdioServer::spawn(exe).await?;
    server.initialize().await?;
    let (cpu, switches) = (cpu_seconds(server.pid)?, context_switches(server.pid)?);
    let (rps, lat) = server.pipelined(sizes.stdio_pipelined, 32).await?;
    let calls = sizes.stdio_pipelined as f64;
    push("stdio_32_cpu", (cpu_seconds(server.pid)? - cpu) * 1e6 / calls);
    push("stdio_32_cs", (context_switches(server.pid)? - switches) / calls);
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
    Ok(())
}

/// Issue 17: our HTTP server with its sessions in memory (`memory`), in a Redis of the
/// harness's own (`redis1`), and in that Redis as three replicas behind nginx, round robin
/// (`redis3`): the same binary, the same loads as the HTTP scenarios above. Each setup on fresh
/// processes; the first two alternate their order from round to round; Redis, nginx and the
/// replicas all run on the server's CPUs.
async fn session_stores(
    bin_dir: &Path,
    programs: &Programs,
    cpus: u64,
    sizes: Sizes,
    run: usize,
    placement: Placement,
    stores: &mut report::Stores,
) -> Result<()> {
    /// Warm-up calls per session, at least: enough that, through nginx, every session has met
    /// every replica before the measured window (a replica reads a session it has not served
    /// from Redis once).
    const WARMUP: u64 = 20;
    let exe = Exe { path: bin_dir.join(OURS_WITH_REDIS), stdio_args: &[], cpus };
    let redis = Redis::start(programs, cpus).await?;
    let env = [("REDIS_URL", redis.url()), ("MCP_REQUEST_STATE_SECRET", "bench-harness".to_owned())];
    let order = if run.is_multiple_of(2) { ["memory", "redis1", "redis3"] } else { ["redis1", "memory", "redis3"] };
    for setup in order {
        let (count, env) = match setup {
            "memory" => (1, &[][..]),
            "redis1" => (1, &env[..]),
            _ => (3, &env[..]),
        };
        let mut replicas = Vec::new();
        for _ in 0..count {
            replicas.push(HttpServer::spawn_with(&exe, env).await.map_err(|e| format!("{setup}: {e}"))?);
        }
        let nginx = match setup {
            "redis3" => Some(Nginx::start(programs, &replicas.iter().map(|r| r.port).collect::<Vec<_>>(), cpus).await?),
            _ => None,
        };
        let watch = Watch {
            servers: replicas.iter().map(|r| r.pid).collect(),
            redis: (setup != "memory").then_some(&redis),
            others: nginx.as_ref().map(|n| n.pids.clone()).unwrap_or_default(),
            settle: true,
        };
        let port = nginx.as_ref().map_or(replicas[0].port, |n| n.port);
        let s = stores.samples.entry((placement, setup)).or_default();
        for (sessions, prefix) in HTTP_LEVELS {
            let load = load_at(port, sessions, sizes.http_calls_per_level, WARMUP, &watch)
                .await
                .map_err(|e| format!("{setup}, {sessions} session(s): {e}"))?;
            let calls = load.latencies.len() as f64;
            let mut push = |what: &str, v: f64| s.entry(report::store_key(prefix, what)).or_default().push(v);
            push("rps", load.rps);
            push("p50", percentile(&load.latencies, 50.0));
            push("p99", percentile(&load.latencies, 99.0));
            push("cpu", load.cpu_per_call);
            if let (Some(commands), Some(setup_commands)) = (&load.redis_commands, &load.redis_setup_commands) {
                push("redis_cmds", commands.values().sum::<u64>() as f64 / calls);
                push("redis_setup", setup_commands.values().sum::<u64>() as f64 / sessions as f64);
                push("redis_cpu", load.redis_cpu_per_call);
                let (seen, total) = stores.commands.entry((placement, setup)).or_default();
                for (name, n) in commands {
                    *seen.entry(name.clone()).or_default() += n;
                }
                *total += calls as u64;
                let (seen, total) = stores.setup_commands.entry((placement, setup)).or_default();
                for (name, n) in setup_commands {
                    *seen.entry(name.clone()).or_default() += n;
                }
                *total += sessions as u64;
            }
            if nginx.is_some() {
                push("nginx_cpu", load.others_cpu_per_call);
            }
        }
        if let Some(nginx) = nginx {
            nginx.stop().await;
        }
        drop(replicas);
    }
    redis.stop().await;
    Ok(())
}

/// A command that starts `exe` with `args`, on its CPUs.
fn command(exe: &Exe, args: &[&str]) -> Command {
    let mut command = Command::new(&exe.path);
    command.args(args).stdout(Stdio::piped()).stderr(Stdio::null()).kill_on_drop(true);
    let cpus = exe.cpus;
    if cpus != 0 {
        // SAFETY: only `sched_setaffinity`, async-signal-safe, runs between fork and exec.
        unsafe {
            command.pre_exec(move || placement::set_affinity(0, cpus));
        }
    }
    command
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
    async fn spawn(exe: &Exe) -> Result<Self> {
        let mut child = command(exe, exe.stdio_args)
            .stdin(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", exe.path.display()))?;
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

    /// The names of the tools it lists, sorted (following `nextCursor`).
    async fn tool_names(&mut self) -> Result<Vec<String>> {
        let mut names = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = cursor.map_or("{}".into(), |c| serde_json::json!({ "cursor": c }).to_string());
            self.send(&format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{params}}}"#)).await?;
            self.next_response().await?;
            let answer: serde_json::Value = serde_json::from_slice(&self.line)?;
            let result = &answer["result"];
            let tools = result["tools"].as_array().ok_or("tools/list: no tools")?;
            names.extend(tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)));
            cursor = result["nextCursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        names.sort();
        Ok(names)
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
    async fn spawn(exe: &Exe) -> Result<Self> {
        Self::spawn_with(exe, &[]).await
    }

    /// With these variables in its environment.
    async fn spawn_with(exe: &Exe, env: &[(&str, String)]) -> Result<Self> {
        let mut child = command(exe, &["http"]).envs(env.iter().map(|(k, v)| (k, v))).stdin(Stdio::null()).spawn()?;
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
        connect(self.port).await
    }

    /// A new session on a new connection (initialize, then notifications/initialized).
    async fn session(&self) -> Result<Session> {
        open_session(self.port).await
    }

    /// `sessions` sessions, each calling echo one call at a time, `total` calls in all.
    /// (calls/s, latencies in ns sorted, server CPU per call in µs).
    async fn load(&self, sessions: usize, total: u64) -> Result<Load> {
        let watch = Watch { servers: vec![self.pid], redis: None, others: Vec::new(), settle: false };
        load_at(self.port, sessions, total, 5, &watch).await
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
        self.open_sessions(count).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = proc_status_kb(self.pid, "VmRSS")?;
        Ok((after - before) * 1024.0 / count as f64)
    }

    /// Opens `count` sessions over 8 connections, which it then closes; their ids.
    async fn open_sessions(&self, count: usize) -> Result<Vec<String>> {
        let connections = 8;
        let mut tasks = Vec::new();
        for c in 0..connections {
            let mut sender = self.connect().await?;
            let port = self.port;
            let n = count / connections + usize::from(c < count % connections);
            tasks.push(tokio::spawn(async move {
                let mut ids = Vec::with_capacity(n);
                for _ in 0..n {
                    let mut session = Session { sender, id: String::new(), port };
                    session.open().await?;
                    ids.push(session.id);
                    sender = session.sender;
                }
                Ok::<_, Error>(ids)
            }));
        }
        let mut ids = Vec::with_capacity(count);
        for task in tasks {
            ids.extend(task.await??);
        }
        Ok(ids)
    }
}

/// Which processes a load watches: the servers (their CPU per call), Redis (its commands and
/// CPU per call) and others (nginx: CPU per call).
struct Watch<'a> {
    servers: Vec<u32>,
    redis: Option<&'a Redis>,
    others: Vec<u32>,
    /// Whether the sessions pause between their warm-up and the window, while Redis's counters
    /// are read (in every setup of the session-store scenarios, so they compare alike).
    settle: bool,
}

/// What a load measured.
struct Load {
    rps: f64,
    /// In ns, sorted.
    latencies: Vec<u64>,
    /// µs of the servers' CPU.
    cpu_per_call: f64,
    /// The servers' context switches (voluntary and not, every thread).
    switches_per_call: f64,
    /// The commands Redis ran in the measured window.
    redis_commands: Option<BTreeMap<String, u64>>,
    /// Those it ran from the first `initialize` to the end of the warm-up.
    redis_setup_commands: Option<BTreeMap<String, u64>>,
    redis_cpu_per_call: f64,
    others_cpu_per_call: f64,
}

async fn connect(port: u16) -> Result<hyper::client::conn::http1::SendRequest<Full<Bytes>>> {
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    stream.set_nodelay(true)?;
    let (sender, connection) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// A new session on a new connection to `port` (initialize, then notifications/initialized).
async fn open_session(port: u16) -> Result<Session> {
    let sender = connect(port).await?;
    let mut session = Session { sender, id: String::new(), port };
    session.open().await?;
    Ok(session)
}

/// `sessions` sessions on `port`, each calling echo one call at a time after at least
/// `min_warmup` warm-up calls (a tenth of its share otherwise), `total` calls in all.
async fn load_at(port: u16, sessions: usize, total: u64, min_warmup: u64, watch: &Watch<'_>) -> Result<Load> {
    let redis_at_open = match watch.redis {
        Some(redis) => Some(redis.command_calls().await?),
        None => None,
    };
    let mut opened = Vec::new();
    for _ in 0..sessions {
        opened.push(open_session(port).await?);
    }
    let per_session = total / sessions as u64;
    let warmup = (per_session / 10).max(min_warmup);
    let start_gate = Arc::new(tokio::sync::Barrier::new(sessions + 1));
    // Settling, the sessions also wait after their warm-up, for Redis's counters to be read.
    let warmed = watch.settle.then(|| Arc::new(tokio::sync::Barrier::new(sessions + 1)));
    let mut tasks = Vec::new();
    for mut session in opened {
        let (gate, warmed) = (start_gate.clone(), warmed.clone());
        tasks.push(tokio::spawn(async move {
            for i in 0..warmup {
                session.call(&echo_call(i)).await?;
            }
            if let Some(warmed) = warmed {
                warmed.wait().await;
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
    let mut redis_before = None;
    if let Some(warmed) = &warmed {
        warmed.wait().await;
        // What the warm-up set off in the background (a replica reading a session another
        // changed) is not the window's.
        tokio::time::sleep(Duration::from_millis(50)).await;
        if let Some(redis) = watch.redis {
            redis_before = Some((redis.command_calls().await?, cpu_seconds(redis.pid)?));
        }
    }
    start_gate.wait().await;
    let start = Instant::now();
    let cpu = cpu_of(&watch.servers)?;
    let switches = switches_of(&watch.servers)?;
    let others = cpu_of(&watch.others)?;
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await??);
    }
    let rps = latencies.len() as f64 / start.elapsed().as_secs_f64();
    let calls = latencies.len() as f64;
    let cpu_per_call = (cpu_of(&watch.servers)? - cpu) * 1e6 / calls;
    let switches_per_call = (switches_of(&watch.servers)? - switches) / calls;
    let others_cpu_per_call = (cpu_of(&watch.others)? - others) * 1e6 / calls;
    let (mut redis_commands, mut redis_setup_commands, mut redis_cpu_per_call) = (None, None, f64::NAN);
    if let (Some(redis), Some((calls_before, cpu_before)), Some(at_open)) = (watch.redis, redis_before, redis_at_open) {
        redis_cpu_per_call = (cpu_seconds(redis.pid)? - cpu_before) * 1e6 / calls;
        redis_commands = Some(services::command_delta(&calls_before, &redis.command_calls().await?));
        redis_setup_commands = Some(services::command_delta(&at_open, &calls_before));
    }
    latencies.sort_unstable();
    Ok(Load {
        rps,
        latencies,
        cpu_per_call,
        switches_per_call,
        redis_commands,
        redis_setup_commands,
        redis_cpu_per_call,
        others_cpu_per_call,
    })
}

/// User plus system CPU time of these processes so far, in seconds.
fn cpu_of(pids: &[u32]) -> Result<f64> {
    pids.iter().map(|&pid| cpu_seconds(pid)).sum()
}

/// Context switches of these processes so far.
fn switches_of(pids: &[u32]) -> Result<f64> {
    pids.iter().map(|&pid| context_switches(pid)).sum()
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

/// CPU time of a process so far, in seconds: what each of its threads ran, in nanoseconds
/// (`/proc/<pid>/task/*/schedstat`). `/proc/<pid>/stat` counts 10 ms ticks, steps of 1.25 µs
/// per call over 8,000 calls, as large as the differences measured. A thread that exits within
/// a window takes its time with it; the servers' threads live through theirs.
fn cpu_seconds(pid: u32) -> Result<f64> {
    let nanoseconds = for_each_thread(pid, "schedstat", |schedstat| {
        Ok(schedstat.split_whitespace().next().ok_or("malformed schedstat")?.parse::<f64>()?)
    })?;
    Ok(nanoseconds / 1e9)
}

/// The sum of `read` over one file of each of a process's live threads (a thread that exits
/// while they are read counts for nothing).
fn for_each_thread(pid: u32, file: &str, read: impl Fn(&str) -> Result<f64>) -> Result<f64> {
    let mut total = 0.0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        if let Ok(text) = std::fs::read_to_string(task?.path().join(file)) {
            total += read(&text)?;
        }
    }
    Ok(total)
}

/// Context switches (voluntary and not) of all of a process's threads so far.
fn context_switches(pid: u32) -> Result<f64> {
    for_each_thread(pid, "status", |status| {
        let mut total = 0.0;
        for line in status.lines().filter(|l| l.contains("ctxt_switches:")) {
            total += line.split_whitespace().nth(1).ok_or("malformed status")?.parse::<f64>()?;
        }
        Ok(total)
    })
}

#[cfg(test)]
mod tests {
    use super::relative_link;
    use std::path::Path;

    #[test]
    fn the_summary_links_to_the_report_from_its_own_folder() {
        let report = Path::new("BENCHMARKS.md");
        assert_eq!(relative_link(Path::new("docs/guide/src/status.md"), report), "../../../BENCHMARKS.md");
        assert_eq!(relative_link(Path::new("README.md"), report), "BENCHMARKS.md");
    }
}
