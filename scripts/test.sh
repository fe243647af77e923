#!/usr/bin/env bash
# Every test of the project, from a fresh clone: formatting, lints, the Rust tests (unit,
# in-process protocol, stdio processes, compile-error UI tests, doc tests), each fuzz target
# once over its seeds (stable, uninstrumented), `cargo publish --dry-run` of the crates meant for
# crates.io (each built from what its package holds), `cargo mcp pack` on the calculator checked
# by the official MCP Bundle CLI and the MCP Registry's schema, and the interop
# tests that drive the example servers through the official Python SDK client and the MCP
# Inspector CLI, and the official MCP conformance suite against the fixture server (Node 22 is
# installed under .node/); then both again through nginx in front of three replicas of the
# fixture sharing one Redis (redis-server and nginx are installed from Debian's packages by
# scripts/services.sh when missing). The client's interop tests (tests/tests/client_*.rs) drive
# the official TypeScript server-everything and a Python SDK server, installed first; the OAuth
# end-to-end test (tests/tests/oauth_e2e.rs) runs the Python SDK's OAuth client against
# examples/auth-server and panva's oidc-provider, a headless Chromium signing in (scripts/oidc.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*" >&2; }

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy (all features, the workspace's default features, and the runtime's lean build)"
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p mcp-runtime --no-default-features --locked -- -D warnings

step "cargo clippy, each feature alone (what a user picks for the runtime, what a contributor runs of the tests)"
# The features are read from the manifests, so a new one is linted from the day it is added.
features_of() {
    cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
package = next(p for p in json.load(sys.stdin)["packages"] if p["name"] == sys.argv[1])
print(" ".join(sorted(f for f in package["features"] if f not in ("default", "fuzzing"))))' "$1"
}
for feature in $(features_of mcp-runtime); do
    cargo clippy -p mcp-runtime --all-targets --no-default-features --features "$feature" --locked -- -D warnings
done
for feature in $(features_of mcp-tests); do
    cargo clippy -p mcp-tests --all-targets --no-default-features --features "$feature" --locked -- -D warnings
done

step "cargo doc (no broken links in the public docs)"
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps --all-features \
    -p mcp-runtime -p mcp-runtime-macros -p mcp-runtime-uri-template

step "the guide (docs/guide): mdbook build (its code blocks are mcp-runtime's doc tests, run by cargo test)"
scripts/guide.sh

step "services of the multi-replica tests: redis-server and nginx (installed when missing)"
scripts/services.sh

step "servers the client tests start: server-everything (Node 22) and the Python SDK venv"
# tests/tests/client_everything.rs and client_python.rs fail, saying which script to run,
# when these are missing.
scripts/server-everything.sh
scripts/python-env.sh

step "the OAuth end-to-end test's authorization server and browser driver: oidc-provider, puppeteer-core"
# tests/tests/oauth_e2e.rs (with Chromium from services.sh and the venv above) fails, saying
# which script to run, when they are missing.
scripts/oidc.sh

step "the MCP Bundle CLI the bundle test checks cargo mcp pack with: @anthropic-ai/mcpb"
# tests/tests/pack.rs fails, saying to run it, when it is missing.
scripts/mcpb.sh

step "cargo test"
# tests/tests/replicas.rs and cluster_rig.rs run replicas of the conformance fixture; the
# client tests (client_own.rs, client_stubs.rs) and cargo-mcp/tests/cli.rs run it, calculator,
# notes and http-server as processes; oauth_e2e.rs runs auth-server and auth-proxy; json_tools.rs
# runs json-tools, openapi.rs runs openapi against httpbin (in the Python venv).
cargo build --locked -p conformance -p calculator -p notes -p http-server -p auth-server -p auth-proxy -p json-tools -p openapi -p cargo-mcp
# tests/tests/lambda.rs runs examples/lambda under `cargo lambda watch`, which builds it with
# `cargo run -p lambda`: built alone here, with the features that command unifies, it is up to date.
cargo build --locked -p lambda
cargo test --workspace --all-features --locked

step "fuzz targets, once over their seeds (stable build, no instrumentation)"
scripts/fuzz.sh --seeds

step "cargo publish --dry-run (each crate meant for crates.io, built from its package alone)"
# One invocation for the three (cargo 1.90 or later): it packages them in dependency order,
# resolves the unpublished siblings from a local overlay of the packages it just made, builds each
# one (default features) in target/package/, and stops before uploading. One crate at a time
# fails ("no matching package named `mcp-runtime-uri-template` found") until its siblings are on
# crates.io. The dry run reads the crates.io index (a version already published is refused);
# offline, `cargo package --offline` with the same -p flags runs the same builds.
# --allow-dirty: the packages are made from the work tree, the same files the steps above tested.
# cargo-mcp is not published (publish = false) until the runtime is.
# The overlay's packages are unpacked under $CARGO_HOME/registry/src/-<hash>/, and cargo reuses a
# directory it finds there under the same name and version without comparing contents: a run after
# a change to a sibling would build the previous run's sources of it. Ours are never on crates.io,
# so every unpacked copy of them (in the overlays' unnamed registries, `-<hash>`) is a leftover.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
rm -rf "$cargo_home"/registry/src/-*/mcp-runtime-*
cargo publish --dry-run --locked --allow-dirty -p mcp-runtime-uri-template -p mcp-runtime-macros -p mcp-runtime

step "Python SDK interop (mcp==2.3.0): modes legacy, auto and 2026-07-28, stdio and HTTP, tasks included"
cargo build --locked -p calculator -p showcase -p notes -p filesystem -p http-server -p conformance
scripts/python-env.sh
bin="$PWD/target/debug"
CALCULATOR_BIN="$bin/calculator" SHOWCASE_BIN="$bin/showcase" NOTES_BIN="$bin/notes" \
    FILESYSTEM_BIN="$bin/filesystem" HTTP_SERVER_BIN="$bin/http-server" CONFORMANCE_BIN="$bin/conformance" \
    tests/python/run.sh

step "MCP Inspector CLI (stdio and HTTP)"
CALCULATOR_BIN="$bin/calculator" NOTES_BIN="$bin/notes" HTTP_SERVER_BIN="$bin/http-server" tests/inspector/run.sh

step "official conformance suite (2025-11-25 and 2026-07-28) against examples/conformance"
scripts/conformance.sh

step "several replicas behind nginx on Redis: the conformance suite and Python SDK sessions"
scripts/replicas.sh

step "all tests passed"
