#!/usr/bin/env bash
# Run the Python-SDK interop tests (tests/python) against already-built servers.
#
#   CALCULATOR_BIN=/abs/path/calculator SHOWCASE_BIN=/abs/path/showcase \
#   NOTES_BIN=/abs/path/notes FILESYSTEM_BIN=/abs/path/filesystem \
#   HTTP_SERVER_BIN=/abs/path/http-server CONFORMANCE_BIN=/abs/path/conformance \
#   tests/python/run.sh [pytest args...]
#
# Builds nothing: the server binaries come from the environment, and the venv from
# scripts/python-env.sh (run here; it is idempotent and fast when up to date).
# Exits non-zero on any failure, including no tests collected.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

missing=0
for var in CALCULATOR_BIN SHOWCASE_BIN NOTES_BIN FILESYSTEM_BIN HTTP_SERVER_BIN CONFORMANCE_BIN; do
    if [ -z "${!var:-}" ]; then
        echo "run.sh: $var is not set (absolute path of the compiled server binary)" >&2
        missing=1
    fi
done
[ "$missing" -eq 0 ] || exit 2

bash "$repo_root/scripts/python-env.sh"
python="$repo_root/target/python-venv/bin/python"

cd "$repo_root"
export PYTHONDONTWRITEBYTECODE=1
exec "$python" -m pytest -q -p no:cacheprovider "$@" tests/python
