#!/usr/bin/env python3
"""unit-ranking.py: how well `report --by unit` ranks a compile's executables.

Compares the executables' inclusive samples in `compile-perf report RUN --by unit`
(a run of `record --actions=units`) with what EXECUTABLES/executables.json says of
them (`compile-perf executables` of the same compile, each compiled alone): their
wall times, and their samples in TranslateExecutablesPass (the MLIR code generation
that the full compile does per executable; the full compile links the executables
before LLVM's code generation, which it then does for all at once). Prints Spearman's
rank correlation of each, and the orders.

Usage: scripts/unit-ranking.py RUN_DIR EXECUTABLES_DIR
Environment: COMPILE_PERF (default target/release/compile-perf).
"""
import json
import os
import subprocess
import sys


def ranks(values):
    """Ranks from 1, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    at = 0
    while at < len(order):
        end = at
        while end + 1 < len(order) and values[order[end + 1]] == values[order[at]]:
            end += 1
        for k in range(at, end + 1):
            result[order[k]] = (at + end) / 2 + 1
        at = end + 1
    return result


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    run_dir, executables_dir = sys.argv[1:]
    binary = os.environ.get("COMPILE_PERF", "target/release/compile-perf")
    report = json.loads(subprocess.run(
        [binary, "report", run_dir, "--by", "unit", "--format", "json", "-q"],
        check=True, capture_output=True, text=True).stdout)
    samples = {row["key"].split("@", 1)[1]: row["inclusive_samples"]
               for row in report["rows"] if row["key"].startswith("hal.executable @")}
    with open(os.path.join(executables_dir, "executables.json")) as file:
        alone = {e["name"]: e for e in json.load(file)["executables"]}
    names = sorted(set(samples) & set(alone))
    if len(names) < 3:
        sys.exit(f"only {len(names)} executables in both: {sorted(samples)} / {sorted(alone)}")
    print("| executable | inclusive samples (--by unit) | wall s (executables) | translate samples (executables) |")
    print("|---|---|---|---|")
    for name in sorted(names, key=lambda n: -samples[n]):
        print(f"| {name} | {samples[name]} | {alone[name]['wall_seconds']:.3f} | {alone[name]['translate_samples']} |")
    print()
    for field in ("wall_seconds", "translate_samples"):
        rho = spearman([samples[n] for n in names], [alone[n][field] for n in names])
        print(f"Spearman's rho against {field}, over {len(names)} executables: {rho:.3f}")


if __name__ == "__main__":
    main()
