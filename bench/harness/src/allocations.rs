//! Allocations per call (issue 16): each server under valgrind's DHAT, driven with `echo`
//! calls one at a time over stdio and over one HTTP session, twice (`FEW` and `MANY` calls);
//! the difference of the two runs' totals over the difference of their calls is what one call
//! allocates, start-up and shutdown cancelled out. Counts, not time: the machine's load does not
//! move them, so one run per server suffices.

use super::{Exe, Result, Session, StdioServer, echo_call, open_session};
use crate::report::Samples;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader, BufWriter};
use tokio::process::{Child, Command};

/// Calls of the shorter and the longer run.
const FEW: u64 = 300;
const MANY: u64 = 1_300;

/// What DHAT counted over one run.
#[derive(Clone, Copy, Debug)]
struct Totals {
    blocks: f64,
    bytes: f64,
}

/// Allocations and bytes allocated per `echo` call, over stdio and (when `http`) HTTP.
pub async fn per_call(exe: &Exe, http: bool, samples: &mut Samples) -> Result<()> {
    let stdio = difference(stdio_run(exe, FEW).await?, stdio_run(exe, MANY).await?);
    samples.entry("stdio_allocs").or_default().push(stdio.blocks);
    samples.entry("stdio_alloc_bytes").or_default().push(stdio.bytes);
    if http {
        let http = difference(http_run(exe, FEW).await?, http_run(exe, MANY).await?);
        samples.entry("http_allocs").or_default().push(http.blocks);
        samples.entry("http_alloc_bytes").or_default().push(http.bytes);
    }
    Ok(())
}

fn difference(few: Totals, many: Totals) -> Totals {
    let calls = (MANY - FEW) as f64;
    Totals { blocks: (many.blocks - few.blocks) / calls, bytes: (many.bytes - few.bytes) / calls }
}

/// `exe` under DHAT, with `args`.
fn under_dhat(exe: &Exe, args: &[&str]) -> Result<Child> {
    Command::new("valgrind")
        .args(["--tool=dhat", "--dhat-out-file=/dev/null"])
        .arg(&exe.path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("valgrind (install it: apt-get install valgrind): {e}").into())
}

async fn stdio_run(exe: &Exe, calls: u64) -> Result<Totals> {
    let mut child = under_dhat(exe, exe.stdio_args)?;
    let stderr = child.stderr.take().unwrap();
    let stdin = BufWriter::new(child.stdin.take().unwrap());
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let pid = child.id().ok_or("no pid")?;
    let mut server = StdioServer { child, pid, stdin: Some(stdin), stdout, line: Vec::new() };
    server.initialize().await?;
    server.sequential(calls, echo_call, "hello, benchmark", false).await?;
    drop(server.stdin.take()); // end of input: the server exits, and DHAT reports
    let status = tokio::time::timeout(Duration::from_secs(60), server.child.wait()).await??;
    totals(stderr, status).await
}

async fn http_run(exe: &Exe, calls: u64) -> Result<Totals> {
    let mut child = under_dhat(exe, &["http"])?;
    let stderr = child.stderr.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(60), stdout.read_line(&mut line)).await??;
    let port: u16 = line.trim().parse().map_err(|_| format!("expected a port, got {line:?}"))?;
    tokio::spawn(async move { tokio::io::copy(&mut stdout, &mut tokio::io::sink()).await });
    let mut session: Session = open_session(port).await?;
    for i in 0..calls {
        session.call(&echo_call(1 + i)).await?;
    }
    drop(session);
    // SIGTERM: each server exits (ours gracefully); DHAT reports either way.
    let pid = child.id().ok_or("no pid")?;
    let _ = std::process::Command::new("kill").arg(pid.to_string()).status();
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait()).await??;
    totals(stderr, status).await
}

/// DHAT's `Total: N bytes in M blocks` line from the server's stderr.
async fn totals(mut stderr: tokio::process::ChildStderr, status: std::process::ExitStatus) -> Result<Totals> {
    let mut text = String::new();
    stderr.read_to_string(&mut text).await?;
    let line = text
        .lines()
        .find_map(|line| line.split_once("Total:").map(|(_, rest)| rest.trim().replace(',', "")))
        .ok_or_else(|| {
            format!("no DHAT totals ({status}): {}", text.lines().rev().take(5).collect::<Vec<_>>().join(" | "))
        })?;
    // "123456 bytes in 789 blocks"
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [bytes, "bytes", "in", blocks, "blocks", ..] => Ok(Totals { bytes: bytes.parse()?, blocks: blocks.parse()? }),
        _ => Err(format!("unexpected DHAT totals: {line}").into()),
    }
}
