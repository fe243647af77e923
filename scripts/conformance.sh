#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against the fixture
# server `examples/conformance`, over Streamable HTTP: every scenario of 2025-11-25 and of
# 2026-07-28 (scored or not: extensions such as tasks and pending ones too), then the scenarios
# run on their own. Exits non-zero on any failed check, with no list of expected failures.
#
# Needs Node >= 22 (see scripts/node-env.sh, which installs it under `.node/` when missing).
# Results go to `target/conformance/<run>/` (`CONFORMANCE_RESULTS` names another folder).
# `PORT` picks the fixture's port (default: the first free one from 3000). With
# `CONFORMANCE_URL`, the suite runs against that endpoint, a server already running (e.g. the
# load balancer of scripts/replicas.sh), and no fixture is built or started.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

SUITE="@modelcontextprotocol/conformance@0.2.0-alpha.12"
results="${CONFORMANCE_RESULTS:-$root/target/conformance}"

log() { printf '\n=== %s\n' "$*" >&2; }

# --- Node 22 -------------------------------------------------------------------------------------
source "$root/scripts/node-env.sh"

rm -rf "$results"
mkdir -p "$results"

# --- The fixture, unless a server is named -------------------------------------------------------
server_pid=""
if [[ -n "${CONFORMANCE_URL:-}" ]]; then
    url="$CONFORMANCE_URL"
    log "running against the server at $url"
else
    log "building examples/conformance"
    cargo build --quiet -p conformance
    fixture="$root/target/debug/conformance"

    port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
    if [[ -z "${PORT:-}" ]]; then
        PORT=3000
        while ! port_free "$PORT"; do PORT=$((PORT + 1)); done
    elif ! port_free "$PORT"; then
        echo "port $PORT is already in use" >&2
        exit 1
    fi
    export PORT
    url="http://127.0.0.1:$PORT/mcp"

    stop_fixture() {
        if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
            kill -TERM "$server_pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
            kill -KILL "$server_pid" 2>/dev/null || true
            wait "$server_pid" 2>/dev/null || true
        fi
    }
    trap stop_fixture EXIT
    trap 'exit 130' INT TERM

    log "starting the fixture at $url (log: $results/fixture.log)"
    RUST_LOG="${RUST_LOG:-info}" "$fixture" >"$results/fixture.log" 2>&1 &
    server_pid=$!
fi

# Ready when a ping answers (an HTTP answer of any kind means it listens).
ready=""
for _ in $(seq 100); do
    if [[ -n "$server_pid" ]] && ! kill -0 "$server_pid" 2>/dev/null; then
        echo "the fixture exited early:" >&2
        cat "$results/fixture.log" >&2
        exit 1
    fi
    if node -e '
        fetch(process.argv[1], {method: "POST",
            headers: {"Content-Type": "application/json", Accept: "application/json, text/event-stream"},
            body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "ping"})})
          .then(r => process.exit(r.status < 500 ? 0 : 1), () => process.exit(1))' "$url"; then
        ready=1
        break
    fi
    sleep 0.1
done
[[ -n "$ready" ]] || { echo "the server did not answer at $url" >&2; exit 1; }

# --- The suite -----------------------------------------------------------------------------------
# After each run, `report` lists every check that is not a success, from the run's checks.json
# files, each marked with whether the revision scores its scenario, and fails on any FAILURE or
# WARNING, scored or not (the suite's own exit code ignores WARNINGs and unscored scenarios).
# A SKIPPED check (the suite's harness cannot exercise it yet) is listed without failing.
report_js="$results/report.mjs"
cat >"$report_js" <<'JS'
import fs from "node:fs";
import path from "node:path";
const [dir, scoredList] = process.argv.slice(2);
const scored = scoredList ? new Set(scoredList.split(/\s+/).filter(Boolean)) : null;
let bad = 0, shown = 0;
for (const run of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, run, "checks.json");
    if (!fs.existsSync(file)) continue;
    const scenario = run.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
    const counts = scored && !scored.has(scenario) ? "not scored" : "scored";
    for (const check of JSON.parse(fs.readFileSync(file, "utf8"))) {
        if (["SUCCESS", "INFO"].includes(check.status)) continue;
        const fails = ["FAILURE", "WARNING"].includes(check.status);
        bad += fails;
        shown++;
        console.log(`  ${fails ? "!!" : "  "} [${counts}] ${scenario} / ${check.id}: ${check.status} ${check.errorMessage ?? ""}`.trimEnd());
    }
}
if (!shown) console.log("  (none)");
process.exit(bad ? 1 : 0);
JS

failed=()
run() {
    local name="$1" scored="$2"
    shift 2
    log "conformance $name: $*"
    local status=0
    npx -y "$SUITE" server --url "$url" -o "$results/$name" "$@" || status=$?
    log "checks of $name that did not succeed"
    node "$report_js" "$results/$name" "$scored" || status=1
    ((status == 0)) || failed+=("$name")
}
# The scenarios a revision scores, from `list --requirements`.
scored_for() {
    npx -y "$SUITE" list --server --requirements "$1" |
        awk '/^Server scenarios/ {on = 1; next} on && /^ *- / {print $2; next} on && NF == 0 {on = 0}'
}

for revision in 2025-11-25 2026-07-28; do
    scored="$(scored_for "$revision")"
    [[ -n "$scored" ]] || { echo "could not list the scenarios $revision scores" >&2; exit 1; }
    run "$revision" "$scored" --requirements "$revision"
done
for scenario in server-session-lifecycle json-schema-2020-12 server-sse-polling http-header-validation \
    http-custom-header-server-validation; do
    run "$scenario" "$scenario" --scenario "$scenario"
done

if ((${#failed[@]})); then
    log "FAILED: ${failed[*]} (details: $results/<run>/*/checks.json)"
    exit 1
fi
log "all conformance runs passed"
