#!/usr/bin/env bash
# The benchmark (issues 8 and 16): builds bench/ (its own cargo workspace) in release, then
# compares mcp-runtime, rmcp and a hand-written ceiling, pinned and unpinned, in alternating
# rounds, and writes BENCHMARKS.md and its summary in the guide (docs/guide/src/status.md).
#
#   ./bench/run.sh                          # 5 rounds + 3 compile rounds + 1 cold build (about 25 minutes on 2 cores)
#   ./bench/run.sh --quick                  # smaller workloads, for development
#   ./bench/run.sh --quick --only ours,ceiling,ceiling-eager --pinned --no-http
#   ./bench/run.sh --quick --redis-only     # only our HTTP server with sessions in Redis (issue 17)
#   ./bench/run.sh --quick --no-redis       # everything else
#
# The Redis scenarios need redis-server and nginx (scripts/services.sh installs them); the
# allocation counts need valgrind, installed here from Debian's packages when missing
# (`--no-allocations` skips them).
#
# Only a full run (no flags, RUNS >= 5) writes BENCHMARKS.md and the guide's summary; any other writes
# bench/target/BENCHMARKS-partial.md, so what the repository quotes always comes from a full run.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null && [[ " $* " != *" --no-allocations "* ]]; then
    as_root=(); ((EUID == 0)) || as_root=(sudo)
    "${as_root[@]}" apt-get update -qq && "${as_root[@]}" apt-get install -y -qq valgrind >/dev/null
fi
RUNS=${RUNS:-5}
COMPILE_RUNS=${COMPILE_RUNS:-3}
# Cold builds (every dependency compiled, each server at 103 and at 4 tools): minutes each.
COLD_RUNS=${COLD_RUNS:-1}
# Our server with the Redis session store (issue 17), kept as bench-ours-redis; then the whole
# workspace, which puts back bench-ours without it (the one compared with rmcp and the ceiling).
cargo build --release --manifest-path bench/Cargo.toml -p bench-ours --features redis
cp bench/target/release/bench-ours bench/target/release/bench-ours-redis
cargo build --release --manifest-path bench/Cargo.toml
if [ $# -eq 0 ] && [ "$RUNS" -ge 5 ]; then
    out=(--out BENCHMARKS.md --summary docs/guide/src/status.md)
else
    out=(--out bench/target/BENCHMARKS-partial.md)
fi
exec bench/target/release/harness --bench-dir bench --runs "$RUNS" --compile-runs "$COMPILE_RUNS" \
    --cold-runs "$COLD_RUNS" "${out[@]}" \
    --command "RUNS=$RUNS COMPILE_RUNS=$COMPILE_RUNS COLD_RUNS=$COLD_RUNS ./bench/run.sh $*" "$@"
