#!/usr/bin/env bash
# Create (idempotently) the Python venv used by the interop tests in tests/python,
# at <repo>/target/python-venv, and install tests/python/requirements.txt into it.
# Afterwards <repo>/target/python-venv/bin/python is ready to run pytest.
# Needs only python3 (CPython >= 3.10, with the venv module) and access to PyPI.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo_root/target/python-venv"
req="$repo_root/tests/python/requirements.txt"
stamp="$venv/.requirements.sha256"
python3_bin="${PYTHON3:-python3}"

want="$(sha256sum "$req" | cut -d' ' -f1)"

# Reuse a healthy venv whose installed requirements match the current file.
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import sys' >/dev/null 2>&1 \
    && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi

if ! [ -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if ! "$python3_bin" -m venv "$venv" >/dev/null 2>&1; then
        # Debian/Ubuntu without python3-venv (no ensurepip): build the venv
        # without pip and bootstrap pip from PyPI via the system pip.
        rm -rf "$venv"
        "$python3_bin" -m venv --without-pip "$venv"
        "$python3_bin" -m pip --python "$venv/bin/python" install --quiet --disable-pip-version-check pip \
            || { echo "python-env.sh: cannot create a venv with pip (install python3-venv)" >&2; exit 1; }
    fi
fi

"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req"
echo "$want" >"$stamp"
