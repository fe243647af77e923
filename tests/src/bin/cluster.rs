//! Starts the multi-replica rig of `mcp_tests::cluster` for scripts: `cluster [N]` starts
//! `redis-server`, N replicas of the conformance fixture (default 3, `CONFORMANCE_BIN` or
//! `conformance` beside this binary) and `nginx` in front of them, prints the load balancer's
//! MCP endpoint (`http://127.0.0.1:PORT/mcp`) on one line of stdout, and runs until its stdin
//! ends. Then it writes the end of every part's log to stderr and stops them all.
//! `scripts/replicas.sh` keeps the write end of stdin open for as long as it runs, so the rig
//! stops when the script does, however it ends.

use mcp_tests::cluster::Cluster;
use std::io::{Read as _, Write as _};

fn main() {
    let replicas = match std::env::args().nth(1).map(|n| n.parse::<usize>()) {
        None => 3,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: cluster [REPLICAS]  (a positive number; default 3)");
            std::process::exit(2);
        }
    };
    let cluster = Cluster::start(replicas);
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{}", cluster.url());
    let _ = stdout.flush();
    let ports: Vec<String> = cluster.replicas().iter().map(|r| r.port().to_string()).collect();
    eprintln!(
        "cluster: nginx on {}, replicas on {}, redis on {}",
        cluster.nginx().port(),
        ports.join(", "),
        cluster.redis_port()
    );
    // Until the script closes our stdin (or exits, which closes it).
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    eprintln!("{}", cluster.logs());
}
