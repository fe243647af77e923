//! A real browser for tests: pages served from origins of the test's choosing, loaded by a
//! headless Chromium whose DOM, once the page's scripts are done, is what the test reads.
//!
//! Origins are names under `.test` (`http://allowed.test:<port>`): Chromium resolves every
//! `*.test` name to 127.0.0.1 (`--host-resolver-rules`), so each name is an origin of its own
//! served by one [`PageServer`], and none of them is a loopback origin that a server allows by
//! default. `scripts/services.sh` installs Debian's `chromium`.

use crate::cluster::{TempDir, program};
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpListener};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long Chromium may take to load a page and run its scripts.
const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// A tiny HTTP server on 127.0.0.1 that answers every `GET` with one HTML page (on a thread
/// of its own, one connection at a time). Stopped when dropped.
pub struct PageServer {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PageServer {
    /// Serves `html` on a free port.
    pub fn start(html: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the page server");
        let address = listener.local_addr().expect("the page server's address");
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                // Read the request's head; the page is the same whatever it asks.
                let mut head = Vec::new();
                let mut buffer = [0; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buffer[..n]),
                    }
                }
                let (status, body) = if head.starts_with(b"GET / ") {
                    ("200 OK", html.as_str())
                } else {
                    ("404 Not Found", "not found")
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes());
            }
        });
        Self { address, stop, thread: Some(thread) }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// The page's URL at `name` (a `*.test` name): `http://<name>:<port>/`, an origin of its own.
    pub fn url(&self, name: &str) -> String {
        format!("http://{name}:{}/", self.port())
    }
}

impl Drop for PageServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so that it sees the flag.
        let _ = std::net::TcpStream::connect(self.address);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Loads `url` in a headless Chromium (a fresh profile in a temp dir, `*.test` resolved to
/// 127.0.0.1) and returns the DOM once the page is loaded and its scripts have run, fetches
/// included (`--virtual-time-budget`: virtual time does not advance while the network is busy).
/// Runs as root too (`--no-sandbox`).
pub async fn dump_dom(url: &str) -> String {
    let profile = TempDir::new("mcp-chromium");
    let mut command = tokio::process::Command::new(program("chromium"));
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--host-resolver-rules=MAP *.test 127.0.0.1",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().expect("start chromium");
    let output = tokio::time::timeout(LOAD_TIMEOUT, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("chromium did not finish loading {url} within {LOAD_TIMEOUT:?}"))
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success() && !dom.is_empty(),
        "chromium failed on {url} ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    dom
}

/// The text of the element with id `id` in `dom` (as `--dump-dom` prints it: `<tag id="id">text</tag>`,
/// the text HTML-escaped), unescaped.
pub fn element_text(dom: &str, id: &str) -> Option<String> {
    let start = dom.find(&format!("id=\"{id}\""))?;
    let text = &dom[start..];
    let text = &text[text.find('>')? + 1..];
    let text = &text[..text.find('<')?];
    Some(
        text.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&nbsp;", "\u{a0}")
            .replace("&amp;", "&"),
    )
}
