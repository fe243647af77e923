// `LocalSessionState<T>` takes a value that does not serialize (kept by each process), and
// `SessionState<T>` one that does.
use mcp_runtime::prelude::*;
use mcp_runtime::{LocalSessionState, SessionState};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

#[derive(Default)]
struct Connections {
    open: Mutex<Vec<std::net::TcpStream>>,
}

#[derive(Default, Serialize, Deserialize)]
struct Visits {
    count: AtomicU32,
}

#[mcp_tool]
fn status(connections: LocalSessionState<Connections>, visits: SessionState<Visits>) -> String {
    let open = connections.open.lock().unwrap().len();
    format!("{open} open, visit {}", visits.count.fetch_add(1, Ordering::Relaxed) + 1)
}

fn main() {
    let _ = Server::new("x", "1").tools(tools![status]);
}
