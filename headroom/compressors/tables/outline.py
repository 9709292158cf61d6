"""Records nested in an outline: an indented dump in which one node has many children,
each a small subtree of the same sort (``javap -v``'s methods under the class body,
``openssl asn1parse``'s revoked certificates under the CRL's list, a device registry's
entries).

Read as an aligned table, such a dump is thousands of rows of a few columns whose first
and last rows say nothing; read line by line, a record's fields are cut apart from the
name that says whose they are. Read as records, it is a table turned on its side, as
stanzas are (:mod:`.stanzas`): each child subtree is a row, each of its lines a field, so
the table row selection applies (:func:`.select.select_rows`: the record the question
names, the extremes of a field it names — ``stack=`` of a method —, rare values — the one
certificate on hold, the one disabled device —, a field only a few records have — the one
method with an exception table —, first and last). A kept record is copied byte for byte
(its first lines when it is long), with its head line, which names it.

Recognised by shape only, never by what the lines say:

- **Depth**: a line's leading blanks, or, when every line carries a small whole number
  ``key=N`` that starts at its least value, climbs one step at a time and falls back
  (``d=3``), that number: a dump whose offset column is right-aligned indents nothing.
- **Records**: the node with the most children that have children of their own, at
  least ``MIN_RECORDS`` of them, two in three of its children, covering half the lines.
- **Fields**: a line split at its runs of two or more blanks is a kind (the piece before
  the last, digits masked) and a value (the last piece); else ``a=1, b=2`` pairs; else
  ``key: value``; else the whole line. The same kind said again in one record is a
  field of its own up to ``_REPEATS`` times. A line with lines below it in the record
  also gives their number (``Code size``: how long a method is, how many ports a
  device lists).
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from dataclasses import dataclass
from itertools import compress, pairwise, repeat

from .aligned import column_header

MIN_RECORDS = 16  # fewer records are a few blocks of text, each a large share of it
_RECORD_SHARE = 2 / 3  # of the parent's children that must have children of their own
_COVER = 0.5  # of the nonblank lines the records must hold
_MAX_FIELDS = 64
_REPEATS = 3  # the same kind repeated in one record: fields "kind", "kind (2)", "kind (3)"
_MAX_DEPTH_STEP = 1
_DEPTH_SHARE = 0.95  # of the nonblank lines that must carry the depth number
# A small whole number after a short name and "=", not inside a longer name or number.
_DEPTH_FIELD = re.compile(r"(?<![\w=])([A-Za-z]\w{0,7})=(\d{1,2})(?![\d.])")
_GAP = re.compile(r"\s{2,}")
_ROW_CELLS = 3  # cells, split at runs of blanks, that make a head line a table's row
_PAIR = re.compile(r"([A-Za-z_][\w.-]*)=([^,\s]+)")
_KEY_VALUE = re.compile(r"([^:]{1,40}):\s+(\S.*)")
_DIGITS = re.compile(r"\d+")
_WORDY = re.compile(r"[A-Za-z]{2}")
# A time written as its digits and a zone letter (ASN.1's UTCTime and GeneralizedTime,
# LDAP's timestamps): the digits sort as the times do.
_STAMP = re.compile(r"(\d{12}|\d{14})(?:\.\d+)?Z")


@dataclass
class Outline:
    depths: list[int]  # per line; -1 for a blank line
    parent: dict[int, int]  # each nonblank line's parent line (-1: none)
    below: dict[int, int]  # each line with lines below it: how many (nonblank)
    heads: list[int]  # the records' head lines: the children of one line
    end: int  # the line after the last record


@dataclass
class Records:
    names: list[str]  # the fields, in the order they first appear
    rows: list[list[str]]  # each record's values by ``names`` ("" where a record lacks one)
    spans: list[tuple[int, int]]  # each record's lines: its head line, and the next record's
    shown: list[tuple[list[int], bool]]  # each record's lines when kept, and whether some are left out


def _depth_key(lines: list[str], nonblank: list[int]) -> str | None:
    """The name of a ``key=N`` number every line carries that behaves as a depth: least on
    the first line, one step up at a time, some steps down."""
    first = {k: int(v) for k, v in _DEPTH_FIELD.findall(lines[nonblank[0]])}
    for key, start in first.items():
        pattern = re.compile(r"(?<![\w=])" + re.escape(key) + r"=(\d{1,2})(?![\d.])")
        prev, missing, top, fell = start, 0, start, False
        allowed = (1 - _DEPTH_SHARE) * len(nonblank)
        for i in nonblank[1:]:
            m = pattern.search(lines[i])
            if m is None:
                missing += 1
                if missing > allowed:
                    break
                continue
            v = int(m.group(1))
            if v < start or v > prev + _MAX_DEPTH_STEP:
                break
            fell = fell or v < prev
            prev, top = v, max(top, v)
        else:
            if fell and top >= start + 2:
                return key
    return None


def _depths(lines: list[str]) -> tuple[list[int], list[int]]:
    """Each line's depth (-1: blank) and the nonblank lines. Leading blanks are measured in
    C-level passes (map over the lines); a key=N depth replaces them when there is one."""
    stripped = list(map(str.lstrip, lines))
    nonblank = list(compress(range(len(lines)), stripped))  # the lines with text, picked in C
    if len(nonblank) < 2 * MIN_RECORDS:
        return [], nonblank
    key = _depth_key(lines, nonblank)
    depths = [-1] * len(lines)
    if key is not None:
        pattern = re.compile(r"(?<![\w=])" + re.escape(key) + r"=(\d{1,2})(?![\d.])")
        last = 0
        for i in nonblank:
            m = pattern.search(lines[i])
            last = int(m.group(1)) if m else last + 1  # a line without it continues the one above
            depths[i] = last
        return depths, nonblank
    leads = list(map(operator.sub, map(len, lines), map(len, stripped)))
    # A tab in the leading blanks counts to the next multiple of 8 (both checks C-level maps,
    # after one search of the joined lines: most texts hold no tab at all, and a call per
    # line cost a man page a millisecond).
    tabbed = "\t" in "".join(lines) and (any(map(str.startswith, lines, repeat("\t")))
                                         or any(map(operator.contains, lines, repeat(" \t"))))
    if not tabbed:
        return [lead if s else -1 for s, lead in zip(stripped, leads)], nonblank
    for i in nonblank:
        depths[i] = len(lines[i][:leads[i]].expandtabs(8))
    return depths, nonblank


# A record's depth written at the start of its head, as a small number in brackets
# (" <2><199f>: Abbrev Number: 1 (DW_TAG_formal_parameter)" in a DWARF entry tree): the
# records are flat in the indentation, nested by that number.
_HEAD_DEPTH = re.compile(r"\s*[<\[(](\d{1,2})[>\])]")
_HEAD_DEPTH_SHARE = 0.9  # of the heads that must carry it (a unit's own head line may not)


def head_depths(lines: list[str], heads: list[int]) -> list[int] | None:
    """Each record's depth (-1 where its head carries none) when the heads open on a bracketed
    small number that behaves as a depth: least on the first that has one, one step up at a
    time, falling back; else None."""
    found = [m.group(1) if (m := _HEAD_DEPTH.match(lines[h])) else None for h in heads]
    depths = [int(v) if v is not None else -1 for v in found]
    marked = [d for d in depths if d >= 0]
    if len(marked) < _HEAD_DEPTH_SHARE * len(heads):
        return None
    steps = list(pairwise(marked))
    if min(marked) < marked[0] or any(b > a + _MAX_DEPTH_STEP for a, b in steps) \
            or not any(b < a for a, b in steps):
        return None
    return depths


def subtree(depths: list[int], i: int) -> range:
    """The records nested under record ``i``: those after it that are deeper, up to the
    first one that is not (or that carries no depth)."""
    d, j = depths[i], i + 1
    if d < 0:
        return range(j, j)
    while j < len(depths) and depths[j] > d:
        j += 1
    return range(i + 1, j)


def _tree(depths: list[int], nonblank: list[int]) -> tuple[dict[int, int], dict[int, int]]:
    """Each nonblank line's parent (the nearest line above it that is less deep; -1: none),
    and for each line that has lines below it, how many."""
    parent: dict[int, int] = {}
    below: dict[int, int] = {}
    stack: list[tuple[int, int]] = []  # (line, its position among the nonblank lines)
    for pos, i in enumerate(nonblank):
        d = depths[i]
        while stack and depths[stack[-1][0]] >= d:
            j, p = stack.pop()
            if pos - p > 1:
                below[j] = pos - p - 1
        parent[i] = stack[-1][0] if stack else -1
        stack.append((i, pos))
    n = len(nonblank)
    for j, p in stack:
        if n - p > 1:
            below[j] = n - p - 1
    return parent, below


def infer(lines: list[str]) -> Outline | None:
    """The outline of ``lines`` when one node's children are records (see the module
    docstring), else None."""
    depths, nonblank = _depths(lines)
    if not depths:
        return None
    # At least as many lines with deeper lines right below them as records are needed: an
    # aligned table or a flat listing has none (one C-level pass).
    steps = [depths[i] for i in nonblank]
    if sum(map(operator.lt, steps, steps[1:])) < MIN_RECORDS:
        return None
    parent, below = _tree(depths, nonblank)
    # Counted in C; ``parent`` is filed in line order, so ``records`` meets each parent
    # where a line-by-line count would first (the tie between equal counts below).
    kids = Counter(parent.values())
    records = Counter(map(parent.__getitem__, filter(below.__contains__, nonblank)))  # children that have children
    best, best_count = None, 0
    for p, count in records.items():
        if count >= MIN_RECORDS and count >= _RECORD_SHARE * kids[p] and count > best_count:
            best, best_count = p, count
    if best is None:
        return None
    heads = [i for i in nonblank if parent[i] == best]
    covered = len(heads) + sum(below.get(h, 0) for h in heads)
    if covered < _COVER * len(nonblank):
        return None
    last = heads[-1]
    end = nonblank[nonblank.index(last) + below.get(last, 0)] + 1
    if _prose(lines, heads[0], end):
        return None  # a manual's options: paragraphs under headings, read as text
    first = next(h for h in heads if h in below)
    if any(column_header(lines[i]) for i in nonblank[max(0, nonblank.index(first) - 2):nonblank.index(first)]):
        return None  # rows of a table under its header, each with a line of detail (ss -e)
    return Outline(depths, parent, below, heads, end)


_PROSE_WORDS = 8  # words of letters on a line of prose
_PROSE_SHARE = 0.3  # of the records' lines: more, and the records are paragraphs
_PROSE_SAMPLE = 400
_LETTER_WORD = re.compile(r"(?<!\S)[A-Za-z][a-z]+[,.;:]?(?!\S)")


def _prose(lines: list[str], a: int, b: int) -> bool:
    """Whether the records' lines read as sentences: many lines of many plain words."""
    step = max(1, (b - a) // _PROSE_SAMPLE)
    sample = [ln for ln in lines[a:b:step] if ln.strip()]
    wordy = sum(1 for ln in sample if len(_LETTER_WORD.findall(ln)) >= _PROSE_WORDS)
    return wordy > _PROSE_SHARE * len(sample)


def _split(text: str) -> list[tuple[str, str]]:
    """A line's fields: (kind, value) pairs (see the module docstring)."""
    s = text.strip()
    parts = _GAP.split(s)
    if len(parts) >= 2:
        # The words before the value, less numbers and "key=N" pairs (an offset, a length).
        kind = " ".join(w for w in parts[-2].split() if _WORDY.search(w) and "=" not in w)
        return [(kind or _DIGITS.sub("N", parts[-2])[:40], parts[-1])]
    pairs = _PAIR.findall(s)
    if len(pairs) >= 2:
        return [(k, v) for k, v in pairs]
    m = _KEY_VALUE.fullmatch(s)
    if m is not None:
        return [(_DIGITS.sub("N", m.group(1).strip()), m.group(2))]
    return [(_DIGITS.sub("N", s.rstrip(":"))[:40], s)]


_NAME = re.compile(r"[A-Za-z][\w%/-]*")


def _named_values(names_line: str, values_line: str) -> list[tuple[str, str]] | None:
    """A line of names over a line of as many values (``ip -s link``'s ``TX:  bytes
    packets ...`` over its counts): one field per name, called by the label before the names
    when there is one ("TX bytes")."""
    words = names_line.split()
    cut = next((k + 1 for k, w in enumerate(words[:3]) if w.endswith(":")), 0)
    label, names = " ".join(words[:cut]).rstrip(":"), words[cut:]
    values = values_line.split()
    if len(names) < 2 or len(names) != len(values) or not all(map(_NAME.fullmatch, names)):
        return None
    if not any(v.replace(".", "", 1).isdigit() for v in values):
        return None
    return [(f"{label} {n}" if label else n, v) for n, v in zip(names, values)]


def _cell(value: str) -> str:
    v = value.strip().lstrip(":").strip()
    m = _STAMP.fullmatch(v)
    return m.group(1) if m else v


def parse(lines: list[str], outline: Outline) -> Records:
    """The records of ``outline`` and their fields. A record's fields are the lines it shows
    when kept (:func:`_shown`): what the selection reads is what the reader sees, and a
    long record's deep lines (a method's instructions) cost nothing."""
    depths, parent, below, heads = outline.depths, outline.parent, outline.below, outline.heads
    ends = heads[1:] + [outline.end]
    top = parent[heads[0]]
    index: dict[str, tuple[int, int]] = {}  # field -> (its level, the order it came in)
    index["record"] = (0, 0)
    values: list[dict[str, str]] = []
    shown_all: list[tuple[list[int], bool]] = []
    level: dict[int, int] = {}
    for a, b in zip(heads, ends):
        for i in range(a, b):  # how far below its record's head each line sits
            if depths[i] >= 0:
                p = parent[i]
                level[i] = 0 if p == top else level[p] + 1
        shown, cut = _shown(lines, a, b, level)
        shown_all.append((shown, cut))
        rec: dict[str, str] = {"record": lines[a].strip()}
        cells = _GAP.split(lines[a].strip())
        if len(cells) >= _ROW_CELLS:  # a head that is a table's row (ss -e): its cells are fields too
            for k, cell in enumerate(cells[:_MAX_FIELDS // 4], 1):
                _add(rec, index, f"column {k}", cell, 0)
        seen: dict[tuple[int, str], int] = {}
        told: set[int] = set()  # value lines read with the names above them
        for k, i in enumerate(shown[1:], 1):
            if i in told:
                continue
            fields = None
            if below.get(i) == 1 and k + 1 < len(shown) and parent[shown[k + 1]] == i:
                fields = _named_values(lines[i], lines[shown[k + 1]])
                if fields is not None:
                    told.add(shown[k + 1])
            fields = fields or _split(lines[i])
            for kind, value in fields:
                nth = seen.get((level[i], kind), 0) + 1
                seen[(level[i], kind)] = nth
                if nth > _REPEATS:
                    continue
                name = kind if nth == 1 else f"{kind} ({nth})"
                if name in rec:  # the same kind at another level
                    name = f"{name} [{level[i]}]"
                _add(rec, index, name, _cell(value), level[i])
            if i in below:  # how many lines it heads: a method's code, a device's ports
                _add(rec, index, f"{fields[0][0]} size", str(below[i]), level[i])
        values.append(rec)
    # The shallow fields first: past the cap go the deep ones.
    names = [n for n, _ in sorted(index.items(), key=lambda kv: kv[1])][:_MAX_FIELDS]
    rows = [[rec.get(n, "") for n in names] for rec in values]
    return Records(names, rows, list(zip(heads, ends)), shown_all)


def _add(rec: dict[str, str], index: dict[str, tuple[int, int]], name: str, value: str, level: int) -> None:
    if name in rec:
        return
    rec[name] = value
    index.setdefault(name, (level, len(index)))


_KEPT_LINES = 16  # a kept record longer than this shows its head and its shallowest lines


def _shown(lines: list[str], a: int, b: int, level: dict[int, int]) -> tuple[list[int], bool]:
    """The lines a kept record shows, and whether some are left out: the whole record when
    short, else its head and the lines one and two levels below it, in order."""
    while b > a + 1 and not lines[b - 1].strip():
        b -= 1
    if b - a <= _KEPT_LINES:
        return [i for i in range(a, b) if i in level], False
    shown = [a] + [i for i in range(a + 1, b) if 1 <= level.get(i, -1) <= 2]
    return shown[:_KEPT_LINES], True
