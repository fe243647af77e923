#!/usr/bin/env bash
# Installs (idempotently) what the OAuth end-to-end test (tests/tests/oauth_e2e.rs) runs besides
# our own binaries: panva's `oidc-provider` (the authorization server of tests/oidc/provider.mjs)
# and `puppeteer-core` (tests/oidc/sign-in.mjs drives Chromium with it), at the versions pinned in
# tests/oidc/package.json, into tests/oidc/node_modules/ (git-ignored), where the scripts' imports
# find them. Node 22 comes from scripts/node-env.sh (into .node/); Chromium from
# scripts/services.sh (Debian's package: puppeteer-core downloads no browser).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf '=== %s\n' "$*" >&2; }
source "$root/scripts/node-env.sh"

dir="$root/tests/oidc"
stamp="$dir/node_modules/.package.json.sha256"
want="$(sha256sum "$dir/package.json" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
log "installing tests/oidc/package.json (oidc-provider, puppeteer-core) into tests/oidc/node_modules/"
# No browser download: puppeteer-core never fetches one, and the environment says so too.
PUPPETEER_SKIP_DOWNLOAD=1 npm install --prefix "$dir" --no-save --no-package-lock --omit=dev >&2
echo "$want" >"$stamp"
