#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance) in both its modes.
#
# `scripts/conformance.sh server`: against the fixture server `examples/conformance`, over
# Streamable HTTP: every scenario of 2025-11-25 and of 2026-07-28 (scored or not: extensions such
# as tasks and pending ones too), then the scenarios run on their own (the skills extension's
# in both eras).
# `scripts/conformance.sh sessionless`: the fixture serving HTTP without sessions
# (`MCP_STATELESS_HTTP=1`, `HttpConfig::stateless`), every scenario of 2025-11-25 and of
# 2026-07-28; the 2025-11-25 scenarios that need a session (the server asking the client
# something, the checks of a session id) are not applicable there: they are listed in
# scripts/conformance-sessionless.yml, which both the suite (`--expected-failures`) and the
# report below check exactly (each must fail, and nothing else may).
# `scripts/conformance.sh client`: the suite's mock servers against `examples/conformance-client`
# (written on `mcp_runtime::client`), every client scenario of 2025-11-25 and of 2026-07-28 (the
# extensions the suite runs with them too), then the skills extension's (SEP-2640).
# `scripts/conformance.sh authorization`: the suite's authorization-server scenarios
# (`authorization-server-metadata-endpoint`, `authorization-code-grant`) against the issuer
# `AUTHORIZATION_URL`, as the client `AUTHORIZATION_CLIENT_ID` (registered with the redirect URI
# `http://127.0.0.1:$AUTHORIZATION_CALLBACK_PORT/callback`, default port 3000). The suite prints
# an authorization URL and waits 5 minutes for a browser to sign in and reach its callback:
# `tests/tests/oauth_proxy_conformance.rs` is that browser for examples/auth-proxy. Never part of `all`.
# With no argument, server, sessionless and client. Exits non-zero on any failed check; only the sessionless run has
# a list of expected failures.
#
# Needs Node >= 22 (see scripts/node-env.sh, which installs it under `.node/` when missing).
# Results go to `target/conformance/<run>/` (`CONFORMANCE_RESULTS` names another folder).
# `PORT` picks the fixture's port (default: the first free one from 3000). With
# `CONFORMANCE_URL`, the server suite runs against that endpoint, a server already running (e.g.
# the load balancer of scripts/replicas.sh), and no fixture is built or started.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

SUITE="@modelcontextprotocol/conformance@0.2.0-alpha.12"
results="${CONFORMANCE_RESULTS:-$root/target/conformance}"

log() { printf '\n=== %s\n' "$*" >&2; }

part="${1:-all}"
case "$part" in
    all | server | sessionless | client | authorization) ;;
    *) echo "usage: $0 [server|sessionless|client|authorization]" >&2; exit 2 ;;
esac

# --- Node 22 -------------------------------------------------------------------------------------
source "$root/scripts/node-env.sh"

# One part alone leaves the other's results in place.
if [[ "$part" == all ]]; then rm -rf "$results"; fi
mkdir -p "$results"

# --- The suite -----------------------------------------------------------------------------------
# After each run, `report` lists every check that is not a success, from the run's checks.json
# files, each marked with whether the revision scores its scenario, and fails on any FAILURE or
# WARNING, scored or not (the suite's own exit code ignores WARNINGs and unscored scenarios).
# A SKIPPED check (the suite's harness cannot exercise it yet) is listed without failing. With a
# list of expected failures (the suite's grammar: `- <scenario>` or `- <scenario>:<check>`), a
# check it names fails as expected, and an entry that names no failing check fails the run.
report_js="$results/report.mjs"
cat >"$report_js" <<'JS'
import fs from "node:fs";
import path from "node:path";
const [dir, scoredList, expectedFile] = process.argv.slice(2);
const scored = scoredList ? new Set(scoredList.split(/\s+/).filter(Boolean)) : null;
const expected = expectedFile
    ? fs.readFileSync(expectedFile, "utf8").split("\n").map((line) => line.replace(/#.*/, "").trim())
        .filter((line) => line.startsWith("- ")).map((line) => line.slice(2).trim())
    : [];
const met = new Set();
// Each scenario's folder holds its checks.json; `auth/...` scenarios sit one folder deeper.
function* runs(folder, prefix = "") {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        if (!entry.isDirectory()) continue;
        const sub = path.join(folder, entry.name);
        if (fs.existsSync(path.join(sub, "checks.json"))) yield [prefix + entry.name, sub];
        else yield* runs(sub, `${prefix}${entry.name}/`);
    }
}
let bad = 0, shown = 0;
const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0 };
const failing = new Set();
for (const [run, folder] of runs(dir)) {
    const scenario = run.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
    const counted = scored && !scored.has(scenario) ? "not scored" : "scored";
    for (const check of JSON.parse(fs.readFileSync(path.join(folder, "checks.json"), "utf8"))) {
        if (check.status in counts) counts[check.status]++;
        if (["SUCCESS", "INFO"].includes(check.status)) continue;
        const failed = ["FAILURE", "WARNING"].includes(check.status);
        const entry = failed && expected.find((e) => e === scenario || e === `${scenario}:${check.id}`);
        if (entry) met.add(entry);
        const fails = failed && !entry;
        bad += fails;
        shown++;
        if (fails) failing.add(scenario);
        const mark = fails ? "!!" : entry ? "n/a" : "  ";
        console.log(`  ${mark} [${counted}] ${scenario} / ${check.id}: ${check.status} ${check.errorMessage ?? ""}`.trimEnd());
    }
}
if (!shown) console.log("  (none)");
for (const entry of expected.filter((e) => !met.has(e))) {
    console.log(`  !! expected to fail, but did not: ${entry}`);
    bad++;
}
if (expected.length) console.log(`  not applicable, as expected: ${met.size} of ${expected.length} listed`);
console.log(`  checks: ${counts.SUCCESS} passed, ${counts.FAILURE} failed, ${counts.WARNING} warnings; ` +
    `scenarios failing: ${failing.size ? [...failing].join(" ") : "none"}`);
process.exit(bad ? 1 : 0);
JS

failed=()
# `run <side> <name> <scored scenarios> <suite arguments>...`: one run of the suite, then its report;
# with `expected_failures` set (a file), the checks it names are expected to fail, as above.
run() {
    local side="$1" name="$2" scored="$3"
    shift 3
    local expected=()
    if [[ -n "${expected_failures:-}" ]]; then expected=(--expected-failures "$expected_failures"); fi
    log "conformance $side $name: $* ${expected[*]}"
    local status=0
    rm -rf "${results:?}/$name"
    npx -y "$SUITE" "$side" -o "$results/$name" "$@" "${expected[@]}" || status=$?
    log "checks of $name that did not succeed"
    node "$report_js" "$results/$name" "$scored" "${expected_failures:-}" || status=1
    ((status == 0)) || failed+=("$name")
}
# The scenarios a revision scores on one side (`server` or `client`), from `list --requirements`.
scored_for() {
    local heading
    heading="$(tr '[:lower:]' '[:upper:]' <<<"${1:0:1}")${1:1} scenarios"
    npx -y "$SUITE" list "--$1" --requirements "$2" |
        awk -v heading="^$heading" '$0 ~ heading {on = 1; next} on && /^ *- / {print $2; next} on && NF == 0 {on = 0}'
}

# --- The fixture ---------------------------------------------------------------------------------
# `start_fixture [NAME=value...]`: builds examples/conformance and starts it, with these variables
# in its environment, on `PORT` (default: the first free one from 3000); sets `url` and waits until
# it answers. `stop_fixture` (also run on exit) stops it.
server_pid=""
stop_fixture() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=""
}
start_fixture() {
    log "building examples/conformance"
    cargo build --quiet -p conformance
    local fixture="$root/target/debug/conformance"

    port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
    local port="${PORT:-}"
    if [[ -z "$port" ]]; then
        port=3000
        while ! port_free "$port"; do port=$((port + 1)); done
    elif ! port_free "$port"; then
        echo "port $port is already in use" >&2
        exit 1
    fi
    url="http://127.0.0.1:$port/mcp"
    trap stop_fixture EXIT
    trap 'exit 130' INT TERM

    log "starting the fixture at $url ${*:-} (log: $results/fixture.log)"
    env "$@" PORT="$port" RUST_LOG="${RUST_LOG:-info}" "$fixture" >"$results/fixture.log" 2>&1 &
    server_pid=$!
    wait_until_ready
}

# Ready when a ping answers (an HTTP answer of any kind means it listens).
wait_until_ready() {
    local ready=""
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
}

# --- The server side: the fixture, unless a server is named ---------------------------------------
server_side() {
    if [[ -n "${CONFORMANCE_URL:-}" ]]; then
        url="$CONFORMANCE_URL"
        log "running against the server at $url"
        wait_until_ready
    else
        start_fixture
    fi

    for revision in 2025-11-25 2026-07-28; do
        scored="$(scored_for server "$revision")"
        [[ -n "$scored" ]] || { echo "could not list the server scenarios $revision scores" >&2; exit 1; }
        run server "$revision" "$scored" --url "$url" --requirements "$revision"
    done
    for scenario in server-session-lifecycle json-schema-2020-12 server-sse-polling http-header-validation \
        http-custom-header-server-validation; do
        run server "$scenario" "$scenario" --url "$url" --scenario "$scenario"
    done
    # The skills extension (SEP-2640), in no requirement set: on 2026-07-28 (an extension's
    # default) and in a 2025-11-25 session.
    for scenario in sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory; do
        run server "$scenario" "$scenario" --url "$url" --scenario "$scenario"
        run server "$scenario-2025-11-25" "$scenario" --url "$url" --scenario "$scenario" --spec-version 2025-11-25 --force
    done
    stop_fixture
}

# --- The server side without sessions: the fixture with `MCP_STATELESS_HTTP=1` --------------------
sessionless_side() {
    start_fixture MCP_STATELESS_HTTP=1
    for revision in 2025-11-25 2026-07-28; do
        scored="$(scored_for server "$revision")"
        [[ -n "$scored" ]] || { echo "could not list the server scenarios $revision scores" >&2; exit 1; }
        local expected=""
        if [[ "$revision" == 2025-11-25 ]]; then expected="$root/scripts/conformance-sessionless.yml"; fi
        expected_failures="$expected" run server "sessionless-$revision" "$scored" --url "$url" --requirements "$revision"
    done
    stop_fixture
}

# --- The client side: examples/conformance-client against the suite's mock servers ---------------
client_side() {
    log "building examples/conformance-client"
    cargo build --quiet -p conformance-client
    local client="$root/target/debug/conformance-client"
    for revision in 2025-11-25 2026-07-28; do
        scored="$(scored_for client "$revision")"
        [[ -n "$scored" ]] || { echo "could not list the client scenarios $revision scores" >&2; exit 1; }
        run client "client-$revision" "$scored" --command "$client" --requirements "$revision"
    done
    # The skills extension (SEP-2640), in no requirement set.
    for scenario in sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size \
        sep-2640-client-verify-frontmatter; do
        run client "client-$scenario" "$scenario" --command "$client" --scenario "$scenario"
    done
}

# --- An authorization server: the suite as its OAuth client ------------------------------------
authorization_side() {
    [[ -n "${AUTHORIZATION_URL:-}" ]] || { echo "set AUTHORIZATION_URL to the authorization server's issuer" >&2; exit 2; }
    local args=(--url "$AUTHORIZATION_URL" --port "${AUTHORIZATION_CALLBACK_PORT:-3000}")
    if [[ -n "${AUTHORIZATION_CLIENT_ID:-}" ]]; then args+=(--client-id "$AUTHORIZATION_CLIENT_ID"); fi
    run authorization authorization "" "${args[@]}"
}

if [[ "$part" == authorization ]]; then authorization_side; fi
if [[ "$part" == all || "$part" == server ]]; then server_side; fi
if [[ "$part" == all || "$part" == sessionless ]]; then sessionless_side; fi
if [[ "$part" == all || "$part" == client ]]; then client_side; fi

if ((${#failed[@]})); then
    log "FAILED: ${failed[*]} (details: $results/<run>/**/checks.json)"
    exit 1
fi
log "all conformance runs passed"
