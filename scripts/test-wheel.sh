#!/usr/bin/env bash
# test-wheel.sh: the wheel installed as a user would install it, checked against
# the cargo build (a step of scripts/test.sh, after scripts/setup.sh).
#
# 1. scripts/wheel.sh builds the wheel into target/tmp/wheel-dist (reusing the
#    release build);
# 2. a fresh venv, target/tmp/wheel-venv, gets the wheel and
#    iree-base-compiler==$IREE_VERSION (scripts/setup.sh's) from pip;
# 3. with a PATH of the system's directories alone (no cargo, no venv) and no
#    venv active, the venv's compile-perf records the example
#    (examples/model.mlir, as scripts/run-example.sh does) with the bare name
#    `iree-compile`, which it must find in the venv it was installed into;
# 4. the venv's compile-perf and target/release/compile-perf report that
#    recording (`report --format json --no-cache`, by category and by pass):
#    the two reports must be the same, with categories in them;
# 5. `python -m compile_perf record --heap`, with the venv active (VIRTUAL_ENV)
#    and COMPILE_PERF_HEAP_SAMPLER unset, must preload the wheel's
#    libheap_sampler.so: its report has a live heap.
#
# Usage: scripts/test-wheel.sh      (works from any directory; as root, for perf)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
log() { printf 'test-wheel: %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }
iree_version=$(sed -n 's/^IREE_VERSION=//p' scripts/setup.sh)

started=$SECONDS
wheel=$(bash scripts/wheel.sh -o target/tmp/wheel-dist)
log "wheel built in $((SECONDS - started)) s: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"

venv=$root/target/tmp/wheel-venv
rm -rf "$venv"
python3 -m venv "$venv"
log "pip install $(basename "$wheel") iree-base-compiler==$iree_version into $venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel" "iree-base-compiler==$iree_version" >&2
[ -f "$venv/bin/libheap_sampler.so" ] || fail "the wheel put no libheap_sampler.so in $venv/bin"

system_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# The user's shell as pip leaves it: the system's PATH, no venv active, no override of the library.
as_user() { env -u VIRTUAL_ENV -u COMPILE_PERF_HEAP_SAMPLER PATH="$system_path" "$@"; }
if as_user sh -c 'command -v cargo || command -v iree-compile'; then
  fail "cargo or iree-compile is on the system PATH ($system_path); this test needs neither there"
fi
[ "$(as_user "$venv/bin/python" -m compile_perf --version)" = "$(target/release/compile-perf --version)" ] ||
  fail "python -m compile_perf --version is not the cargo build's"

runs=$root/target/tmp/wheel-runs
rm -rf "$runs"
mkdir -p "$runs"
compile=(iree-compile --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
  --iree-llvmcpu-target-cpu=generic "$root/examples/model.mlir")

log "record with the venv's compile-perf, bare iree-compile, system PATH"
as_user "$venv/bin/compile-perf" record -q -o "$runs/example" -- "${compile[@]}" -o "$runs/example/model.vmfb" >/dev/null
ran=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["command"][0])' "$runs/example/run.json")
[ "$ran" = "$venv/bin/iree-compile" ] || fail "iree-compile ran as $ran, not the venv's $venv/bin/iree-compile"

for by in category pass; do
  as_user "$venv/bin/compile-perf" report -q "$runs/example" --by "$by" --format json --no-cache >"$runs/wheel-$by.json"
  target/release/compile-perf report -q "$runs/example" --by "$by" --format json --no-cache >"$runs/cargo-$by.json"
  python3 - "$runs/wheel-$by.json" "$runs/cargo-$by.json" "$by" <<'PY'
import json, sys
wheel, cargo = (json.load(open(path)) for path in sys.argv[1:3])
key = {"category": "categories", "pass": "passes"}[sys.argv[3]]
rows = wheel.get(key, [])
names = [row["name"] for row in rows]
if wheel != cargo:
    changed = sorted(k for k in wheel.keys() | cargo.keys() if wheel.get(k) != cargo.get(k))
    sys.exit(f"the wheel's report by {sys.argv[3]} differs from the cargo build's in: {changed}")
if sum(row["self_samples"] for row in rows) == 0 or not names:
    sys.exit(f"the report by {sys.argv[3]} has no samples: {names}")
print(f"test-wheel: report by {sys.argv[3]}: the same from both builds, {len(rows)} {key}, "
      f"{sum(row['self_samples'] for row in rows)} samples; first: {', '.join(names[:4])}", file=sys.stderr)
PY
done

log "python -m compile_perf record --heap, venv active"
env -u COMPILE_PERF_HEAP_SAMPLER PATH="$system_path" VIRTUAL_ENV="$venv" \
  "$venv/bin/python" -m compile_perf record --heap -q -o "$runs/heap" -- "${compile[@]}" -o "$runs/heap/model.vmfb" >/dev/null
as_user "$venv/bin/compile-perf" report -q "$runs/heap" --heap --format json >"$runs/heap.json"
python3 - "$runs/heap.json" <<'PY'
import json, sys
peak = json.load(open(sys.argv[1])).get("heap_peak")
# The most live heap over the compile, not the heap at the RSS peak: on a busy
# machine the RSS can peak at the very end, when the sampled blocks are freed.
if not peak or peak["max_live_bytes"] == 0:
    sys.exit(f"record --heap from the wheel sampled no live heap: {peak}")
print(f"test-wheel: record --heap: at most {peak['max_live_bytes'] / 2**20:.1f} MiB live, at "
      f"{peak['max_seconds']} s; {peak['live_bytes'] / 2**20:.1f} MiB at the {peak['instant']}", file=sys.stderr)
PY
log "passed in $((SECONDS - started)) s"
