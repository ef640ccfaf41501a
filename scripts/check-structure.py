#!/usr/bin/env python3
"""check-structure.py: the module rules of ARCHITECTURE.md, checked.

For each crate of the workspace (src/ and crates/*/src/) it reads every
module's `use` declarations and paths (`crate::…`, `super::…`, `self::…`,
comments and `mod tests` left out), and fails when
  - two or more modules import each other in a circle (a module and its own
    parent or child do not count: a parent declares its children), or
  - a source file has more than 500 lines.
For the app (src/) it also checks ARCHITECTURE.md against the code, and fails when
  - a module imports (`use crate::X`, `crate::X::…`, `super::…` up to the crate,
    or the crates `perfdata` and `category_rules`) a top-level module that the
    "may import" cell of its row in the layer table does not allow
    (`nothing`, a list of modules, `layers 0–3`, `… and below`, `never X`),
  - a command file imports another command (the commands row names the
    shared files a command file may use),
  - a top-level module of src/ has no row in the table, or a row names a
    module that does not exist,
  - a path ARCHITECTURE.md names (`x.rs`, `dir/`, `scripts/x.sh`…) does not
    exist: a file named in a row lies in that module's folder, other paths
    anywhere in the repository, or
  - a cell of the table is over 500 characters (detail goes in the
    module's `//!` docs).
Test-only modules (`#[cfg(test)] mod …`) are left out of the import rules.
It prints each circle, each long file and each disagreement. Exit 0 when there
is none, 1 otherwise.

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
            if parts == ["main"] and os.path.exists(os.path.join(src, "lib.rs")):
                continue  # a binary beside the library: a crate of its own, which uses the library
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            found["::".join(parts)] = path
    return found


def source_files(src):
    """Every .rs file under src."""
    return [os.path.join(folder, name) for folder, _, files in os.walk(src) for name in files if name.endswith(".rs")]


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


def path_texts(code):
    """The `crate::`, `super::` and `self::` paths of some code, a `use` group's
    names each as a path of its own."""
    texts = PATH.findall(code)
    for head, group in USE_GROUP.findall(code):
        texts += [f"{head}::{name}" for name in re.findall(r"\b\w+\b", group)]
    return texts


def imports(known):
    edges = {module: set() for module in known}
    for module, path in known.items():
        for path_text in path_texts(code_of(path)):
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


ARCHITECTURE = os.path.join(ROOT, "ARCHITECTURE.md")
MAX_CELL = 500
EXTERN_MODULES = ("perfdata", "category_rules")
PATH_LIKE = re.compile(r"^[\w.-]+(?:/[\w.-]+)*/?$")
PATH_ENDINGS = (".rs", ".py", ".sh", ".md", ".toml", ".js", ".proto", "/")
# A placeholder (`src/commands/NAME.rs`, `DIR/sources/`) or build output is no path to check.
NOT_A_PATH = re.compile(r"\b(?:NAME|COMMAND|DIR)\b|^target/")
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")


def cells(line):
    """The cells of a Markdown table row; a `|` inside backticks is text."""
    out, cell, ticks = [], "", False
    for char in line.strip().strip("|"):
        if char == "`":
            ticks = not ticks
        if char == "|" and not ticks:
            out.append(cell.strip())
            cell = ""
        else:
            cell += char
    out.append(cell.strip())
    return out


def layer_table(text):
    """Rows of the layer table: (line number, layer, module, holds, may import)."""
    rows, inside = [], False
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("## "):
            inside = line.startswith("## Layers")
        elif inside and line.startswith("|") and not line.startswith("|---"):
            row = cells(line)
            if len(row) == 4 and row[0].isdigit():
                name = re.search(r"`([^`]+)`", row[1]).group(1)
                module = "" if name == "lib.rs" else name
                rows.append((number, int(row[0]), module, row[2], row[3]))
    return rows


def allowed_imports(rows):
    """Module -> (the top-level modules it may import, the shared files of its
    own module a submodule may use, or None when the cell names none)."""
    layer_of = {module: layer for _, layer, module, _, _ in rows}
    allowed = {}
    for _, layer, module, _, cell in rows:
        main_part, _, rest = cell.partition(";")
        names = set(re.findall(r"`([^`]+)`", main_part))
        if "below" in main_part:
            names |= {m for m, l in layer_of.items() if l < layer}
        span = re.search(r"layers (\d+)\D+(\d+)", main_part)
        if span:
            low, high = int(span.group(1)), int(span.group(2))
            names |= {m for m, l in layer_of.items() if low <= l <= high}
        never = re.search(r"never (.*)", rest)
        if never:
            names -= set(re.findall(r"`([^`]+)`", never.group(1)))
        shared = None
        uses = re.search(r"uses (.*?), not another", rest)
        if uses:
            # `commands/mod.rs`, `args.rs`, `keep/`: the module each file or folder is
            shared = {n.rstrip("/").split("/")[-1].removesuffix(".rs") for n in re.findall(r"`([^`]+)`", uses.group(1))}
        allowed[module] = (names - {module}, shared)
    return allowed


def test_only(known):
    """The modules declared under `#[cfg(test)]`, and everything inside them."""
    roots = set()
    for module, path in known.items():
        for name in TEST_MOD.findall(open(path, encoding="utf-8").read()):
            roots.add(f"{module}::{name}" if module else name)
    return {m for m in known if any(m == r or m.startswith(r + "::") for r in roots)}


def top_level_imports(module, path, known):
    """The top-level modules (and extern parser crates) a file's code names."""
    code = code_of(path)
    found = set()
    for text in path_texts(code):
        target = resolve(module, text, known)
        if target:
            found.add(target.split("::")[0])
    for name in EXTERN_MODULES:
        if re.search(rf"(?<![\w:]){name}::", code):
            found.add(name)
    if module == "":
        tops = {m for m in known if m and "::" not in m}
        found |= {name for name in re.findall(r"\buse\s+(\w+)::", code) if name in tops}
    return found


def imports_within(module, path, known, top):
    """The second-level modules of `top` that a file inside `top` names."""
    code = code_of(path)
    found = set()
    for text in path_texts(code):
        target = resolve(module, text, known)
        if target and target.startswith(top + "::"):
            found.add(target.split("::")[1])
    return found


def repository_paths():
    """Every file and folder of the repository (build output left out), relative, with `/`."""
    paths = set()
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("target", "node_modules")]
        rel = os.path.relpath(folder, ROOT).replace(os.sep, "/")
        if rel != ".":
            paths.add(rel + "/")
        paths |= {name if rel == "." else f"{rel}/{name}" for name in files}
    return paths


def path_exists(name, paths, within=""):
    """Whether `name` (a file, or a folder ending in `/`) is a path of the
    repository under `within`, whole or as its tail."""
    return any(p.startswith(within) and (p == name or p.endswith("/" + name)) for p in paths)


def check_architecture(src, known):
    """ARCHITECTURE.md against the app's code: the problems found, as lines."""
    text = open(ARCHITECTURE, encoding="utf-8").read()
    rows = layer_table(text)
    problems = []
    tops = {m for m in known if m and "::" not in m}
    named = {module for _, _, module, _, _ in rows}
    skip = test_only(known)
    for top in sorted(tops - named - skip):
        problems.append(f"module `{top}` has no row in ARCHITECTURE.md's layer table")
    layer_of = {module: layer for _, layer, module, _, _ in rows}
    for number, layer, module, holds, cell in rows:
        if module and module not in tops and module not in EXTERN_MODULES:
            problems.append(f"ARCHITECTURE.md:{number}: the row of `{module}` names no module of src/")
        for name in re.findall(r"`([^`]+)`", cell.partition(";")[0]):
            if name not in named:
                problems.append(f"ARCHITECTURE.md:{number}: `{module}` may import `{name}`, which is no row of the table")
            elif layer_of[name] > layer:
                problems.append(f"ARCHITECTURE.md:{number}: `{module}` (layer {layer}) may import `{name}`, a layer above")
        for which, cell_text in (("holds", holds), ("may import", cell)):
            if len(cell_text) > MAX_CELL:
                problems.append(f"ARCHITECTURE.md:{number}: `{module or 'lib.rs'}`'s {which} cell has {len(cell_text)} characters (at most {MAX_CELL})")
    allowed = allowed_imports(rows)
    for module, path in sorted(known.items()):
        if module in skip or path.endswith("main.rs"):
            continue
        top = module.split("::")[0]
        if top not in allowed:
            continue
        may, shared = allowed[top]
        rel = os.path.relpath(path, ROOT)
        for target in sorted(top_level_imports(module, path, known) - may - {top}):
            problems.append(f"{rel}: imports `{target}`, which ARCHITECTURE.md's row of `{top or 'lib.rs'}` does not allow")
        if shared is not None and module.count("::") >= 1:
            own = module.split("::")[1]
            if own not in shared:
                for target in sorted(imports_within(module, path, known, top)):
                    if target not in shared and target != own:
                        problems.append(f"{rel}: `{top}::{own}` uses `{top}::{target}`, another command's (ARCHITECTURE.md)")
    paths = repository_paths()
    row_at = {number: module for number, _, module, _, _ in rows}
    for number, line in enumerate(text.split("\n"), 1):
        for name in re.findall(r"`([^`\s]+)`", line):
            if not PATH_LIKE.match(name) or not name.endswith(PATH_ENDINGS) or NOT_A_PATH.search(name):
                continue
            module = row_at.get(number)
            folder = f"src/{module}/" if module and f"src/{module}/" in paths and "/" not in name.rstrip("/") else ""
            if not path_exists(name, paths, folder):
                where = f" in {folder}" if folder else ""
                problems.append(f"ARCHITECTURE.md:{number}: `{name}` does not exist{where}")
    return problems


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
        for path in source_files(src):
            files += 1
            lines = sum(1 for _ in open(path, encoding="utf-8"))
            if lines > MAX_LINES:
                problems += 1
                print(f"check-structure: {os.path.relpath(path, ROOT)} has {lines} lines (at most {MAX_LINES})")
    app = os.path.join(ROOT, "src")
    for line in check_architecture(app, modules(app)):
        problems += 1
        print(f"check-structure: {line}")
    if problems:
        sys.exit(1)
    print(
        f"check-structure: {files} files in {len(crates)} crate(s): no import circle, none over {MAX_LINES} lines; "
        "ARCHITECTURE.md's allowed imports, modules and paths agree with src/"
    )


if __name__ == "__main__":
    main()
