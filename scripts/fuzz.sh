#!/usr/bin/env bash
# Runs each fuzz target in fuzz/ for a bounded time: scripts/fuzz.sh [seconds per target] [target...]
# (default 60 s each, all targets). Not part of scripts/test.sh.
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and libFuzzer's instrumentation, which takes a
# nightly compiler: the nightly toolchain when rustup has one, else stable with RUSTC_BOOTSTRAP=1.
# The corpus grows in fuzz/corpus/<target>; a crash or timeout is saved in
# fuzz/artifacts/<target>/ and replayed with `cargo fuzz run <target> <that file>`.
set -euo pipefail
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(jsonrpc_decode uri_template http_request)
cd "$(dirname "$0")/../fuzz"

toolchain=()
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    export RUSTC_BOOTSTRAP=1
fi

for target in "${targets[@]}"; do
    mkdir -p "corpus/$target"
    seeds=()
    [ -d "seeds/$target" ] && seeds=("seeds/$target")
    echo "== $target: ${seconds}s"
    # -timeout: one input taking over 10 s is a hang (a wedged server), reported as a failure.
    cargo "${toolchain[@]}" fuzz run -O "$target" "corpus/$target" "${seeds[@]}" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
done
