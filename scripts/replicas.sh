#!/usr/bin/env bash
# Several replicas of one server behind a load balancer, on one Redis: starts `redis-server`,
# REPLICAS (default 3) replicas of the conformance fixture (`examples/conformance`, with
# REDIS_URL and MCP_REQUEST_STATE_SECRET) and nginx balancing them round robin without
# stickiness (the `cluster` binary of tests/, built on tests/src/cluster.rs), then runs against
# the load balancer:
#   - the official conformance suite, both eras, as scripts/conformance.sh runs it;
#   - the Python SDK session interop tests (tests/python/test_replicas.py, mcp==2.3.0).
# Exits non-zero on any failure, after printing the end of every part's log.
#
# Needs redis-server and nginx (scripts/services.sh installs them), Node >= 22 (node-env.sh)
# and Python 3 (python-env.sh). Results and logs go to target/replicas/.
# `REPLICAS=1` checks the rig itself: one replica behind nginx must pass everything.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

replicas="${REPLICAS:-3}"
out="$root/target/replicas"

log() { printf '\n=== %s\n' "$*" >&2; }

log "building the fixture and the rig"
cargo build --quiet --locked -p conformance -p mcp-tests --bin cluster

rm -rf "$out"
mkdir -p "$out"

# The rig runs until its stdin ends: fd 3 holds the FIFO's write end for as long as this script
# runs, so the rig stops when the script does, however it ends.
mkfifo "$out/control"
target/debug/cluster "$replicas" <"$out/control" >"$out/url" 2>"$out/cluster.log" &
cluster_pid=$!
exec 3>"$out/control"
stop_cluster() {
    exec 3>&-
    wait "$cluster_pid" 2>/dev/null || true
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

for _ in $(seq 300); do
    [[ -s "$out/url" ]] && break
    kill -0 "$cluster_pid" 2>/dev/null || break
    sleep 0.1
done
if [[ ! -s "$out/url" ]]; then
    echo "the rig did not start:" >&2
    cat "$out/cluster.log" >&2
    exit 1
fi
url="$(head -n 1 "$out/url")"
log "$replicas replica(s) behind nginx at $url ($(head -n 1 "$out/cluster.log"))"

failed=()

log "official conformance suite through the load balancer"
CONFORMANCE_URL="$url" CONFORMANCE_RESULTS="$out/conformance" scripts/conformance.sh server || failed+=(conformance)

log "Python SDK (mcp==2.3.0) sessions through the load balancer"
scripts/python-env.sh
MCP_REPLICAS_URL="$url" PYTHONDONTWRITEBYTECODE=1 \
    target/python-venv/bin/python -m pytest -q -p no:cacheprovider tests/python/test_replicas.py ||
    failed+=(python)

stop_cluster
trap - EXIT
if ((${#failed[@]})); then
    log "the end of every part's log"
    cat "$out/cluster.log" >&2
    log "FAILED through $replicas replica(s): ${failed[*]} (logs: target/replicas/)"
    exit 1
fi
log "all runs through $replicas replica(s) passed"
