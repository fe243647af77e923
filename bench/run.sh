#!/usr/bin/env bash
# The benchmark of issue 8: builds bench/ (its own cargo workspace) in release, then compares
# mcp-runtime, rmcp and a hand-written ceiling and writes BENCHMARKS.md at the repository root.
#
#   ./bench/run.sh               # 5 runs + 3 compile runs (about 10 minutes on 2 cores)
#   RUNS=1 COMPILE_RUNS=1 ./bench/run.sh --quick     # a smoke test
#   ./bench/run.sh --only ours   # one server (the ratios then show "-")
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
COMPILE_RUNS=${COMPILE_RUNS:-3}
cargo build --release --manifest-path bench/Cargo.toml
exec bench/target/release/harness --bench-dir bench --runs "$RUNS" --compile-runs "$COMPILE_RUNS" \
    --out BENCHMARKS.md --command "RUNS=$RUNS COMPILE_RUNS=$COMPILE_RUNS ./bench/run.sh $*" "$@"
