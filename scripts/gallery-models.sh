#!/usr/bin/env bash
# gallery-models.sh: the gallery's pages of real PyTorch models, made anew with real compiles.
#
# For each model (scripts/models.sh exports it, random weights from its config) it records
# iree-compile 3.13 (llvm-cpu, generic CPU) with `compile-perf record --mlir-timing` into a
# temp run directory and writes into flamegraphs/models/:
#   NAME.svg   `compile-perf flamegraph --compiler --min-width 1.0` of the run
#   NAME.md    the run's facts, its findings and categories
#              (`report --compiler --format markdown`, with the const-eval table), and its
#              passes (`report --by pass --compiler --format markdown`, the first rows)
#   README.md  one line per model with measured figures
# A model's compile takes 10-60 s here; the script about 5 minutes on 2 cores, after the
# models are exported (scripts/models.sh; its venv is about 6 GB, installed once).
#
# The binary is $COMPILE_PERF, else target/release/compile-perf.
# Usage: scripts/gallery-models.sh [NAME...]      (default: every model)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${COMPILE_PERF:-target/release/compile-perf}
out=flamegraphs/models
pass_rows=20
models=("$@")
((${#models[@]})) || models=(bert-mlm gpt2 llama-small resnet50)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

flags=(--iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
  --iree-llvmcpu-target-cpu=generic)
index=()
for name in "${models[@]}"; do
  mlir=$(bash scripts/models.sh "$name" | tail -n 1)
  what=$(bash scripts/models.sh --list | awk -F'\t' -v n="$name" '$1 == n {print $2}')
  run=$tmp/$name
  echo "gallery-models: $name ($(du -m "$mlir" | cut -f1) MiB of MLIR)" >&2
  "$bin" record -q --mlir-timing -o "$run" -- .venv/bin/iree-compile "${flags[@]}" "$mlir" \
    -o "$tmp/$name.vmfb" >/dev/null
  "$bin" flamegraph "$run/perf.data" --compiler --min-width 1.0 -o "$out/$name.svg"
  facts=$(python3 - "$run/run.json" "$run/report.json" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
vmfb = [a for a in run.get("artifacts", []) if a.get("role") == "output"]
size = f"{vmfb[0]['bytes'] / 2**20:.1f} MiB" if vmfb else "?"
unwind = report["unwind"]
unwound = 100 * unwind["complete"] / max(1, unwind["complete"] + unwind["truncated"])
print(f"{run['wall_seconds']:.1f} s\t{run['peak_rss_bytes'] / 2**20:.0f} MiB\t{size}\t"
      f"{report['samples']}\t{unwound:.1f}%")
EOF
)
  IFS=$'\t' read -r wall rss size samples unwound <<<"$facts"
  {
    echo "# $name"
    echo
    echo "![$name flamegraph]($name.svg)"
    echo
    echo "$what, exported by \`scripts/models.sh $name\` ($(du -m "$mlir" | cut -f1) MiB of MLIR, every weight inlined)."
    echo "Compiled by iree-compile 3.13.0 (\`${flags[*]}\`) under \`compile-perf record --mlir-timing\`"
    echo "on $(date -u +%Y-%m-%d), 2 cores: $wall wall, peak RSS $rss, a $size module, $samples samples, $unwound of stacks unwound."
    echo
    echo "## Categories and findings"
    echo
    "$bin" report "$run/perf.data" --compiler --format markdown |
      sed "s|$tmp/||g"
    echo
    echo "## Passes (the first $pass_rows rows)"
    echo
    "$bin" report "$run/perf.data" --compiler --by pass --format markdown |
      sed "s|$tmp/||g" | grep -v '^- ' | awk -v rows="$pass_rows" '/^\|/ { if (++n > rows + 2) next } { print }' |
      sed '/^### \(artifacts\|const-eval\)/,$d' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
  } >"$out/$name.md"
  index+=("| [\`$name\`]($name.md) | $what | $wall | $rss | $size | $samples | [$name.svg]($name.svg) |")
done

{
  echo "# Gallery: real PyTorch models"
  echo
  echo "Real models exported with IREE's own FX importer (\`scripts/models.sh\`, random weights from their configs), compiled by iree-compile 3.13.0 on llvm-cpu under \`compile-perf record --mlir-timing\`. Each page has the run's facts, its findings, the category table, the const-eval globals and the first rows of the pass table; each SVG is \`compile-perf flamegraph --compiler --min-width 1.0\`. Regenerate with \`bash scripts/gallery-models.sh\`."
  echo
  echo "| model | what | wall | peak RSS | module | samples | flamegraph |"
  echo "|---|---|---:|---:|---:|---:|---|"
  printf '%s\n' "${index[@]}"
} >"$out/README.md"
echo "gallery-models: wrote $out" >&2
