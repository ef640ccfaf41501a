#!/usr/bin/env python3
"""check-links.py: every relative link and #anchor in the project's Markdown resolves.

Checks README.md, CHANGELOG.md and every .md file under docs/, flamegraphs/ and
examples/: inline links and images (`[text](target)`, `![alt](target)`), link
reference definitions (`[id]: target`) and the `href`/`src` of HTML tags. A
target must exist (a file or a directory, relative to the page); an anchor
(`#name`, `page.md#name`) must be a heading of that page, by the slugs a forge
(GitHub) makes: the heading's text lowercased, punctuation other than `-` and
`_` removed, spaces turned into `-`, and `-1`, `-2`, … added to a repeated one;
or an HTML `id`/`name` on the page. Links inside code (fenced blocks, `spans`)
are not links. http(s), mailto and other schemes are skipped.

It also fails when a Markdown page under docs/ is over 30 KB (30,720 bytes):
a page that long is two topics (split it) or a lab notebook (history goes in
git, not in the page).

Prints each broken link as `file:line: link (why)` and each long page as
`file: N bytes`, and exits 1; exits 0 when every link resolves and no page is
too long. Python 3 standard library only.

Usage: scripts/check-links.py [FILE.md...]   (default: the files above; works from
any directory)
"""

import os
import re
import sys
import unicodedata
import urllib.parse

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TOP_FILES = ["README.md", "CHANGELOG.md"]
TREES = ["docs", "flamegraphs", "examples"]
MAX_DOCS_PAGE_BYTES = 30 * 1024
DOCS = os.path.join(ROOT, "docs")

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# `](target "title")`: the end of an inline link or image. The target may hold one
# level of balanced parentheses, or be written in <angle brackets>.
INLINE = re.compile(
    r"\]\(\s*(<[^<>\n]*>|(?:[^()\s]|\([^()\s]*\))+)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^<>]*>|\S+)")
HTML_LINK = re.compile(r"<(?:a|img|source|iframe)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']*)[\"']", re.I)
HTML_ID = re.compile(r"<[a-z][^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.I)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)


def code_spans_blanked(text):
    """The text with every `code span` replaced by spaces (backticks included)."""
    out = []
    i = 0
    while i < len(text):
        if text[i] == "`":
            j = i
            while j < len(text) and text[j] == "`":
                j += 1
            ticks = text[i:j]
            end = text.find(ticks, j)
            # A closing run must be exactly as long as the opening one.
            while end != -1 and end + len(ticks) < len(text) and text[end + len(ticks)] == "`":
                end = text.find(ticks, end + len(ticks) + 1)
            if end == -1:
                out.append(ticks)
                i = j
                continue
            out.append(" " * (end + len(ticks) - i))
            i = end + len(ticks)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def prose_lines(path):
    """(line number, line) of a Markdown file outside fenced code blocks and HTML
    comments, with code spans blanked; and the fenced-block flag for headings."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # Blank HTML comments but keep their newlines, so line numbers stay right.
    text = HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    lines = text.split("\n")
    fence = None
    result = []
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        result.append((number, line))
    return result


def heading_text(raw):
    """The text a forge renders for a heading's Markdown."""
    text = raw.strip()
    # Images keep their alt text, links their text.
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    # Code spans keep their content verbatim; emphasis markers outside them go.
    parts = re.split(r"(`+)(.*?)\1", text)
    out = []
    for k in range(0, len(parts), 3):
        plain = parts[k]
        plain = re.sub(r"(\*+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9]))", "", plain)
        plain = plain.replace("\\", "")
        out.append(plain)
        if k + 2 < len(parts):
            out.append(parts[k + 2])
    return "".join(out).strip()


def slugify(text):
    """GitHub's slug of a heading's text (github-slugger): lowercase, letters,
    numbers, marks, `-` and `_` kept, every other character dropped, spaces to `-`."""
    kept = []
    for c in text.lower():
        if c in "-_ ":
            kept.append(c)
        elif unicodedata.category(c)[0] in "LNM":
            kept.append(c)
    return "".join(kept).replace(" ", "-")


_anchor_cache = {}


def anchors_of(path):
    """Every anchor a forge gives the Markdown file at path."""
    if path in _anchor_cache:
        return _anchor_cache[path]
    seen = {}
    anchors = set()

    def add(text):
        base = slugify(heading_text(text))
        slug = base
        while slug in seen:
            seen[base] += 1
            slug = f"{base}-{seen[base]}"
        seen[slug] = 0
        anchors.add(slug)

    previous = None
    for _, line in prose_lines(path):
        m = ATX.match(line)
        if m and not line.startswith("    "):
            add(m.group(2) or "")
            previous = None
            continue
        s = SETEXT.match(line)
        if s and previous is not None and previous.strip() and not ATX.match(previous):
            # A `---` under a table row or a list item is not a heading underline;
            # a paragraph line directly above one is.
            if not (s.group(1).startswith("-") and (previous.lstrip().startswith(("|", "- ", "* ", "+ ")))):
                add(previous)
                previous = None
                continue
        for m in HTML_ID.finditer(line):
            anchors.add(m.group(1))
        previous = line
    _anchor_cache[path] = anchors
    return anchors


def targets(path):
    """(line number, target) of every link of the Markdown file at path."""
    for number, line in prose_lines(path):
        prose = code_spans_blanked(line)
        for m in INLINE.finditer(prose):
            yield number, m.group(1)
        m = REFDEF.match(prose)
        if m:
            yield number, m.group(1)
        for m in HTML_LINK.finditer(prose):
            yield number, m.group(1)


def check(path):
    """The broken links of one file, as (line, target, why)."""
    broken = []
    here = os.path.dirname(path)
    for number, target in targets(path):
        link = target[1:-1] if target.startswith("<") and target.endswith(">") else target
        if not link or SCHEME.match(link) or link.startswith("//"):
            continue
        file_part, _, anchor = link.partition("#")
        file_part = urllib.parse.unquote(file_part.split("?", 1)[0])
        anchor = urllib.parse.unquote(anchor)
        if file_part:
            if file_part.startswith("/"):
                dest = os.path.normpath(os.path.join(ROOT, file_part.lstrip("/")))
            else:
                dest = os.path.normpath(os.path.join(here, file_part))
            if not os.path.exists(dest):
                broken.append((number, target, "no such file"))
                continue
        else:
            dest = path
        if anchor and os.path.isfile(dest) and dest.lower().endswith((".md", ".markdown")):
            if anchor not in anchors_of(dest):
                broken.append((number, target, f"no heading #{anchor} in {os.path.relpath(dest, ROOT)}"))
    return broken


def default_files():
    files = [os.path.join(ROOT, name) for name in TOP_FILES if os.path.exists(os.path.join(ROOT, name))]
    for tree in TREES:
        for directory, dirs, names in os.walk(os.path.join(ROOT, tree)):
            dirs.sort()
            for name in sorted(names):
                if name.lower().endswith(".md"):
                    files.append(os.path.join(directory, name))
    return files


def main(argv):
    files = [os.path.abspath(a) for a in argv[1:]] or default_files()
    count = 0
    bad = 0
    for path in files:
        for number, target, why in check(path):
            print(f"{os.path.relpath(path, ROOT)}:{number}: {target} ({why})")
            bad += 1
        count += 1
    long_pages = 0
    for path in files:
        size = os.path.getsize(path)
        if path.startswith(DOCS + os.sep) and size > MAX_DOCS_PAGE_BYTES:
            print(f"{os.path.relpath(path, ROOT)}: {size:,} bytes (a docs page has at most {MAX_DOCS_PAGE_BYTES:,})")
            long_pages += 1
    if bad or long_pages:
        print(
            f"check-links: {bad} broken link(s) and {long_pages} page(s) over "
            f"{MAX_DOCS_PAGE_BYTES:,} bytes in {count} file(s)",
            file=sys.stderr,
        )
        return 1
    print(f"check-links: every link of {count} file(s) resolves, no docs page over {MAX_DOCS_PAGE_BYTES:,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
