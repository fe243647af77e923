#!/usr/bin/env bash
# Runs each fuzz target in fuzz/ for a bounded time: scripts/fuzz.sh [seconds per target] [target...]
# (default 60 s each, all targets). Fuzzing is not part of scripts/test.sh.
#
# scripts/fuzz.sh --seeds instead builds the targets with the stable compiler (no coverage
# instrumentation, no cargo-fuzz) and runs each once over every file in fuzz/seeds/<target>/ (and
# fuzz/corpus/<target>/ if there is one): a smoke test that the targets build and their
# invariants hold on known inputs, which scripts/test.sh runs.
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and libFuzzer's instrumentation, which takes a
# nightly compiler: the nightly toolchain when rustup has one, else stable with RUSTC_BOOTSTRAP=1.
# The corpus grows in fuzz/corpus/<target>; a crash or timeout is saved in
# fuzz/artifacts/<target>/ and replayed with `cargo fuzz run <target> <that file>`.
set -euo pipefail
all_targets=(jsonrpc_decode uri_template http_request http_wire)
cd "$(dirname "$0")/../fuzz"

if [ "${1:-}" = "--seeds" ]; then
    cargo build --locked --bins
    shopt -s nullglob
    for target in "${all_targets[@]}"; do
        inputs=(seeds/"$target"/* corpus/"$target"/*)
        # Without a file argument libFuzzer would fuzz forever.
        [ ${#inputs[@]} -gt 0 ] || { echo "$target has no seeds in fuzz/seeds/$target" >&2; exit 1; }
        # Given files, a libFuzzer binary runs each one once; a broken invariant aborts it.
        log="target/seeds-$target.log"
        if ! MCP_FUZZ_STRICT_JSON=1 "target/debug/$target" "${inputs[@]}" >"$log" 2>&1; then
            tail -n 40 "$log" >&2
            echo "== $target broke an invariant on one of its ${#inputs[@]} inputs (above)" >&2
            exit 1
        fi
        echo "== $target: $(grep -c '^Executed' "$log") of ${#inputs[@]} inputs ran, invariants held"
    done
    exit 0
fi

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

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
