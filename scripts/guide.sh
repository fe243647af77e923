#!/usr/bin/env bash
# Builds the guide (docs/guide, an mdBook) into target/guide, installing mdBook (pinned, from
# crates.io, without its live-reload server) under target/mdbook when it is missing. Its code
# blocks are compiled by `cargo test` (mcp-runtime's doc tests), not by `mdbook test`, which
# cannot link the runtime's dependencies.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version=0.5.4
mdbook=target/mdbook/bin/mdbook
if ! "$mdbook" --version 2>/dev/null | grep -q "v$version"; then
    echo "installing mdBook $version under target/mdbook" >&2
    CARGO_TARGET_DIR=target/mdbook-build cargo install mdbook --locked --version "$version" \
        --no-default-features --features search --root target/mdbook
    rm -rf target/mdbook-build
fi
"$mdbook" build docs/guide
