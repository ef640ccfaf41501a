#!/usr/bin/env bash
# wheel.sh: builds compile-perf's wheel for pip (docs/install.md).
#
# 1. maturin (from PyPI, pinned) into a venv of its own, target/tmp/maturin-venv,
#    with auditwheel, if it is not there yet;
# 2. `cargo build --release`: compile-perf and libheap_sampler.so (what
#    scripts/setup.sh builds too, so after it this step is a no-op);
# 3. libheap_sampler.so staged in target/wheel/compile_perf.data/scripts/, which
#    pip installs into the venv's bin/, beside the compile-perf program, where
#    `record --heap` looks for it;
# 4. `maturin build --release`: the same profile and target directory as step 2,
#    so cargo reuses that binary instead of building it again; maturin checks
#    the wheel against the manylinux policies (--auditwheel check: it bundles
#    nothing, and fails when the binary needs a library outside the policy);
# 5. `auditwheel show` prints the platform tag every ELF file in the wheel allows.
#
# Usage: scripts/wheel.sh [-o DIR]   (default DIR: target/wheels; works from any
#        directory; prints the wheel's path on stdout, the rest on stderr)
set -euo pipefail
MATURIN_VERSION=1.16.0
AUDITWHEEL_VERSION=6.8.2

out=
while (($#)); do
  case "$1" in
    -o) out=${2:?usage: scripts/wheel.sh [-o DIR]}; shift 2 ;;
    *) echo "usage: scripts/wheel.sh [-o DIR]" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] && out=$(realpath -m "$out")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${out:-$PWD/target/wheels}
log() { printf 'wheel: %s\n' "$*" >&2; }
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

tools=target/tmp/maturin-venv
if ! "$tools/bin/maturin" --version 2>/dev/null | grep -qx "maturin $MATURIN_VERSION"; then
  log "installing maturin==$MATURIN_VERSION and auditwheel==$AUDITWHEEL_VERSION into $tools"
  python3 -m venv "$tools"
  "$tools/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin==$MATURIN_VERSION" "auditwheel==$AUDITWHEEL_VERSION" >&2
fi

log "cargo build --release"
cargo build --release >&2

data=target/wheel/compile_perf.data/scripts
rm -rf target/wheel
mkdir -p "$data"
cp target/release/libheap_sampler.so "$data/"

mkdir -p "$out"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
rm -f "$out"/compile_perf-"$version"-*.whl
log "maturin build --release -o $out"
"$tools/bin/maturin" build --release --auditwheel check -o "$out" >&2
wheel=$(ls "$out"/compile_perf-"$version"-*.whl)
log "auditwheel show $(basename "$wheel")"
"$tools/bin/auditwheel" show "$wheel" >&2
log "$(du -h "$wheel" | cut -f1) $wheel"
echo "$wheel"
