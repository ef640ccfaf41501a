#!/usr/bin/env bash
# models.sh: real PyTorch models as MLIR workloads, exported with IREE's own FX importer.
#
# Makes (once) a venv of its own with torch, transformers, torchvision and
# iree-base-compiler from PyPI, about 6 GB installed, and exports each model
# named (scripts/models.py --list) to NAME.mlir with random weights from its
# config. Both live outside the repository, in the cache:
#   venv:  $COMPILE_PERF_MODELS/venv   (default ~/.cache/compile-perf/models)
#   MLIR:  $COMPILE_PERF_MODELS/NAME.mlir
# A model already exported by the same scripts/models.py is not exported again.
# Prints the path of each model's .mlir on stdout, one a line.
#
# Usage: scripts/models.sh NAME...        (works from any directory)
#        scripts/models.sh --list
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'models: %s\n' "$*" >&2; }

home=${COMPILE_PERF_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/compile-perf/models}
venv=$home/venv
pins=(torch==2.15.0 transformers==5.25.0 torchvision==0.29.2 iree-base-compiler==3.13.0)
mkdir -p "$home"

want=$(printf '%s\n' "${pins[@]}")
if [ "$(cat "$venv/pins.txt" 2>/dev/null)" != "$want" ]; then
  log "installing ${pins[*]} into $venv (about 6 GB; once)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}" >&2
  printf '%s\n' "$want" >"$venv/pins.txt"
fi

if [ "${1:-}" = --list ]; then
  exec "$venv/bin/python" scripts/models.py --list
fi
(($#)) || { echo "usage: scripts/models.sh NAME... | --list" >&2; exit 2; }

# A model's MLIR is kept beside a stamp of the exporter that wrote it.
stamp=$(sha256sum scripts/models.py | cut -c1-16)
for name in "$@"; do
  out=$home/$name.mlir
  if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
    log "$name: $out (exported before)"
  else
    log "$name: exporting to $out"
    start=$(date +%s)
    "$venv/bin/python" scripts/models.py "$name" --out "$out.tmp"
    mv "$out.tmp" "$out"
    echo "$stamp" >"$out.stamp"
    log "$name: $(du -m "$out" | cut -f1) MiB in $(($(date +%s) - start)) s"
  fi
  echo "$out"
done
