#!/usr/bin/env python3
"""check-structure.py: the module rules of ARCHITECTURE.md, checked.

For each crate of the workspace (src/ and crates/*/src/) it reads every
module's `use` declarations and paths (`crate::…`, `super::…`, `self::…`,
comments and `mod tests` left out), and fails when
  - two or more modules import each other in a circle (a module and its own
    parent or child do not count: a parent declares its children), or
  - a source file has more than 500 lines.
It prints each circle and each long file. Exit 0 when there is none, 1 otherwise.

Usage: scripts/check-structure.py            (works from any directory)
"""

import os
import re
import sys

MAX_LINES = 500
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PATH = re.compile(r"\b((?:crate|super|self)(?:::\w+)+)")
USE_GROUP = re.compile(r"\buse\s+((?:crate|super|self)(?:::\w+)*)::\{([^;]*)\};", re.S)


def modules(src):
    """Module path ('a::b', '' for the crate root) -> file."""
    found = {}
    for folder, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            parts = os.path.relpath(path, src)[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            found["::".join(parts)] = path
    return found


def code_of(path):
    """The file's code without comments and without its `mod tests`."""
    text = open(path, encoding="utf-8").read()
    text = re.split(r"#\[cfg\(test\)\]\s*mod tests", text)[0]
    return "\n".join(line.split("//")[0] for line in text.split("\n"))


def resolve(module, path, known):
    """The module a path names, from inside `module`; None outside the crate."""
    segments = path.split("::")
    here = module.split("::") if module else []
    if segments[0] == "crate":
        base, segments = [], segments[1:]
    elif segments[0] == "self":
        base, segments = here, segments[1:]
    else:
        base = here
        while segments and segments[0] == "super":
            base, segments = base[:-1], segments[1:]
    full = base + segments
    for end in range(len(full), -1, -1):
        candidate = "::".join(full[:end])
        if candidate in known:
            return candidate
    return None


def related(a, b):
    """Whether one module contains the other."""
    return a == b or a == "" or b == "" or a.startswith(b + "::") or b.startswith(a + "::")


def imports(known):
    edges = {module: set() for module in known}
    for module, path in known.items():
        code = code_of(path)
        paths = PATH.findall(code)
        for head, group in USE_GROUP.findall(code):
            paths += [f"{head}::{name}" for name in re.findall(r"\b\w+\b", group)]
        for path_text in paths:
            target = resolve(module, path_text, known)
            if target is not None and not related(module, target):
                edges[module].add(target)
    return edges


def circles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def main():
    crates = [os.path.join(ROOT, "src")]
    crates_dir = os.path.join(ROOT, "crates")
    if os.path.isdir(crates_dir):
        crates += sorted(
            os.path.join(crates_dir, name, "src") for name in os.listdir(crates_dir)
        )
    problems = 0
    files = 0
    for src in crates:
        known = modules(src)
        crate = os.path.relpath(src, ROOT)
        for component in circles(imports(known)):
            problems += 1
            print(f"check-structure: {crate}: modules that import each other: {', '.join(component)}")
        for path in known.values():
            files += 1
            lines = sum(1 for _ in open(path, encoding="utf-8"))
            if lines > MAX_LINES:
                problems += 1
                print(f"check-structure: {os.path.relpath(path, ROOT)} has {lines} lines (at most {MAX_LINES})")
    if problems:
        sys.exit(1)
    print(f"check-structure: {files} files in {len(crates)} crate(s): no import circle, none over {MAX_LINES} lines")


if __name__ == "__main__":
    main()
