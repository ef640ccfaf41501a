#!/usr/bin/env python3
"""Passes' samples against MLIR's pass timers, from one `record --mlir-timing` run.

Reads `compile-perf report RUN --by pass --compiler --format json` and prints,
for every top-level pass whose timers hold at least 5% of the timers' `Total`:
its timers' share of that total, its samples' share of the pass manager's
samples (its own row and its nested compilers' copies, as `timer_cpu_seconds`
counts them), and whether the two agree within max(5 pp, 30% of the timer
share). Then the yardsticks of docs/measurements/const-eval.md: the medians of
`cpu_per_wall` and of `cpu_per_user` of the other top-level passes whose timers
hold at least 0.2 s, and JitGlobalsPass's and ApplyPatternsPass's against them.

    python3 scripts/timer-agreement.py REPORT.json
"""

import json
import statistics
import sys

MIN_TIMER_SHARE = 5.0
MIN_YARDSTICK_SECONDS = 0.2
JUDGED = ("JitGlobalsPass", "ApplyPatternsPass")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1]) as file:
        report = json.load(file)
    total = report.get("mlir_timing_total_wall_seconds")
    if not total:
        print("the report has no timers: record the run with --mlir-timing", file=sys.stderr)
        return 1
    in_pass_manager = report["in_pass_manager_samples"]
    top_level = [
        row
        for row in report["passes"]
        if row.get("timer_wall_seconds") is not None and not row.get("nested_in")
    ]
    print("| pass | timer share | samples' share | within max(5 pp, 30%) |")
    print("|---|---:|---:|---|")
    for row in top_level:
        timer_share = 100 * row["timer_wall_seconds"] / total
        if timer_share < MIN_TIMER_SHARE:
            continue
        seconds_per_sample = row["cpu_seconds"] / row["inclusive_samples"]
        samples_share = 100 * row["timer_cpu_seconds"] / seconds_per_sample / in_pass_manager
        agrees = abs(timer_share - samples_share) <= max(5.0, 0.3 * timer_share)
        print(
            f"| {row['name']} | {timer_share:.1f}% | {samples_share:.1f}% | "
            f"{'yes' if agrees else 'no'} |"
        )
    for ratio in ("cpu_per_wall", "cpu_per_user"):
        others = [
            row[ratio]
            for row in top_level
            if row["name"] not in JUDGED
            and row["timer_wall_seconds"] >= MIN_YARDSTICK_SECONDS
            and row.get(ratio) is not None
        ]
        if not others:
            continue
        yardstick = statistics.median(others)
        print()
        print(f"yardstick: median {ratio} {yardstick:.2f} of {len(others)} other passes")
        for row in top_level:
            if row["name"] in JUDGED and row.get(ratio) is not None:
                print(
                    f"{row['name']}: {ratio} {row[ratio]:.2f}, "
                    f"{row[ratio] / yardstick:.2f}× the yardstick"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
