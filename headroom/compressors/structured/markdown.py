"""Markdown as blocks kept or elided whole.

A Markdown page is cut into blocks: front matter, fenced code blocks (fence to matching
fence), tables, admonitions (``!!! note`` with its indented body, ``:::`` to ``:::``,
``> [!NOTE]`` with its quoted lines), headings, and paragraphs / list runs. A block is
kept byte for byte or elided whole, so fences stay balanced and a kept code block is
identical to the original. Headings stay (the page's outline, cheap); the blocks the
question points at stay (its words in the block or in the block's section heading, its
anchors); the rest fills a budget by score. Each elided run of blocks becomes one HTML
comment line, Markdown's own comment syntax.

Paragraphs are not rewritten here: selecting whole blocks is enough to save and keeps
every line an original line.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate

from .formats import Format
from .select import question_terms

MARKDOWN = Format("markdown", "<!--", "-->", "flat", lambda _t: True)
_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})")
_HEADING = re.compile(r"^#{1,6}\s+\S|^\S.*\n(?:=+|-+)\s*$")
_ATX = re.compile(r"^#{1,6}\s+\S")
_TABLE = re.compile(r"^\s*\|")
_ADMONITION = re.compile(r"^(\s*)(?:!!!|\?\?\?\+?)\s")
_COLONS = re.compile(r"^\s*(:{3,})")
_CALLOUT = re.compile(r"^\s*>\s*\[!")
_SETEXT_UNDERLINE = re.compile(r"^\s*(?:=+|-+)\s*$")


@dataclass
class Block:
    start: int
    end: int  # exclusive
    kind: str  # front | code | table | admonition | heading | para
    section: int  # index of the heading block this block is under, -1 before any


def blocks(lines: list[str]) -> list[Block]:
    out: list[Block] = []
    n = len(lines)
    i = 0
    section = -1
    if n and lines[0].strip() == "---":
        j = 1
        while j < n and lines[j].strip() not in ("---", "..."):
            j += 1
        if j < n:
            out.append(Block(0, j + 1, "front", -1))
            i = j + 1
    while i < n:
        ln = lines[i]
        s = ln.strip()
        if not s:
            i += 1
            continue
        j = i + 1
        kind = "para"
        if m := _FENCE.match(ln):
            mark = m.group(2)
            while j < n and not (lines[j].lstrip().startswith(mark[0] * len(mark))
                                 and lines[j].strip().strip(mark[0]) == ""):
                j += 1
            j = min(j + 1, n)
            kind = "code"
        elif _ATX.match(ln):
            kind = "heading"
        elif _TABLE.match(ln):
            while j < n and _TABLE.match(lines[j]):
                j += 1
            kind = "table"
        elif m := _ADMONITION.match(ln):
            base = len(m.group(1))
            while j < n and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > base):
                j += 1
            while j > i + 1 and not lines[j - 1].strip():
                j -= 1
            kind = "admonition"
        elif m := _COLONS.match(ln):
            mark = m.group(1)
            while j < n and lines[j].strip() != mark:
                j += 1
            j = min(j + 1, n)
            kind = "admonition"
        elif _CALLOUT.match(ln):
            while j < n and lines[j].lstrip().startswith(">"):
                j += 1
            kind = "admonition"
        else:
            # A paragraph or list run: up to a blank line or the start of another block.
            while j < n and lines[j].strip() and not _FENCE.match(lines[j]) and not _ATX.match(lines[j]) \
                    and not _TABLE.match(lines[j]) and not _ADMONITION.match(lines[j]):
                if j == i + 1 and _SETEXT_UNDERLINE.match(lines[j]):
                    kind = "heading"  # setext heading
                    j += 1
                    break
                j += 1
        if kind == "heading":
            section = len(out)
        out.append(Block(i, j, kind, section))
        i = j
    return out


def fences_balanced(text: str) -> bool:
    """Every opened fence is closed (by a fence of the same character, at least as long)."""
    open_mark = ""
    for ln in text.split("\n"):
        m = _FENCE.match(ln)
        if not m:
            continue
        mark = m.group(2)
        if not open_mark:
            open_mark = mark
        elif mark[0] == open_mark[0] and len(mark) >= len(open_mark) and ln.strip().strip(mark[0]) == "":
            open_mark = ""
    return not open_mark


def select_blocks(lines: list[str], bl: list[Block], query: str, anchors, budget_chars: int) -> list[bool]:
    """Lines to keep: headings, blocks the question points at, then the best by score."""
    terms = question_terms(query) if query else set()
    offsets = list(accumulate(map((1).__add__, map(len, lines)), initial=0))  # a block's size: two lookups
    size = [offsets[b.end] - offsets[b.start] for b in bl]
    # Which question terms each block holds: a substring test per term (a question has a
    # handful), not a word split of every block. Stems match their plurals this way too.
    lows = ["\n".join(lines[b.start:b.end]).lower() for b in bl] if terms else [""] * len(bl)
    words = [{t for t in terms if t in low} for low in lows]
    keep_block = [False] * len(bl)
    used = 0
    for k, b in enumerate(bl):
        if b.kind in ("heading", "front"):
            keep_block[k] = True
            used += size[k]
    # The sections whose heading the question names best: their first code block (the
    # command a reader asks for) and their opening stay, whatever the budget.
    heads = {k: len(words[k] & terms) for k, b in enumerate(bl) if b.kind == "heading"}
    top = max(heads.values(), default=0)
    asked = {k for k, h in heads.items() if top and h == top} if top else set()
    first_code = {}
    for k, b in enumerate(bl):
        if b.section in asked and b.kind == "code":
            first_code.setdefault(b.section, k)
    forced = set(first_code.values())
    scores = []
    for k, b in enumerate(bl):
        if keep_block[k]:
            continue
        hits = len(words[k] & terms)
        head = heads.get(b.section, 0)
        s = 2.0 * hits + 1.5 * head + (4.0 if b.section in asked else 0.0) + (10.0 if k in forced else 0.0)
        if k > 0 and bl[k - 1].kind == "heading":
            s += 0.5  # a section's opening
        if b.kind in ("code", "admonition", "table"):
            s += 0.3
        if anchors and anchors.matches("\n".join(lines[b.start:b.end])):
            s += 10
        s -= size[k] / 4000  # same information, fewer characters
        scores.append((s, k))
    for s, k in sorted(scores, key=lambda t: (-t[0], t[1])):
        if used + size[k] > budget_chars and s < 10:
            continue
        keep_block[k] = True
        used += size[k]
    keep = [True] * len(lines)  # blank lines between blocks follow their neighbours (below)
    for k, b in enumerate(bl):
        if not keep_block[k]:
            for i in range(b.start, b.end):
                keep[i] = False
    # Blank lines inside a dropped stretch go with it: a blank line stays when the nearest
    # non-blank line before or after it stays (or there is none). Only non-blank lines'
    # marks are read, and only blank lines' marks change: found by bisection.
    n = len(lines)
    filled = [i for i, ln in enumerate(lines) if ln.strip()]
    if len(filled) < n:
        for i in range(1, n - 1):
            if not lines[i].strip():
                p = bisect_left(filled, i)
                prev = keep[filled[p - 1]] if p > 0 else True
                nxt = keep[filled[p]] if p < len(filled) else True
                keep[i] = prev or nxt
    return keep
