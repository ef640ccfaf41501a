#!/usr/bin/env bash
# gallery.sh: regenerates flamegraphs/ (the gallery) from scratch with real compiles.
#
# For each workload of scripts/workloads.py (default scale) it generates the input,
# records `iree-compile` with `compile-perf record` into a temp run directory, and
# writes into flamegraphs/:
#   NAME.svg    `compile-perf flamegraph --compiler --min-width $svg_min_width` of the run:
#               the native iree-compile process only (not its Python launcher), coloured
#               by category, with the legend at the bottom; the run's compiler.svg
#               without the frames too narrow for a label (1% is 12 px of 1200), a
#               quarter to a third of its bytes
#   NAME.md     `compile-perf report perf.data --compiler --format markdown`, with the
#               wall time and peak RSS from run.json
#   f32-literals-inverted.svg   the icicle of leaf callers of the APFloat workload
#               (--min-width $svg_min_width too)
#   many-dispatches-passes.svg  `compile-perf flamegraph --passes-only --compiler` of the
#               many-dispatches run (recorded with --mlir-timing): the passes alone
#   many-dispatches-passes.md   its `report --by pass --compiler --format markdown`: the
#               passes' samples beside iree-compile's own pass timers
#   f32-literals.html           that run's report.html: the self-contained HTML report
#   const-eval-timeline.svg     `compile-perf timeline --compiler` of the const-eval run:
#               categories over time with the compiler's RSS (memory.json) and its peak
#   executables-slowest.svg, executables.md
#               `compile-perf executables` of many-dispatches --scale small: the
#               slowest executable's flamegraph (compiled alone) and the ranking
#   diff-hex-constants-base.svg, diff-hex-constants.md
#               `compile-perf diff` of hex-constants as text against bytecode, three
#               runs each (`record --repeat 3`): text's stacks coloured by the change
#               (the diff draws bytecode's too; the budget leaves them out), and the table
#   README.md   one line per workload with measured figures, the lexer text-vs-bytecode
#               comparison side by side, the diff, and how to regenerate
# perf.data files stay in the temp dir and are deleted (use --keep to keep them).
# The whole folder must fit in 2 MB ($max_total bytes), and no page may hold one
# picture twice: the script fails, leaving the old gallery, if either is broken.
#
# The binary is $COMPILE_PERF, else target/release/compile-perf.
# Takes about two minutes on 2 cores. Needs scripts/setup.sh to have run.
# Usage: scripts/gallery.sh [--keep]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD
log() { printf 'gallery: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

keep=0
for arg; do
  case "$arg" in
    --keep) keep=1 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $arg (usage: scripts/gallery.sh [--keep])" ;;
  esac
done
names=(f32-literals hex-constants hex-constants-bytecode const-eval many-dispatches)

bin=${COMPILE_PERF:-$repo/target/release/compile-perf}
[ -x "$bin" ] || die "$bin missing: run scripts/setup.sh (or set COMPILE_PERF)"
[ -x .venv/bin/iree-compile ] || die ".venv/bin/iree-compile missing: run scripts/setup.sh"
# iree-compile by name, so that titles and tables show no temp paths.
export PATH=$repo/.venv/bin:$PATH
# The gallery's budget, and the narrowest frame its flamegraphs draw (in
# percent of the width: 0.5 is 6 px of 1200; `record` draws 0.1).
max_total=2000000
svg_min_width=1.0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compile-perf-gallery.XXXXXX")
if ((keep)); then trap 'log "kept $tmp"' EXIT; else trap 'rm -rf "$tmp"' EXIT; fi
# Built in $out, then it replaces flamegraphs/ whole: nothing of an earlier
# gallery survives, and a failed run leaves the old one alone.
out=$tmp/flamegraphs
mkdir -p "$out"

# gallery_svg RUN OUT: the compiler process of RUN drawn to OUT for the gallery.
gallery_svg() {
  "$bin" flamegraph "$1/perf.data" --compiler --min-width "$svg_min_width" -q -o "$2"
}

for name in "${names[@]}"; do
  ext=mlir
  [[ $name = *-bytecode ]] && ext=mlirbc
  input=$name.$ext
  log "$name: generating $input"
  python3 scripts/workloads.py "$name" --out "$tmp/$input"
  log "$name: recording iree-compile"
  code=0
  # many-dispatches also keeps iree-compile's pass timers, for the pass picture.
  timing=()
  [ "$name" = many-dispatches ] && timing=(--mlir-timing)
  (cd "$tmp" && "$bin" record "${timing[@]}" -o "$name" -- iree-compile --iree-hal-target-device=local \
    --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic \
    "$input" -o "$name.vmfb" > "$name.table") || code=$?
  # 10 and 11: done, with a warning about a binary (printed above).
  [[ $code = 0 || $code = 10 || $code = 11 ]] || die "$name: compile-perf record exited with $code"
  run=$tmp/$name
  gallery_svg "$run" "$out/$name.svg"
  # From $tmp, so that the commands the findings show name $name/perf.data.
  (cd "$tmp" && "$bin" report "$name/perf.data" --compiler --format json -q -o "$name.json")
  (cd "$tmp" && "$bin" report "$name/perf.data" --compiler --format markdown -q -o "$name.table.md")
  (cd "$tmp" && "$bin" report "$name/perf.data" --compiler --by symbol --format markdown -q \
    -o "$name.symbols.md")
  # What a reader trusts: Other is not on every stack, and no two rows (or two
  # top symbols of one row) read the same.
  python3 - "$name" "$tmp/$name.json" "$tmp/$name.table.md" "$tmp/$name.symbols.md" <<'EOF'
import json, re, sys
name, report_json, *tables = sys.argv[1:]
other = [c for c in json.load(open(report_json))["categories"] if c["id"] == "other"]
if other and other[0]["inclusive_percent"] > 50:
    sys.exit(f"{name}: Other is {other[0]['inclusive_percent']}% inclusive")
for table in tables:
    rows = [line.split(" | ") for line in open(table) if line.startswith("| ") and not line.startswith("| ---")][1:]
    shown = [row[0].lstrip("| ") for row in rows]
    twice = {n for n in shown if shown.count(n) > 1}
    if twice:
        sys.exit(f"{name}: {table} shows these rows twice: {sorted(twice)}")
    for row in rows:
        # Entries are `NAME (COUNT)`, joined by ", " (names may hold ", " too).
        tops = re.findall(r"(.+?) \(\d+\)(?:, |$)", row[-1].rstrip(" |\n"))
        if len(set(tops)) != len(tops):
            sys.exit(f"{name}: {table}: one row's top entries read the same: {tops}")
EOF
  if [ "$name" = f32-literals ]; then
    "$bin" flamegraph "$run/perf.data" --compiler --inverted --min-width "$svg_min_width" -q \
      -o "$out/$name-inverted.svg"
    cp "$run/report.html" "$out/$name.html"
  fi
  if [ "$name" = many-dispatches ]; then
    "$bin" flamegraph "$run" --compiler --passes-only -q -o "$out/$name-passes.svg"
    (cd "$tmp" && "$bin" report "$name" --compiler --by pass --format markdown -q -o "$name.passes.md")
    "$bin" report "$run" --compiler --by pass --format json -q -o "$tmp/$name.passes.json"
    {
      printf '# many-dispatches: passes, samples and timers\n\n'
      printf '![the passes alone](%s-passes.svg)\n\n' "$name"
      printf 'Recorded with `compile-perf record --mlir-timing`; the picture is `compile-perf flamegraph '
      printf -- '--compiler --passes-only`, the table `compile-perf report --compiler --by pass --format markdown`: '
      printf 'each pass'"'"'s samples beside the wall seconds of its iree-compile timers (`timer s`), their CPU '
      printf 'seconds and the ratio, then the timers with no pass frame on the stacks.\n\n'
      cat "$tmp/$name.passes.md"
    } > "$out/$name-passes.md"
  fi
  if [ "$name" = const-eval ]; then
    "$bin" timeline "$run" --compiler -q -o "$out/$name-timeline.svg"
    "$bin" report "$run" --compiler --by pass --format json -q -o "$tmp/$name.passes.json"
  fi
  python3 - "$name" "$run/run.json" "$tmp/$name.table.md" "$tmp/$name.json" "$out/$name.md" <<'EOF'
import json, sys
name, run_json, table, report_json, out = sys.argv[1:]
run = json.load(open(run_json))
inputs = ", ".join(f"`{i['path']}` ({i['bytes'] / 1e6:.1f} MB)" for i in run["inputs"])
with open(out, "w") as f:
    f.write(f"# {name}\n\n![{name} flamegraph]({name}.svg)\n\n")
    span = json.load(open(report_json))["duration_seconds"]
    f.write(f"Generated by `python3 scripts/workloads.py {name}` (default scale): {inputs}. ")
    f.write(f"Recorded with `compile-perf record`: samples over {span:.1f} s "
            f"({run['wall_seconds']:.1f} s of perf's wall time), "
            f"peak RSS {run['peak_rss_bytes'] / 2**20:.0f} MiB, exit {run['exit']['code']}; "
            f"{run['host']['cores']} cores, {run['perf']['event']}. "
            "The table is `compile-perf report perf.data --compiler --format markdown`: "
            "the native iree-compile process only, like the SVG.\n\n")
    f.write(open(table).read())
EOF
  cp "$run/run.json" "$tmp/$name.run.json"
  ((keep)) || rm -rf "$run/perf.data"
  log "$name: flamegraphs/$name.svg ($(stat -c %s "$out/$name.svg") bytes), flamegraphs/$name.md"
done

# A diff: the same model as text and as bytecode, three runs each (`record
# --repeat 3`), compared with `diff --compiler`: the table, and both sides'
# stacks coloured by the change.
for name in hex-constants hex-constants-bytecode; do
  ext=mlir
  side=text
  if [[ $name = *-bytecode ]]; then ext=mlirbc; side=bytecode; fi
  log "diff: recording $name.$ext three times into $side/"
  code=0
  (cd "$tmp" && "$bin" record --repeat 3 -o "$side" -- iree-compile --iree-hal-target-device=local \
    --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic \
    "$name.$ext" -o "$side.vmfb" > "$side.table") || code=$?
  [[ $code = 0 || $code = 10 || $code = 11 ]] || die "$side: compile-perf record --repeat 3 exited with $code"
done
log "diff: text against bytecode"
code=0
(cd "$tmp" && "$bin" diff text bytecode --compiler -q --format markdown -o diff.table.md \
  --flamegraph "$tmp/diff-hex-constants.svg") || code=$?
[[ $code = 0 || $code = 10 || $code = 11 ]] || die "compile-perf diff exited with $code"
cp "$tmp/diff-hex-constants-base.svg" "$out/"
python3 - "$tmp/diff.table.md" "$out/diff-hex-constants.md" <<'EOF'
import sys
table, out = sys.argv[1:]
with open(out, "w") as f:
    f.write("# diff: hex-constants as text against bytecode\n\n")
    f.write("![text's stacks coloured by the change](diff-hex-constants-base.svg)\n\n")
    f.write("Each side is `compile-perf record --repeat 3` of the workload (default scale); the table is "
            "`compile-perf diff text bytecode --compiler --format markdown`, the picture above is the "
            "`diff-hex-constants-base.svg` of its `--flamegraph diff-hex-constants.svg`: text's stacks, each "
            "frame coloured by how its share changed from text to bytecode (red grew, blue shrank, grey "
            "within the noise or under 1 point). The diff also draws bytecode's stacks, coloured the same "
            "way (`diff-hex-constants.svg`); the gallery leaves them out to stay within its 2 MB.\n\n")
    f.write(open(table).read())
EOF
((keep)) || rm -rf "$tmp"/text/run-*/perf.data "$tmp"/bytecode/run-*/perf.data

# Executables: many-dispatches --scale small dumped and compiled executable
# by executable (`compile-perf executables`): the slowest one's flamegraph,
# and the ranking.
log "executables: many-dispatches --scale small, each executable alone"
python3 scripts/workloads.py many-dispatches --scale small --out "$tmp/dispatches.mlir"
code=0
(cd "$tmp" && "$bin" executables -o executables -- iree-compile --iree-hal-target-device=local \
  --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic \
  dispatches.mlir -o dispatches.vmfb > executables.table) || code=$?
[[ $code = 0 ]] || die "compile-perf executables exited with $code"
slowest=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["executables"][0]["flamegraph"])' \
  "$tmp/executables/executables.json")
gallery_svg "$tmp/executables/$(dirname "$slowest")" "$out/executables-slowest.svg"
python3 - "$tmp/executables" "$out" <<'EOF'
import json, sys
run, out = sys.argv[1:]
ranking = json.load(open(f"{run}/executables.json"))
slowest = ranking["executables"][0]
totals = ranking["totals"]
with open(f"{out}/executables.md", "w") as f:
    f.write("# executables: many-dispatches, one executable at a time\n\n")
    f.write(f"![{slowest['name']} compiled alone](executables-slowest.svg)\n\n")
    f.write("`python3 scripts/workloads.py many-dispatches --scale small`, then `compile-perf executables "
            "-- iree-compile … dispatches.mlir -o dispatches.vmfb`: the full compile dumps its "
            f"{totals['count']} executables, and each is compiled alone with `--compile-mode=hal-executable` "
            f"under perf. The picture is the slowest one's flamegraph (`{slowest['name']}`, "
            f"{slowest['wall_seconds']:.2f} s, entry point `{', '.join(slowest['entry_points'])}`), the "
            "native compiler process only; below, the ranking as the command prints it.\n\n")
    f.write("```\n" + open(f"{run}/executables.txt").read() + "```\n")
EOF
((keep)) || rm -rf "$tmp"/executables/full/perf.data "$tmp"/executables/executables/*/perf.data

# The index, with figures taken from the reports just made.
log "writing flamegraphs/README.md"
python3 - "$tmp" "$out/README.md" "$svg_min_width" <<'EOF'
import json, os, sys
tmp, out, min_width = sys.argv[1:]

def load(name):
    path = os.path.join(tmp, name + ".json")
    if not os.path.exists(path):
        return None
    rep = json.load(open(path))
    run = json.load(open(os.path.join(tmp, name + ".run.json")))
    cats = {c["id"]: c for c in rep["categories"]}
    return rep, run, cats

def pct(c, key="self_percent"):
    return f"{c[key]:.1f}%" if c else "0.0%"

def top_symbol(c):
    if not c or not c["top_symbols"]:
        return "–"
    s = c["top_symbols"][0]["symbol"].split("(")[0]
    return f"`{s}`"

# name -> (what it is, a function of (report, run, categories) -> what it shows)
WHAT = {
    "f32-literals": ("24 dense constants written as decimal f32/f16 literals",
        lambda r, run, c: f"APFloat/APInt {pct(c.get('apfloat'))} self "
                          f"({pct(c.get('apfloat'), 'inclusive_percent')} inclusive), the Parser "
                          f"{pct(c.get('parser'), 'inclusive_percent')} inclusive: parsing decimal "
                          f"strings into floats is the compile; top function {top_symbol(c.get('apfloat'))}"),
    "hex-constants": ("32 × 4 MiB `dense<\"0x…\">` constants in text",
        lambda r, run, c: f"Lexer {pct(c.get('lexer'))} self (top function {top_symbol(c.get('lexer'))}), "
                          f"Parser {pct(c.get('parser'), 'inclusive_percent')} inclusive; writing the 128 MiB "
                          f"of constants into the .vmfb is Serialization {pct(c.get('serialization'), 'inclusive_percent')} "
                          "inclusive (crc32 shows as Hashing, the file writes as Kernel)"),
    "hex-constants-bytecode": ("the same model as MLIR bytecode",
        lambda r, run, c: f"Lexer {pct(c.get('lexer'))} self, Parser {pct(c.get('parser'), 'inclusive_percent')} "
                          f"inclusive: bytecode skips the lexer; writing the .vmfb (Serialization "
                          f"{pct(c.get('serialization'), 'inclusive_percent')} inclusive) is what is left"),
    "const-eval": ("constant weights transposed, activated, multiplied and reduced before use",
        lambda r, run, c: f"Constant folding {pct(c.get('folding'), 'inclusive_percent')} inclusive "
                          f"({pct(c.get('folding'))} self): IREE's const-eval compiles and runs that work at "
                          "compile time"),
    "many-dispatches": ("80 matmul + bias + activation stages, about 80 distinct dispatches",
        lambda r, run, c: f"time spread over the whole pipeline: LLVM codegen {pct(c.get('llvm-codegen'))} self "
                          f"and LLVM IR optimization {pct(c.get('llvm-opt'))}, pattern rewriting "
                          f"{pct(c.get('rewrite'), 'inclusive_percent')} inclusive, the verifier "
                          f"{pct(c.get('verifier'))} self; bufferization is small "
                          f"({pct(c.get('bufferization'), 'inclusive_percent')} inclusive)"),
}

lines = [
    "# Gallery: real iree-compile profiles",
    "",
    "Real PyTorch models (BERT, GPT-2, a small Llama, ResNet-50), with their findings and "
    "const-eval's globals, have [their own pages](models/README.md) "
    "(`scripts/gallery-models.sh`).",
    "",
    "Each workload is a model from [`scripts/workloads.py`](../scripts/workloads.py) at its default "
    "scale, compiled by iree-compile 3.13.0 (`--iree-hal-target-device=local "
    "--iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic`) under "
    f"`compile-perf record`. Each SVG is `compile-perf flamegraph --compiler --min-width {min_width}` "
    "of the run (the native iree-compile process, without its Python launcher; the run's `compiler.svg` "
    f"with frames narrower than {min_width}% of the width left out, to keep the gallery small), coloured by "
    "category, with the legend at the bottom; open it in a browser to search and zoom. Each table is `compile-perf report perf.data --compiler --format "
    "markdown`. Percentages are shares of the compiler process's samples.",
    "",
    "| workload | what it shows | top self categories | Other, self | compile (samples' span) | flamegraph | table |",
    "|---|---|---|---:|---:|---|---|",
]
loaded = {}
for name, (what, shows) in WHAT.items():
    got = load(name)
    if got is None:
        continue
    loaded[name] = got
    rep, run, cats = got
    top = ", ".join(f"{c['name']} {c['self_percent']:.1f}%" for c in rep["categories"][:3])
    lines.append(f"| `{name}` | {what}: {shows(rep, run, cats)} | {top} | {pct(cats.get('other'))} "
                 f"| {rep['duration_seconds']:.1f} s "
                 f"| [{name}.svg]({name}.svg) | [{name}.md]({name}.md) |")
if "f32-literals" in loaded:
    lines += ["", "[f32-literals-inverted.svg](f32-literals-inverted.svg) is the same APFloat profile "
              f"inverted (`compile-perf flamegraph --compiler --inverted --min-width {min_width}`): the categories "
              "on top, each one bar, its hot leaf functions below it and their callers below them. "
              "[f32-literals.html](f32-literals.html) is the "
              "`report.html` of an f32-literals run, the self-contained HTML report `record` writes (the run's facts, the "
              "category table, the timeline, the pass table folded after 25 rows, the flamegraph of every "
              "process and the icicle); download it and open it in a browser."]
passes_json = os.path.join(tmp, "const-eval.passes.json")
if os.path.exists(passes_json):
    rep = json.load(open(passes_json))
    peak = rep["memory_peak"]
    grown = sorted(rep["passes"], key=lambda p: -p["rss_growth_bytes"])[:3]
    mib = lambda b: f"{b / 2**20:.1f} MiB"
    lines += ["", "## Memory over the compile: const-eval", "",
              "[const-eval-timeline.svg](const-eval-timeline.svg) is `compile-perf timeline --compiler` of the "
              "const-eval run: the category shares over time, the phases above, and the compiler's RSS from the "
              "run's `memory.json` as a dashed line, its peak marked. "
              f"The peak is {mib(peak['bytes'])} at {peak['seconds']:.2f} s, in {peak['pass']}"
              + (f" ({peak['phase']})" if peak["phase"] else "") + "; the passes whose spans grew it most "
              "(`report --by pass`, a pipeline's growth includes its nested passes'): "
              + ", ".join(f"{p['name']} +{mib(p['rss_growth_bytes'])}" for p in grown) + ".",
              "", "[![const-eval timeline with RSS](const-eval-timeline.svg)](const-eval-timeline.svg)"]
passes_json = os.path.join(tmp, "many-dispatches.passes.json")
if os.path.exists(passes_json):
    rep = json.load(open(passes_json))
    timed = [p for p in rep["passes"] if p["timer_wall_seconds"] is not None]
    top = sorted(timed, key=lambda p: -p["inclusive_samples"])[:3]
    lines += ["", "## The passes alone: many-dispatches", "",
              "[many-dispatches-passes.svg](many-dispatches-passes.svg) is `compile-perf flamegraph --compiler "
              "--passes-only` of the many-dispatches run: only MLIR pass frames, nested as they ran, and the "
              "places outside passes; each pass in the colour of its main category, its self samples' "
              "categories in the tooltip. The run was recorded with `--mlir-timing`; "
              "[many-dispatches-passes.md](many-dispatches-passes.md) is its `report --by pass`, with "
              f"{len(timed)} passes joined with iree-compile's timers and {len(rep.get('timer_only', []))} "
              "timers with no pass frame. The widest: "
              + ", ".join(f"{p['name']} {p['cpu_seconds']:.2f} CPU s against {p['timer_wall_seconds']:.2f} s "
                          "of its timers" for p in top) + ".",
              "", "[![many-dispatches passes](many-dispatches-passes.svg)](many-dispatches-passes.svg)"]
lines += ["", "*Other, self* is the share of the compiler's samples in functions no rule names: what the "
          "rule table misses. Other counts no inclusive share beyond that (see "
          "[Categories](../docs/reading-the-report.md#categories))."]

if "hex-constants" in loaded and "hex-constants-bytecode" in loaded:
    t, b = loaded["hex-constants"], loaded["hex-constants-bytecode"]
    def row(label, f):
        return f"| {label} | {f(t)} | {f(b)} |"
    lines += [
        "",
        "## The lexer: text vs bytecode",
        "",
        "The same model (32 constants of 1024×1024 f32), written as `dense<\"0x…\">` hex strings in "
        "MLIR text and as MLIR bytecode (`iree-ir-tool copy --emit-bytecode`):",
        "",
        "| | text (`hex-constants`) | bytecode (`hex-constants-bytecode`) |",
        "|---|---|---|",
        row("input", lambda g: f"{g[1]['inputs'][0]['bytes'] / 1e6:.0f} MB"),
        row("compile (samples' span)", lambda g: f"{g[0]['duration_seconds']:.1f} s"),
        row("compiler samples", lambda g: f"{g[0]['samples']}"),
        row("Lexer, self", lambda g: pct(g[2].get("lexer"))),
        row("Parser, inclusive", lambda g: pct(g[2].get("parser"), "inclusive_percent")),
        row("Serialization, inclusive", lambda g: pct(g[2].get("serialization"), "inclusive_percent")),
        row("top self categories", lambda g: ", ".join(f"{c['name']} {c['self_percent']:.1f}%"
                                                        for c in g[0]["categories"][:3])),
        row("flamegraph", lambda g: ""),
    ]
    lines[-1] = ("| flamegraph | [![hex-constants](hex-constants.svg)](hex-constants.svg) "
                 "| [![hex-constants-bytecode](hex-constants-bytecode.svg)](hex-constants-bytecode.svg) |")

diff_table = os.path.join(tmp, "diff.table.md")
if os.path.exists(diff_table):
    rows = [line for line in open(diff_table) if line.startswith("| Lexer |")]
    lexer = rows[0].split("|")[2:4] if rows else ["?", "?"]
    lines += [
        "",
        "## A diff: text against bytecode",
        "",
        "The same two models compared with `compile-perf diff` (three runs of each, `--compiler`): the "
        f"Lexer's self share goes from {lexer[0].strip()} to {lexer[1].strip()}, and the frames of text "
        "parsing are blue in text's stacks, coloured by the change from text to bytecode (red grew, "
        "blue shrank, grey within the noise). The table and the method are in "
        "[diff-hex-constants.md](diff-hex-constants.md).",
        "",
        "[![text's stacks coloured by the change to bytecode](diff-hex-constants-base.svg)](diff-hex-constants-base.svg)",
    ]

ranking = os.path.join(tmp, "executables", "executables.json")
if os.path.exists(ranking):
    ranking = json.load(open(ranking))
    slowest, totals = ranking["executables"][0], ranking["totals"]
    lines += [
        "",
        "## Which executable: one at a time",
        "",
        f"`compile-perf executables` on `many-dispatches --scale small`: its {totals['count']} executables "
        f"compiled one by one took {totals['wall_seconds']:.1f} s together (median "
        f"{totals['median_wall_seconds']:.2f} s); the slowest, `{slowest['name']}` "
        f"({slowest['wall_seconds']:.2f} s), compiled alone, is below: serialization "
        "(`SerializeAllExecutablesPass`: LLVM's optimizer and code generator) is most of it. "
        "The ranking is in [executables.md](executables.md).",
        "",
        "[![the slowest executable compiled alone](executables-slowest.svg)](executables-slowest.svg)",
    ]

lines += [
    "",
    "## Regenerating",
    "",
    "```sh",
    "bash scripts/setup.sh     # once: perf, the .venv with iree-compile, the release build",
    "bash scripts/gallery.sh   # every workload from scratch (about two minutes on 2 cores)",
    "```",
    "",
    "The recordings (perf.data) are not kept; `--keep` keeps the temp dir with every run directory.",
]
if loaded:
    run = next(iter(loaded.values()))[1]
    h = run["host"]
    version = (run.get("iree_compile_version") or "").splitlines()
    version = next((l.strip() for l in version if "compiler version" in l), "")
    lines += ["", f"Recorded on {h['cores']} cores, {h['memory_bytes'] / 2**30:.0f} GiB, Linux {h['kernel']}, "
              f"{run['perf']['version']}, event {run['perf']['event']}; {version}."]
open(out, "w").write("\n".join(lines) + "\n")
EOF
# What the gallery promises: no page holds one picture twice (the same SVG,
# or a flamegraph whose every frame another one of the same direction has,
# as the compiler's inside the picture of every process), and the whole
# folder fits its budget. Either broken, the old gallery stays.
python3 - "$out" <<'EOF'
import glob, hashlib, html, re, sys
for page in sorted(glob.glob(f"{sys.argv[1]}/*.html")):
    text = open(page).read()
    docs = [html.unescape(a or b) for a, b in re.findall(r"srcdoc='([^']*)'|srcdoc=\"([^\"]*)\"", text)]
    inline = re.sub(r"srcdoc='[^']*'|srcdoc=\"[^\"]*\"", "", text)
    pictures = docs + re.findall(r"<svg.*?</svg>", inline, re.S)
    digests = [hashlib.sha256(picture.encode()).hexdigest() for picture in pictures]
    if len(set(digests)) != len(digests):
        sys.exit(f"gallery: {page} holds the same picture twice")
    def direction(doc):
        """An icicle draws its root frame on top, a flamegraph at the bottom."""
        root = int(re.search(r"<title>all \([^<]*</title><rect [^>]*y=\"(\d+)\"", doc).group(1))
        lowest = min(int(y) for y in re.findall(r"</title><rect [^>]*y=\"(\d+)\"", doc))
        return "icicle" if root == lowest else "flamegraph"
    frames = [(direction(doc), set(re.findall(r"<title>([^<]*?) \([\d,]+ samples", doc)))
              for doc in docs]
    for i, (way, names) in enumerate(frames):
        for j, (other_way, other) in enumerate(frames):
            if i != j and way == other_way and names and names <= other:
                sys.exit(f"gallery: {page}: flamegraph {i + 1} is drawn again inside flamegraph {j + 1}")
EOF
total=$(du -cb "$out"/* | tail -n 1 | cut -f1)
((total <= max_total)) || die "the gallery is $total bytes, over its budget of $max_total:" \
  "$(cd "$out" && du -b -- * | sort -rn | head -n 5 | tr '\t\n' '  ')"
# The real models' pages (scripts/gallery-models.sh) are not this script's: kept.
[ ! -d flamegraphs/models ] || mv flamegraphs/models "$tmp/models-kept"
rm -rf flamegraphs
cp -r "$out" flamegraphs
[ ! -d "$tmp/models-kept" ] || mv "$tmp/models-kept" flamegraphs/models
log "done: flamegraphs/ is $total bytes (budget $max_total), $(du -cb flamegraphs/*.svg | tail -n 1 | cut -f1) of them SVGs"
