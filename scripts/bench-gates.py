#!/usr/bin/env python3
"""bench-gates.py: how often compile-perf's gates flag unchanged compiles,
and how large a change they find, on real recorded runs.

Not a timed test: it records real iree-compile compiles (a workload of
scripts/workloads.py, ~600 samples a run at the small scale) and runs the
real binary's gates on them:

- `history check`'s judge (through `history show --format json`, which
  judges each stored run with the same code and default rules):
  - false flags: leave-one-out, each unchanged run against the H runs
    recorded before it (cyclically), at H = 3, 5, 10 and 30 runs of history;
  - power: the same checks with a change injected into the checked run's
    stored rows: the category's samples removed (its share falls by X pp,
    the run's total with it, as if that work were gone) or added (more of
    its samples, the total with them, until its share grew by X pp);
    a check finds the change when it flags that category;
  - vanishing categories: every category whose median share lies in
    2–6% removed from the checked run, at 4 runs of history
    (--vanishing-history), counting the checks that flag it;
- `diff`: false flags over disjoint sets of K unchanged runs against K
  others (K = 1, 3, 5), and power on a real change: K runs of the same
  model as bytecode (the lexer's share falls to nothing) against K text
  runs. `diff` reads recordings, whose samples this script does not edit.

Usage:
    python3 scripts/bench-gates.py [--runs DIR] [--unchanged 31] \
        [--binary target/release/compile-perf] [--scale small]

Recorded runs are kept in DIR (default target/bench-gates) and reused by the
next call. Prints a Markdown table per gate.
"""

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IREE_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=generic",
]
HISTORY_SIZES = [3, 4, 5, 10, 30]
DIFF_SIZES = [1, 3, 5]
# Injected changes of the category's share, in percentage points: negative
# removes its samples, "vanish" removes all of them.
INJECTED = ["vanish", -3.0, -2.0, 2.0, 3.0, 5.0, 10.0]
# Categories that vanish in the second table: every one whose median share
# of the unchanged runs lies in this range, in percent.
VANISHING_SHARES = (2.0, 6.0)


def run(cmd, check=True, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and done.returncode != 0:
        sys.exit(f"bench-gates: {' '.join(map(str, cmd))} failed ({done.returncode}):\n{done.stderr}")
    return done


def venv_bin(name):
    return os.path.join(ROOT, ".venv", "bin", name)


def workload(out_dir, name, scale):
    path = os.path.join(out_dir, name + (".mlirbc" if name.endswith("-bytecode") else ".mlir"))
    if not os.path.exists(path):
        run([venv_bin("python3"), os.path.join(ROOT, "scripts", "workloads.py"), name,
             "--out", path, "--scale", scale])
    return path


def record(binary, input_path, out_dir, name, count):
    """`count` run directories of `input_path` in out_dir/name-i (kept ones reused)."""
    dirs = []
    for at in range(1, count + 1):
        run_dir = os.path.join(out_dir, f"{name}-{at}")
        if not os.path.exists(os.path.join(run_dir, "report.json")):
            shutil.rmtree(run_dir, ignore_errors=True)
            run([binary, "record", "-q", "-o", run_dir, "--", venv_bin("iree-compile"),
                 *IREE_FLAGS, input_path, "-o", run_dir + ".vmfb"])
            print(f"recorded {run_dir}", file=sys.stderr)
        dirs.append(run_dir)
    return dirs


# ---- history check ----------------------------------------------------------


def master_store(binary, runs, db):
    """Every unchanged run in one SQLite store, series `bench=all`; the
    identities in recording order."""
    if os.path.exists(db):
        os.remove(db)
    run([binary, "history", "add", *runs, "--db", db, "--key", "bench=all"])
    with sqlite3.connect(db) as conn:
        by_path = dict(conn.execute("SELECT path, identity FROM runs"))
    by_name = {os.path.basename(path): identity for path, identity in by_path.items()}
    return [by_name[os.path.basename(r)] for r in runs]


def inject(conn, identity, category, change):
    """Changes `category`'s samples in the stored run `identity` so that its
    share moves by `change` pp ("vanish": to none); the run's total moves
    with the samples, and every share's value and the CPU time follow.
    Returns the change made, in pp."""
    rows = {m: (v, s, t) for m, v, s, t in conn.execute(
        "SELECT metric, value, samples, total FROM metrics WHERE identity = ?", (identity,))}
    hits, total = rows[category][1], rows[category][2]
    share = hits / total
    if change == "vanish":
        k = -hits
    elif change < 0:
        # (h - k) / (T - k) = share - x  =>  k = x T / (1 - share + x)
        x = -change / 100.0
        k = -min(hits, round(x * total / (1.0 - share + x)))
    else:
        # (h + k) / (T + k) = share + x  =>  k = x T / (1 - share - x)
        x = change / 100.0
        k = round(x * total / (1.0 - share - x))
    new_total = total + k
    for metric, (value, samples, metric_total) in rows.items():
        if samples is None:
            continue
        samples = samples + k if metric == category else samples
        conn.execute(
            "UPDATE metrics SET samples = ?, total = ?, value = ? WHERE identity = ? AND metric = ?",
            (samples, new_total, samples / new_total * 100.0, identity, metric))
    if "cpu_seconds" in rows:
        conn.execute("UPDATE metrics SET value = ? WHERE identity = ? AND metric = 'cpu_seconds'",
                     (rows["cpu_seconds"][0] * new_total / total, identity))
    return ((hits + k) / new_total - share) * 100.0


def history_check(binary, master, ids, target, history, change=None, category="category:lexer"):
    """The metrics `history show` flags on run `target` judged against the
    runs `history` (oldest first), with `change` injected into it."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "h.db")
        shutil.copy(master, db)
        with sqlite3.connect(db) as conn:
            for at, identity in enumerate(history + [target]):
                conn.execute("UPDATE runs SET series = 'bench=check', start_time = ? WHERE identity = ?",
                             (f"2026-12-07T00:{at // 60:02}:{at % 60:02}Z", identity))
            moved = inject(conn, target, category, change) if change is not None else 0.0
        shown = run([binary, "history", "show", "--db", db, "--key", "bench=check", "--last",
                     str(len(history)), "--format", "json", "--all"])
    trends = json.loads(shown.stdout)["trends"]
    flagged = [t["metric"] for t in trends
               if t["points"] and t["points"][-1]["identity"] == target and t["points"][-1]["flagged"]]
    return flagged, moved


def bench_history(binary, runs, work):
    master = os.path.join(work, "master.db")
    ids = master_store(binary, runs, master)
    n = len(ids)
    table = []
    for size in HISTORY_SIZES:
        if size >= n:
            continue
        targets = list(range(n))
        false_flags, what = 0, []
        for t in targets:
            history = [ids[(t - size + i) % n] for i in range(size)]
            flagged, _ = history_check(binary, master, ids, ids[t], history)
            if flagged:
                false_flags += 1
                what.append(flagged)
        row = {"history": size, "checks": len(targets), "false_flags": false_flags, "what": what}
        for change in INJECTED:
            found, moved = 0, []
            for t in targets:
                history = [ids[(t - size + i) % n] for i in range(size)]
                flagged, made = history_check(binary, master, ids, ids[t], history, change)
                moved.append(made)
                found += "category:lexer" in flagged
            row[change] = (found, sum(moved) / len(moved))
        table.append(row)
        print(f"history {size}: {row}", file=sys.stderr)
    return table


def small_categories(runs):
    """The categories whose median share of the unchanged runs lies in
    VANISHING_SHARES, with that median and range: [(id, median, low, high)]."""
    shares = {}
    for r in runs:
        with open(os.path.join(r, "report.json")) as f:
            for c in json.load(f)["categories"]:
                shares.setdefault(c["id"], []).append(c["self_percent"])
    low, high = VANISHING_SHARES
    chosen = []
    for category, values in sorted(shares.items()):
        values += [0.0] * (len(runs) - len(values))
        middle = statistics.median(values)
        if low <= middle <= high:
            chosen.append((category, middle, min(values), max(values)))
    return chosen


def bench_vanishing(binary, runs, work, size):
    """Each small category's samples removed from the checked run, judged
    against `size` runs of history: the checks that flag that category."""
    master = os.path.join(work, "master.db")
    ids = master_store(binary, runs, master)
    n = len(ids)
    table = []
    for category, share, low, high in small_categories(runs):
        found, elsewhere = 0, 0
        for t in range(n):
            history = [ids[(t - size + i) % n] for i in range(size)]
            flagged, _ = history_check(binary, master, ids, ids[t], history, "vanish",
                                       "category:" + category)
            found += "category:" + category in flagged
            elsewhere += any(m != "category:" + category and m.startswith("category:")
                             for m in flagged)
        row = {"category": category, "median": share, "low": low, "high": high,
               "checks": n, "found": found, "elsewhere": elsewhere}
        table.append(row)
        print(f"vanishing {size}: {row}", file=sys.stderr)
    return table


# ---- diff ---------------------------------------------------------------------


def diff_flags(binary, base, new, work):
    """The rows `diff` flags (significant) between two sets of run directories."""
    sides = []
    for name, runs in (("base", base), ("new", new)):
        side = os.path.join(work, name)
        shutil.rmtree(side, ignore_errors=True)
        os.makedirs(side)
        for at, r in enumerate(runs):
            # A copy (perf.data is a directory of perf's --threads streams):
            # `diff` does not follow symbolic links below a directory.
            shutil.copytree(os.path.join(r, "perf.data"), os.path.join(side, f"r{at}.perf.data"))
        sides.append(side)
    done = run([binary, "diff", *sides, "--compiler", "--format", "json", "--allow-different-inputs"])
    rows = json.loads(done.stdout)["rows"]
    return [r["key"] for r in rows if r["significant"]]


def bench_diff(binary, text, bytecode, work, pairs):
    table = []
    rng = random.Random(20261207)
    for size in DIFF_SIZES:
        false_flags, what, checks = 0, [], 0
        for _ in range(pairs):
            chosen = rng.sample(text, 2 * size)
            flagged = diff_flags(binary, chosen[:size], chosen[size:], work)
            checks += 1
            if flagged:
                false_flags += 1
                what.append(flagged)
        found, real = 0, 0
        for _ in range(pairs):
            if size > len(bytecode):
                break
            flagged = diff_flags(binary, rng.sample(text, size), rng.sample(bytecode, size), work)
            real += 1
            found += "lexer" in flagged
        row = {"runs": size, "checks": checks, "false_flags": false_flags, "what": what,
               "found": found, "real": real}
        table.append(row)
        print(f"diff {size}: {row}", file=sys.stderr)
    return table


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", default=os.path.join(ROOT, "target", "bench-gates"))
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "compile-perf"))
    ap.add_argument("--unchanged", type=int, default=31, help="unchanged runs to record (default 31)")
    ap.add_argument("--changed", type=int, default=5, help="bytecode runs to record (default 5)")
    ap.add_argument("--pairs", type=int, default=20, help="diffs per size (default 20)")
    ap.add_argument("--scale", default="small")
    ap.add_argument("--only", choices=["history", "vanishing", "diff"], help="bench one gate only")
    ap.add_argument("--vanishing-history", type=int, default=4,
                    help="runs of history for the vanishing categories (default 4)")
    args = ap.parse_args()
    os.makedirs(args.runs, exist_ok=True)
    text_input = workload(args.runs, "hex-constants", args.scale)
    bytecode_input = workload(args.runs, "hex-constants-bytecode", args.scale)
    record(args.binary, text_input, args.runs, "warm-up", 1)
    text = record(args.binary, text_input, args.runs, "text", args.unchanged)
    bytecode = record(args.binary, bytecode_input, args.runs, "bytecode", args.changed)
    samples = []
    lexer = []
    for r in text:
        with open(os.path.join(r, "report.json")) as f:
            report = json.load(f)
        samples.append(report["samples"] if "samples" in report else report["summary"]["samples"])
        lexer.extend(c["self_percent"] for c in report["categories"] if c["id"] == "lexer")
    print(f"{len(text)} unchanged runs: {min(samples)}–{max(samples)} samples, "
          f"lexer {min(lexer):.1f}–{max(lexer):.1f} %\n")
    work = os.path.join(args.runs, "work")
    os.makedirs(work, exist_ok=True)

    if args.only in (None, "history"):
        print_history(bench_history(args.binary, text, work))
    if args.only in (None, "vanishing"):
        print_vanishing(bench_vanishing(args.binary, text, work, args.vanishing_history),
                        args.vanishing_history)
    if args.only in (None, "diff"):
        print_diff(bench_diff(args.binary, text, bytecode, work, args.pairs))


def print_history(history):
    print("### history check\n")
    heads = ["history runs", "false flags"] + [
        "lexer vanishes" if c == "vanish" else f"lexer {c:+.0f} pp" for c in INJECTED]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---:|" * len(heads))
    for row in history:
        cells = [str(row["history"]), f"{row['false_flags']} of {row['checks']}"]
        for c in INJECTED:
            found, moved = row[c]
            cells.append(f"{found}/{row['checks']} ({moved:+.1f} pp)")
        print("| " + " | ".join(cells) + " |")
    for row in history:
        for what in row["what"]:
            print(f"- history {row['history']}: flagged {what}")


def print_vanishing(table, size):
    print(f"\n### a category vanishes, {size} runs of history\n")
    print("| category | median share (range) | flagged on it | other categories flagged |")
    print("|---|---:|---:|---:|")
    for row in table:
        print(f"| {row['category']} | {row['median']:.1f}% ({row['low']:.1f}–{row['high']:.1f}%) | "
              f"{row['found']}/{row['checks']} | {row['elsewhere']}/{row['checks']} |")


def print_diff(diff):
    print("\n### diff\n")
    print("| runs a side | false flags | bytecode's lexer found |")
    print("|---:|---:|---:|")
    for row in diff:
        print(f"| {row['runs']} | {row['false_flags']} of {row['checks']} | {row['found']}/{row['real']} |")
    for row in diff:
        for what in row["what"]:
            print(f"- diff {row['runs']}: flagged {what}")


if __name__ == "__main__":
    main()
