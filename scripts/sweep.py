#!/usr/bin/env python3
"""sweep.py: hostile-input sweep of compile-perf's perf.data reader.

Feeds damaged copies of real recordings (the committed fixtures and fuzz
seeds) to `compile-perf top --format json` and sorts every outcome:

- panic: stderr mentions a panic;
- abort: killed by a signal (an allocation failure aborts);
- hang: still running after --timeout seconds;
- silent loss: exit 0 (or the binary warnings 10/11) with fewer samples than
  the undamaged recording, i.e. data lost without a word;
- reported: any other non-zero exit (the damage was named);
- unchanged count: exit 0 with the same number of samples (damage inside a
  sample's own bytes, which cannot be told from real data, or a harmless byte).

Cases: a file cut at many points (file mode), a pipe stream cut at many points
(fed on stdin), and random mutations (a flipped bit, a random byte, a 16-bit
size field, a 64-bit field set to a huge or random value) at random offsets,
from a fixed seed so that a run can be repeated.

Usage: scripts/sweep.py [--bin PATH] [--mutations N] [--cuts N] [--seed S]
Exit status: 1 when any panic, abort, hang or silent loss was seen.
"""

import argparse
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILE_INPUTS = [
    "tests/fixtures/fake-dwarf.perf.data",
    "tests/fixtures/fake-dwarf-buildid-mmap.perf.data",
    "tests/fixtures/fake-fp.perf.data",
    "tests/fixtures/fake-multi-event.perf.data",
    "tests/fixtures/fake-rounds.perf.data",
    "fuzz/seeds/perfdata/file-fp.perf.data",
    "fuzz/seeds/perfdata/file-zstd-dwarf.perf.data",
]
PIPE_INPUTS = [
    "tests/fixtures/fake-pipe.perf.data",
    "fuzz/seeds/perfdata/pipe-fp.perf.data",
    "fuzz/seeds/perfdata/pipe-zstd-dwarf.perf.data",
]
WARNING_EXITS = (0, 10, 11)


def run(binary, path=None, stdin=None, timeout=20):
    """(outcome, samples) of `top` on a path or on bytes given as stdin."""
    args = [binary, "top", "--format", "json", "-q", "-n", "1", path or "-"]
    try:
        done = subprocess.run(args, input=stdin, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", None
    err = done.stderr.decode(errors="replace")
    if "panicked" in err:
        return "panic", None
    if done.returncode < 0 or done.returncode == 134:
        return "abort", None
    samples = None
    if done.returncode in WARNING_EXITS:
        try:
            samples = json.loads(done.stdout)["samples"]
        except (ValueError, KeyError):
            return "reported", None
        return "ok", samples
    return "reported", None


def mutate(data, rng):
    data = bytearray(data)
    at = rng.randrange(len(data))
    kind = rng.choice(["bit", "byte", "u16", "u64-huge", "u64-random"])
    if kind == "bit":
        data[at] ^= 1 << rng.randrange(8)
    elif kind == "byte":
        data[at] = rng.randrange(256)
    elif kind == "u16" and at + 2 <= len(data):
        data[at : at + 2] = struct.pack("<H", rng.randrange(65536))
    elif kind.startswith("u64") and at + 8 <= len(data):
        value = rng.choice([2**63 - 1, 2**64 - 1, 2**40, 2**32 + 1]) if kind == "u64-huge" \
            else rng.randrange(2**64)
        data[at : at + 8] = struct.pack("<Q", value)
    else:
        data[at] ^= 0xFF
    return bytes(data), f"{kind}@{at}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "target/release/compile-perf"))
    parser.add_argument("--mutations", type=int, default=2000, help="random mutations in all")
    parser.add_argument("--cuts", type=int, default=60, help="cut points per input")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tally = Counter()
    bad = []
    originals = {}
    for name in FILE_INPUTS + PIPE_INPUTS:
        outcome, samples = run(args.bin, os.path.join(ROOT, name), timeout=args.timeout)
        if outcome != "ok" or not samples:
            sys.exit(f"sweep: the undamaged {name} does not read ({outcome})")
        originals[name] = samples

    def judge(case, name, label, outcome, samples):
        if outcome == "ok":
            outcome = "silent loss" if samples < originals[name] else (
                "unchanged count" if samples == originals[name] else "more samples")
        tally[(case, outcome)] += 1
        if outcome in ("panic", "abort", "hang", "silent loss", "more samples"):
            bad.append((case, label, outcome, samples))

    with tempfile.TemporaryDirectory(prefix="compile-perf-sweep-") as scratch:
        scratch_file = os.path.join(scratch, "case.perf.data")
        for name in FILE_INPUTS:
            data = open(os.path.join(ROOT, name), "rb").read()
            for cut in sorted({rng.randrange(1, len(data)) for _ in range(args.cuts)}):
                open(scratch_file, "wb").write(data[:cut])
                judge("file cut", name, f"{name} (cut at {cut})", *run(args.bin, scratch_file, timeout=args.timeout))
        for name in PIPE_INPUTS:
            data = open(os.path.join(ROOT, name), "rb").read()
            for cut in sorted({rng.randrange(1, len(data)) for _ in range(args.cuts)}):
                judge("pipe cut", name, f"{name} (cut at {cut})", *run(args.bin, stdin=data[:cut], timeout=args.timeout))
        inputs = FILE_INPUTS + PIPE_INPUTS
        for index in range(args.mutations):
            name = inputs[index % len(inputs)]
            data, where = mutate(open(os.path.join(ROOT, name), "rb").read(), rng)
            if name in PIPE_INPUTS:
                result = run(args.bin, stdin=data, timeout=args.timeout)
            else:
                open(scratch_file, "wb").write(data)
                result = run(args.bin, scratch_file, timeout=args.timeout)
            judge("mutation", name, f"{name} ({where})", *result)

    cases = sorted({case for case, _ in tally})
    outcomes = ["reported", "unchanged count", "silent loss", "more samples", "panic", "abort",
                "hang"]
    print("| case | runs | " + " | ".join(outcomes) + " |")
    print("|---|---:|" + "---:|" * len(outcomes))
    for case in cases:
        runs = sum(count for (c, _), count in tally.items() if c == case)
        print(f"| {case} | {runs} | " + " | ".join(str(tally[(case, o)]) for o in outcomes) + " |")
    for case, name, outcome, samples in bad:
        print(f"sweep: {outcome}: {case} of {name} (samples: {samples})", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
