#!/usr/bin/env bash
# Makes the virtualenv of the serve_peers bench's Python peers (requirements.txt beside this
# file) and prints its path. It outlives the checkout, like CI's, and is re-made when
# requirements.txt changes. CANVASC_BENCH_PEERS_VENV overrides where it lives.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${CANVASC_BENCH_PEERS_VENV:-$HOME/.cache/canvasc-bench-peers-venv}"
requirements="$here/requirements.txt"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [ "$(cat "$venv/.canvasc-requirements" 2>/dev/null)" != "$wanted" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" >&2
  echo "$wanted" >"$venv/.canvasc-requirements"
fi
echo "$venv"
