#!/usr/bin/env bash
# Runs the MCP Inspector CLI checks (tests/inspector/check.mjs) against already-built servers:
#
#   CALCULATOR_BIN=/abs/path/calculator NOTES_BIN=/abs/path/notes \
#   HTTP_SERVER_BIN=/abs/path/http-server tests/inspector/run.sh
#
# Installs Node 22 under .node/ when missing (scripts/node-env.sh); npx fetches the Inspector.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { printf '\n=== %s\n' "$*" >&2; }
source "$root/scripts/node-env.sh"
exec node --test "$root/tests/inspector/check.mjs"
