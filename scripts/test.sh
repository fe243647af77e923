#!/usr/bin/env bash
# Every test of the project, from a fresh clone: formatting, lints, the Rust tests (unit,
# in-process protocol, stdio processes, compile-error UI tests, doc tests), and the interop
# tests that drive the example servers through the official Python SDK client.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*" >&2; }

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
cargo test --workspace --locked

step "Python SDK interop (mcp==2.3.0)"
cargo build --locked -p calculator -p showcase -p notes -p filesystem
cargo build --locked -p http-server
scripts/python-env.sh
export HTTP_SERVER_BIN="$PWD/target/debug/http-server"
export NOTES_BIN="$PWD/target/debug/notes" FILESYSTEM_BIN="$PWD/target/debug/filesystem"
CALCULATOR_BIN="$PWD/target/debug/calculator" SHOWCASE_BIN="$PWD/target/debug/showcase" tests/python/run.sh

step "all tests passed"
