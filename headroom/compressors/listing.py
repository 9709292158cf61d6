"""ListingCompressor: two-column, whitespace-aligned listings.

``pip list``, ``du -ak``, ``key value`` tables, ``wc -l`` and the like: one row per item,
a name column and a value column (delimited CSV belongs to the table compressor). Every
row is its own item, so there are no templates to fold; what a reader asks of such a
listing is a lookup (a named row) or an extreme (the largest size). So the kept rows are:
the header (and its ruler), the first and last rows, rows whose name the question names,
and the rows holding the largest values of a numeric column — per path depth when the
names are paths, so "the largest top-level directory" stays in view beside the largest
file — and the smallest when the question asks for them. The rest is counted ("… 57 rows omitted"); the original goes to CCR.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..query.names import named_by_parts
from ..query.said_numbers import rows_holding, said_numbers
from .base import Compressed, CompressInput
from .hexdump import compress_hex_dump, looks_like_dump
from .tables.quantities import quantity
from .tables.repeats import empty_content_rows, repeated_key_rows
from .tables.select import asked_directions, rare_value_rows
from .text_records import record_mates
from .text_tree import compress_text_tree, is_text_tree

_RULER = re.compile(r"^[-=\s|+]+$")
_WORD = re.compile(r"[A-Za-z0-9][\w.+-]*")
# Largest rows kept per numeric column (and per path depth, for path names).
_TOP = 5
_TOP_PER_DEPTH = 3
_MAX_DEPTH = 3
# A question term found in more rows than this is the listing's common vocabulary, not a
# name ("python" in a pip list of python-* packages).
_NAMED_LIMIT = 6


@dataclass
class Row:
    index: int  # line number in the original
    line: str
    cells: list[str]


def split_cells(line: str) -> list[str]:
    if "\t" in line:
        return [c.strip() for c in line.split("\t") if c.strip()]
    return line.split()


def _numeric_columns(rows: list[Row]) -> list[int]:
    width = min(len(r.cells) for r in rows)
    return [k for k in range(width) if sum(1 for r in rows if quantity(r.cells[k]) is not None) >= 0.9 * len(rows)]


# A version ("2.5.7", "v1.18.3-rc1"): its numbers in order compare as the versions do.
_VERSION = re.compile(r"v?(\d{1,9}(?:\.\d{1,9})+)(?:[-+~][\w.+~-]*)?")  # (bounded: int() of any part)
_VERSION_ENDS = 3  # rows kept at each end of a column of versions


def _version_ends(rows: list[Row], numeric: list[int]) -> set[int]:
    """The lowest and the highest versions of each column of versions ("is any dependency
    still pre-1.0?", "which has the highest major version?"): a few rows each way."""
    keep: set[int] = set()
    width = min(len(r.cells) for r in rows)
    for col in (k for k in range(width) if k not in numeric):
        sample = rows[:: max(1, len(rows) // 20)]
        if sum(1 for r in sample if _VERSION.fullmatch(r.cells[col])) < 0.8 * len(sample):
            continue  # names, paths: told apart on a sample
        keys = [(m := _VERSION.fullmatch(r.cells[col])) and tuple(map(int, m.group(1).split("."))) for r in rows]
        valued = sorted((v, k) for k, v in enumerate(keys) if v)
        if len(valued) < 0.9 * len(rows):
            continue
        keep.update(k for _, k in valued[:_VERSION_ENDS])
        keep.update(k for _, k in valued[-_VERSION_ENDS:])
    return keep


def _named_rows(rows: list[Row], query: str, anchors) -> set[int]:
    """Rows whose name cell the question names (a whole word or a path's last part), or
    that hold a selective anchor of the question."""
    words = {w.lower() for w in _WORD.findall(query or "")}
    # A cell that is the question's word, and an anchor found anywhere in a line, are
    # counted apart: "66" is one row's count, and inside many rows' addresses.
    hits: dict[tuple[str, str], list[int]] = {}
    for k, r in enumerate(rows):
        for cell in r.cells:
            low = cell.lower()
            for term in {low, low.rsplit("/", 1)[-1]} & words:
                hits.setdefault(("cell", term), []).append(k)
        for term in anchors.matching(r.line) if anchors else ():
            hits.setdefault(("anchor", term), []).append(k)
    out = {k for idx in hits.values() if len(idx) <= _NAMED_LIMIT for k in idx}
    if not out and query and rows:
        # Names the question spells out word by word (/proc/vmstat's
        # nr_dirty_background_threshold for "the dirty background threshold"), in the first
        # column that has such names: ``git config --show-origin --list`` opens each row
        # with the file it came from, and its keys (remote.staging.pushurl) come second.
        for col in range(min(len(r.cells) for r in rows)):
            out = set(named_by_parts([r.cells[col] for r in rows], query))
            if out:
                break
    return out


def _largest(rows: list[Row], col: int, name_col: int | None) -> set[int]:
    """The rows with the largest values; for a tree of paths (``du -a``), also the
    largest per depth and the largest leaves (files: paths no other path lies under),
    since directory totals always outrank the files inside them."""
    order = sorted(range(len(rows)), key=lambda k: (-(quantity(rows[k].cells[col]) or 0.0), k))
    keep = set(order[:_TOP])
    if name_col is None or sum(1 for r in rows if "/" in r.cells[name_col]) < 0.5 * len(rows):
        return keep
    paths = [r.cells[name_col].rstrip("/") for r in rows]
    parents = {p.rsplit("/", 1)[0] for p in paths if "/" in p}
    keep.update([k for k in order if paths[k] not in parents][:_TOP])
    by_depth: dict[int, int] = {}
    for k in order:
        depth = paths[k].strip("/").count("/")
        if depth <= _MAX_DEPTH and by_depth.get(depth, 0) < _TOP_PER_DEPTH:
            by_depth[depth] = by_depth.get(depth, 0) + 1
            keep.add(k)
    return keep


def _smallest(rows: list[Row], col: int) -> set[int]:
    """The rows with the smallest values of a column (rows without one left out)."""
    valued = [(v, k) for k in range(len(rows)) if (v := quantity(rows[k].cells[col])) is not None]
    return {k for _, k in sorted(valued)[:_TOP]}


def _stanza_mates(rows: list[Row], lines: list[str], kept: set[int]) -> set[int]:
    """The rows of the blank-line separated records (``git worktree list --porcelain``: a
    worktree, its HEAD, its branch) that hold the ``kept`` rows: a named worktree brings its
    branch, a rare ``detached`` line its worktree. None when the text is not made of such
    records."""
    if not kept:
        return set()
    at_line = {r.index: k for k, r in enumerate(rows)}
    mates = record_mates(lines, {rows[k].index for k in kept})
    return {at_line[i] for i in mates if i in at_line}


class ListingCompressor:
    name = "listing"

    def compress(self, inp: CompressInput) -> Compressed | None:
        lines = inp.text.splitlines()
        nonblank = [ln for ln in lines[:400] if ln.strip()]
        if looks_like_dump(nonblank):
            return compress_hex_dump(inp)  # hexdump -C, xxd, od: see hexdump/
        if is_text_tree(nonblank):
            return compress_text_tree(inp)  # box-drawn trees (npm ls, tree), see text_tree.py
        head_end = 0
        for k, ln in enumerate(lines[:3]):
            if ln.strip() and _RULER.match(ln):
                head_end = k + 1  # a header row and its ruler
        rows = [Row(k, ln, split_cells(ln)) for k, ln in enumerate(lines) if k >= head_end and ln.strip()]
        if len(rows) < 8:
            return None
        numeric = _numeric_columns(rows[1:])
        if not head_end and any(quantity(rows[0].cells[c]) is None for c in numeric):
            head_end = rows[0].index + 1  # an unruled header: "Size  Path" above numbers
            rows = rows[1:]
        names = [k for k in range(min(len(r.cells) for r in rows)) if k not in numeric]
        name_col = names[0] if names else None
        keep = {0, len(rows) - 1} | _named_rows(rows, inp.query, inp.anchors)
        # Rare values of a column of few values (a status code: one conflicted path among a
        # hundred modified ones) stay, as in tables.
        width = min(len(r.cells) for r in rows)
        texts = [tuple(r.cells[c] for r in rows) for c in range(width) if c not in numeric]
        keep.update(rare_value_rows(texts, len(rows)))
        # Two rows of one checksum where every other is unique, and the digest of an empty file.
        keep.update(repeated_key_rows(texts, len(rows)))
        keep.update(empty_content_rows(texts))
        # The smallest values too when the question asks for them ("which module is the
        # shortest?"): a few rows a numeric column.
        smallest = bool(inp.query) and asked_directions(inp.query.lower())[1]
        keep |= _version_ends(rows, numeric)
        said = said_numbers(inp.query.lower()) if inp.query else []
        for col in numeric:
            keep |= _largest(rows, col, name_col)
            if smallest:
                keep |= _smallest(rows, col)
            if said:  # "the client that made just a single request": a count of 1, if rare
                keep.update(rows_holding([quantity(r.cells[col]) for r in rows], said, max(4, len(rows) // 50)))
        keep |= _stanza_mates(rows, lines, keep - {0, len(rows) - 1})
        if len(keep) >= 0.8 * len(rows):
            return None
        out = [ln for ln in lines[:head_end] if ln.strip()]
        out.insert(0, f"[listing: {len(rows)} rows; kept first/last"
                      + (", largest values" if numeric else "") + ", rows the question names]")
        prev = -1
        for k in sorted(keep):
            if k > prev + 1:
                gap = k - prev - 1
                out.append(f"… {gap} row{'s' if gap != 1 else ''} omitted")
            out.append(rows[k].line)
            prev = k
        return Compressed(
            text="\n".join(out),
            items_before=len(rows),
            items_after=len(keep),
            strategy="listing_rows",
            lossy=True,
            summary=f"{len(keep)} of {len(rows)} rows kept",
        )
