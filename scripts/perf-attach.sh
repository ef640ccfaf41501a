# perf-attach.sh: sourced by bench-zstd-level.sh and bench-zstd-tail.sh, which
# measure perf attached to a compile as `record` attaches it.
#
# `source scripts/perf-attach.sh NAME`, once the caller has set `input` (the
# .mlir to compile) and defined `die`: checks for compile-perf (`cp_bin`,
# $COMPILE_PERF), iree-compile ($IREE_COMPILE) and perf, makes the temp dir
# `tmp` (/tmp/NAME.XXXXXX, removed on exit) and the array `compile`, the
# compile of $input into $tmp/model.vmfb.
#
# perf_on_compile TIME OUT ERR PERF_ARG...: starts "${compile[@]}" (the
# caller's array) stopped, attaches `perf record -q PERF_ARG... -o OUT -p PID`
# under /usr/bin/time (perf's own user and system seconds into TIME, its
# stderr into ERR), lets the compile go and waits for both. A perf started
# beside a running compile can miss all of it, so the compile waits until
# perf is attached. Calls the caller's `die` if either fails.
# perf_samples OUT: the samples perf counts in the recording OUT.
# median: the median of the numbers on stdin, one per line.

cp_bin=${COMPILE_PERF:-$PWD/target/release/compile-perf}
iree=${IREE_COMPILE:-.venv/bin/iree-compile}
[[ -x $cp_bin ]] || die "$cp_bin missing: run scripts/setup.sh"
[[ -x $iree ]] || die "$iree missing: run scripts/setup.sh"
command -v perf >/dev/null || die "perf missing: run scripts/setup.sh"
tmp=$(mktemp -d "/tmp/${1:?NAME missing}.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
compile=("$iree" --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
  --iree-llvmcpu-target-cpu=generic "$input" -o "$tmp/model.vmfb")

perf_on_compile() {
  local time=$1 out=$2 err=$3 pid perf_pid
  shift 3
  rm -rf "$out"
  bash -c 'kill -STOP $$; exec "$@"' _ "${compile[@]}" 2>/dev/null &
  pid=$!
  until [[ $(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) == T ]]; do sleep 0.01; done
  /usr/bin/time -f '%U %S' -o "$time" perf record -q "$@" -o "$out" -p "$pid" 2>"$err" &
  perf_pid=$!
  sleep 1
  kill -CONT "$pid"
  wait "$pid" || die "the compile failed"
  wait "$perf_pid" || die "perf record failed: $(tail -n 3 "$err")"
}

perf_samples() {
  perf report -i "$1" --stats 2>/dev/null | awk '$1 == "SAMPLE" { print $3; exit }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
