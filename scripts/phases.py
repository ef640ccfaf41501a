#!/usr/bin/env python3
"""phases.py: where compile-perf's own time goes, by phase.

Reads folded stacks of a self-profile of compile-perf and prints a Markdown
row per phase with its share of the samples; each stack counts in the first
phase one of whose marker strings appears in it (the last phase takes the
rest). Make the folded stacks with, for example:

    perf record -e cpu-clock -F 4000 --call-graph dwarf,32768 -o self.data -- \
        compile-perf report FILE --flamegraph out.svg
    compile-perf collapse self.data --process compile-perf -o self.folded
    python3 scripts/phases.py self.folded

Usage: scripts/phases.py FOLDED
"""
import collections
import sys

phases = [
 ("zstd decompression", ["ZSTD_"]),
 ("the kernel's symbols (kallsyms)", ["KernelSymbols::load"]),
 ("reading records, unwinding, interning stacks", ["profile::read_records", "unwind::Unwinders"]),
 ("reading (cold: writing) cache entries", ["profile::cached::", "cache::"]),
 ("compiling rules", ["NamePattern::compiled", "RuleTable::builtin", "parse_table"]),
 ("symbols: symbol tables, DWARF inline frames, demangling", ["resolve_in_file", "demangle", "InlineInfo"]),
 ("symbols: the rest (names from cache entries, interning)", ["symbolize::"]),
 ("categorizing (matching names, or reading cached categories)", ["classes::", "RuleTable::classify"]),
 ("the flamegraph: stacks, cut, tokens, inferno, SVG", ["render::flamegraph", "inferno::", "save_flamegraph"]),
 ("the table, freeing memory, the rest", [""]),
]
counts = collections.Counter(); total = 0
for line in open(sys.argv[1]):
    stack, _, n = line.rstrip("\n").rpartition(" ")
    n = int(n); total += n
    for name, markers in phases:
        if any(m in stack for m in markers):
            counts[name] += n; break
for name, _ in phases:
    print(f"| {name} | {100*counts[name]/total:.0f}% |")
print(f"total samples: {total}")
