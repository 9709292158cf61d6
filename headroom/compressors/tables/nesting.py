"""Rows nested by indentation inside one column: the block a named row sits in.

Some tables print a tree down one of their columns by indenting it: pickletools indents its
opcode names by the depth of the MARK they sit under, ``ps --forest`` its commands by the
process tree. A row the question names (an order id inside a pickled record) then sits
among siblings that hold the rest of its record (the total four rows below), and rows
farther away belong to other records. So a named row brings the rows around it at its
depth or deeper, up to the shallower row that opens them, when that block is short.

The column is found by its starts alone: the start of one of the first fields moves right
and left in steps of one indent (not only one way, as right-aligned numbers do).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise

from ...query.intent import content_lemmas
from ...query.terms import rows_naming

_FIELDS = 4  # leading fields whose start may be the indented one
_LEAD = re.compile(r"\s*(\S+)(?:\s+(\S+))?(?:\s+(\S+))?(?:\s+(\S+))?")  # the first _FIELDS fields
_SAMPLE = 200  # rows read to find the column (~0.5 ms a table here)
_MIN_TURNS = 4  # times the start must move right, and left, within the sample
_MAX_DEPTHS = 16
_BLOCK_ROWS = 80  # a block brought whole at most this long (a record holding a list of a dozen lines)
_BLOCKS = 4  # named rows whose blocks are brought at most
_WORD_ROWS = 3  # rows a question word may be found in and still name them
_QUESTION_WORD = re.compile(r"[a-z]{3,}")


def _starts(text: str) -> list[int]:
    """Where the first ``_FIELDS`` fields start; a field after a single blank (a word of a
    phrase, not a column's indent) is given as -1 for the column search. One match a row
    (a loop over ``finditer`` cost 0.2-0.5 ms a table)."""
    m = _LEAD.match(text)
    if m is None:
        return []
    out = []
    for g in range(1, _FIELDS + 1):
        a = m.start(g)
        if a < 0:
            break
        out.append(a if a < 2 or text[a - 2] in " \t" else -1)
    return out


def nesting_field(texts: list[str]) -> int | None:
    """Which leading field (0-3) of the rows is indented by nesting, or None."""
    return _nesting_field([_starts(t) for t in texts[:_SAMPLE]]) if len(texts) >= 2 * _MIN_TURNS else None


def _nesting_field(starts: list[list[int]]) -> int | None:
    """The field whose start steps right and left by multiples of one indent, or None."""
    for j in range(_FIELDS):
        col = [s[j] for s in starts if len(s) > j and s[j] >= 0]
        if len(col) < 0.9 * len(starts):
            continue  # fields after single blanks: words, not an indented column
        distinct = sorted(set(col))
        if not 2 <= len(distinct) <= _MAX_DEPTHS:
            continue
        step = min(b - a for a, b in pairwise(distinct))
        if step < 2 or any((d - distinct[0]) % step for d in distinct):
            continue
        right = sum(1 for a, b in pairwise(col) if b > a)
        left = sum(1 for a, b in pairwise(col) if b < a)
        if right >= _MIN_TURNS and left >= _MIN_TURNS:
            return j
    return None


def worded_rows(texts: list[str], question: str) -> list[int]:
    """Rows holding, as a whole word, a question word (four letters or more) or two adjacent
    ones written as one ("charged back": ``'chargeback'``), where at most ``_WORD_ROWS`` rows
    hold it: in a nested dump the asked record's key or value is written once, and later
    records point back at it."""
    words = _QUESTION_WORD.findall(question.lower())
    said = content_lemmas(question)
    wanted = {w for w in said if len(w) >= 4}
    wanted |= {f + b for a, b in pairwise(words) if {a, b} <= said for f in content_lemmas(a)}
    if not wanted:
        return []
    return sorted(rows_naming(texts, wanted, _WORD_ROWS, edge="a-z"))


def nesting_blocks(texts: list[str], named: Iterable[int], field: int | None = None) -> list[int]:
    """The rows of the blocks the named rows sit in (see the module docstring); none when no
    column is indented by nesting (``field``: nesting_field's answer, when already asked), or
    a block is longer than ``_BLOCK_ROWS``."""
    rows = sorted(set(named))
    if not rows or len(rows) > _BLOCKS:
        return []
    field = nesting_field(texts) if field is None else field
    if field is None:
        return []

    depths: dict[int, int] = {}  # rows read once, however many named rows' blocks meet them

    def depth(i: int) -> int:
        if i not in depths:
            s = _starts(texts[i])
            depths[i] = s[field] if len(s) > field else -1
        return depths[i]

    out: list[int] = []
    for r in rows:
        d = depth(r)
        if d < 0:
            continue
        top = r
        while top > 0 and r - top < _BLOCK_ROWS and depth(top - 1) >= d:
            top -= 1
        end = r
        while end + 1 < len(texts) and end - top < _BLOCK_ROWS and depth(end + 1) >= d:
            end += 1
        if end - top >= _BLOCK_ROWS:
            continue  # no short record around it: the tree's top levels, or no tree
        out.extend(range(max(0, top - 1), end + 1))  # with the shallower row that opens it
    return sorted(set(out) - set(rows))
