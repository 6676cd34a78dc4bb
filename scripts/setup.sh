#!/usr/bin/env bash
# Installs what the studio and its tests need on a Debian machine (run as root), idempotently:
# Debian packages, then a virtual environment in .venv with the project and its test extras.
set -euo pipefail
cd "$(dirname "$0")/.."

# libzbar0: the pyzbar barcode backend; chromium: the console's browser tests (driven by Playwright,
# which must never download a browser of its own); nats-server: the JetStream delivery's tests and
# `studio demo --nats`
APT_PACKAGES=(python3 python3-venv python3-pip libzbar0 chromium nats-server)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# A machine whose python3 is not Debian's (pyenv, a container image) may already have venv and pip.
have_python() { command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null; }
if have_python; then
    keep=()
    for pkg in "${missing[@]}"; do
        case "$pkg" in python3|python3-venv|python3-pip) ;; *) keep+=("$pkg") ;; esac
    done
    missing=("${keep[@]}")
fi
if ((${#missing[@]})); then
    echo "setup: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PY=python3
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || {
    echo "setup: Python 3.11 or newer is needed, found $("$PY" --version)" >&2; exit 1; }

if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
# the stamp covers both projects: a change to either reinstalls
stamp=.venv/.installed-$(cat pyproject.toml clients/python/pyproject.toml | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
    echo "setup: installing Python packages into .venv"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[test]"
    # the betting backends' client library (its own package; a relative path is no dependency pip takes)
    .venv/bin/python -m pip install -q -e clients/python
    rm -f .venv/.installed-*
    touch "$stamp"
fi
