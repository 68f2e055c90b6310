#!/usr/bin/env bash
# The Python package's CI: a fresh virtual environment, the wheel built by
# maturin and installed there, then its tests (PettingZoo's API test and
# the training smoke test among them). .ci/run calls this after the
# workspace's own tests.
set -euo pipefail
cd "$(dirname "$0")"

venv="$(realpath -m "${CAPICUA_PY_VENV:-../target/python-ci-venv}")"
rm -rf "$venv"
if ! python3 -m venv "$venv" 2>/dev/null; then
  # Debian's python3 leaves venv (ensurepip) to a package of its own.
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  rm -rf "$venv"
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "maturin>=1.5,<2" pytest pettingzoo gymnasium numpy
# The dev profile: it shares the workspace's compiled crates (cargo test
# built them), so the wheel costs one more crate and a link, not a
# release build of the tree. Tests time nothing.
rm -rf ../target/wheels
"$venv/bin/maturin" build --profile dev --out ../target/wheels
"$venv/bin/python" -m pip install --quiet ../target/wheels/capicua-*.whl
# From outside the source tree, so the installed wheel is what is tested.
(cd tests/py && "$venv/bin/python" -m pytest -q -p no:cacheprovider .)
