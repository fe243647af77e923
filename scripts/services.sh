#!/usr/bin/env bash
# Installs the real programs some tests run, from Debian's packages, when they are missing:
# `redis-server` and `nginx` for the multi-replica tests (tests/src/cluster.rs,
# tests/tests/replicas.rs, scripts/replicas.sh), and `chromium` for the browser tests
# (tests/tests/browsers.rs: a headless Chromium calls the HTTP server from web pages).
# Idempotent: with all three present it does nothing.
#
# The packages' own services are never started: the tests start their own redis-server and nginx
# on free ports, with their config, data and logs in temp dirs. While apt runs, a policy-rc.d
# that answers 101 ("action forbidden") keeps the postinst scripts from starting them (kept as
# it is when the machine already has one); any daemon that started anyway is stopped.
#
# Needs root, or sudo, to install. Prints where each binary is.
set -euo pipefail

log() { printf 'services.sh: %s\n' "$*" >&2; }

# nginx lives in /usr/sbin, which a non-root PATH may lack.
find_bin() { command -v "$1" 2>/dev/null || { [[ -x "/usr/sbin/$1" ]] && echo "/usr/sbin/$1"; } || true; }

missing=()
[[ -n "$(find_bin redis-server)" ]] || missing+=(redis-server)
[[ -n "$(find_bin nginx)" ]] || missing+=(nginx-light)
[[ -n "$(find_bin chromium)" ]] || missing+=(chromium)

if ((${#missing[@]})); then
    if ((EUID == 0)); then
        as_root=()
    elif command -v sudo >/dev/null; then
        as_root=(sudo)
    else
        log "cannot install ${missing[*]}: not root and no sudo"
        exit 1
    fi
    policy=/usr/sbin/policy-rc.d
    made_policy=""
    if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\n# Written by scripts/services.sh while it installs packages: start no service.\nexit 101\n' |
            "${as_root[@]}" tee "$policy" >/dev/null
        "${as_root[@]}" chmod 755 "$policy"
        made_policy=1
    fi
    remove_policy() { if [[ -n "$made_policy" ]]; then "${as_root[@]}" rm -f "$policy"; fi; }
    trap remove_policy EXIT

    log "installing ${missing[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get update -qq
    if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
        # nginx-light is Debian 12's small build; later releases have only `nginx`.
        missing=("${missing[@]/nginx-light/nginx}")
        "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi

    # Should a service have started all the same (a machine without the policy's effect),
    # stop it: the tests need none, and it would hold ports 6379 and 80.
    for service in redis-server nginx; do
        if command -v service >/dev/null && service "$service" status >/dev/null 2>&1; then
            log "stopping the $service system service"
            "${as_root[@]}" service "$service" stop >/dev/null 2>&1 || true
        fi
    done
fi

for bin in redis-server nginx chromium; do
    path="$(find_bin "$bin")"
    [[ -n "$path" ]] || { log "$bin is still missing after the install"; exit 1; }
    log "$bin: $path"
done
