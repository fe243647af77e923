// A `SessionState<T>` travels with the session between replicas, so `T` must serialize; the
// message names `LocalSessionState<T>` for a value that does not.
use mcp_runtime::prelude::*;
use mcp_runtime::SessionState;
use std::sync::Mutex;

#[derive(Default)]
struct Connection {
    open: Mutex<Vec<std::net::TcpStream>>,
}

#[mcp_tool]
fn count(pool: SessionState<Connection>) -> usize {
    pool.open.lock().unwrap().len()
}

fn main() {}
