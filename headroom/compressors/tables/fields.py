"""Rows of fields split by single blanks, the same number on every row, no aligned columns
and often no header: ``ssh-keygen -l`` over a key list (bits, fingerprint, comment, type),
``stat -t`` (sixteen numbers a file), ``nm -S`` (address, size, type, name).

Without a header or a timestamp such text read as a timestamp-less log (a few leading words
on most lines), and the log compressor folded the rows into templates with counts: the
one RSA key among ED25519 ones, the one file with three links, left view. Read as a table
instead, the row selection applies (rows the question names, rare values, extremes).

Recognised by shape only: at least ``MIN_ROWS`` sampled rows, nine in ten with the same
number of blank-separated fields (3 to ``_MAX_FIELDS``), most rows distinct, and a column other than the last of numbers on nine rows
in ten. What the columns hold or are called does not matter.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

MIN_ROWS = 12
_MIN_FIELDS = 3  # two fields a row is a listing (its own compressor)
_MAX_FIELDS = 24  # more is prose or a wide record, not columns
_SAMPLE = 200
_SAME_COUNT = 0.9  # rows that must have the common field count
_NUMERIC = 0.9  # cells of a column that must be numbers for it to count as one
_NUMBER = re.compile(r"[-+]?(?:\d+(?:[.,:]\d+)*|0x[0-9a-fA-F]+|[0-9a-fA-F]{4,})[%KMGTkmgt]?")
_SENTENCE_END = re.compile(r"[a-z][.!?][\"')]?$")
_SENTENCES = 0.3  # rows that may end like a sentence
_NAME = re.compile(r"[A-Za-z%#][\w%#+/.()-]*")


@dataclass(frozen=True)
class Fields:
    count: int  # fields a row
    header: bool  # the first row names the columns
    tail: bool = False  # the last field is the rest of the line, blanks and all


_TAIL_MIN_SHARE = 0.9  # rows that must reach past the lead fields into a tail
_TAIL_WORDS = 6  # words the median row's tail may have: more, and the rows are messages


def _lead_and_tail(split: list[list[str]]) -> Fields | None:
    """Rows of a few fields and then free text (``ctags -x``: name, kind, line, file, then
    the source line; its long names push the columns out of alignment): the lead is the
    fields nine rows in ten have before one more, and one of them is a column of numbers."""
    counts = sorted(map(len, split))
    (short, n1), *rest = Counter(counts).most_common(2)
    if rest and n1 + rest[0][1] >= _SAME_COUNT * len(counts) and _MIN_FIELDS <= min(short, rest[0][0]):
        # Two lengths only (``git verify-pack -v``: a delta's row has its depth and base
        # after the five fields): fields, the longer rows' extra ones columns of their own.
        count = min(short, rest[0][0])
        body = [cells for cells in split if len(cells) >= count]
        if any(sum(1 for cells in body if _NUMBER.fullmatch(cells[k])) >= _NUMERIC * len(body) for k in range(count)):
            return Fields(count, False)
    lead = counts[int((1 - _TAIL_MIN_SHARE) * len(counts))] - 1
    if not _MIN_FIELDS <= lead <= _MAX_FIELDS:
        return None
    body = [cells for cells in split if len(cells) > lead]
    numbers = [k for k in range(lead) if sum(1 for cells in body if _NUMBER.fullmatch(cells[k])) >= _NUMERIC * len(body)]
    if not numbers:
        return None
    # The lead ends one field after its last column of numbers (ctags' line, then the
    # file): past it the words are the tail's, however long every row's tail is (a
    # commit's subject after its hash, author and date is no run of columns).
    lead = min(lead, numbers[-1] + 2)
    if lead < _MIN_FIELDS:
        return None
    # A tail of sentences (a commit's subject, a message) makes rows of a log, selected by
    # their words; a tail of a few words (a source line, a path) is a table's last column.
    tails = sorted(len(cells) - lead for cells in body)
    return Fields(lead + 1, False, tail=True) if tails[len(tails) // 2] <= _TAIL_WORDS else None


def infer(nonblank: list[str], tail: bool = False) -> Fields | None:
    """The rows' layout when ``nonblank`` (a text's non-blank lines) are rows of single-blank
    separated fields, else None. ``tail``: rows of unequal length may be a lead of fields
    and a free tail (asked only of a text no log reading claimed: a log line is the same
    shape)."""
    plain, with_tail = infer_both(nonblank)
    return with_tail() if tail else plain


def infer_both(nonblank: list[str]) -> tuple[Fields | None, Callable[[], Fields | None]]:
    """``infer(nonblank)``, and a function answering ``infer(nonblank, tail=True)`` from the
    same split rows: detection asks the second only of a text nothing else claimed, and
    split the sample once for both (issue 34)."""
    sample = nonblank[:_SAMPLE]
    if len(sample) < MIN_ROWS + 1 or len(set(sample)) < 0.5 * len(sample):
        return None, _none
    split = [ln.split() for ln in sample]
    count, rows = Counter(map(len, split)).most_common(1)[0]
    if sum(1 for ln in sample if _SENTENCE_END.search(ln.rstrip())) > _SENTENCES * len(sample):
        return None, _none  # sentences of one length ("… part 3 of the process.") are prose
    if rows < _SAME_COUNT * len(sample):
        # Rows of unequal length: a lead of fields and a free tail, or not a table. Tried
        # after the aligned reading failed (detect, csv_compressor): gutters may remain.
        return None, partial(_lead_and_tail, split)
    found = _one_count(sample, split, count)
    return found, partial(_same, found)


def _none() -> None:
    return None


def _same(found: Fields | None) -> Fields | None:
    return found


def _one_count(sample: list[str], split: list[list[str]], count: int) -> Fields | None:
    """The layout of rows nine in ten of which have ``count`` fields, else None."""
    if not _MIN_FIELDS <= count <= _MAX_FIELDS:
        return None
    if any("  " in ln.strip() for ln in sample[:8]):
        return None  # runs of blanks between fields: an aligned table, read by its gutters
    header = all(_NAME.fullmatch(w) and not _NUMBER.fullmatch(w) for w in split[0]) and len(split[0]) == count
    body = [cells for cells in split[1 if header else 0:] if len(cells) == count]
    numeric = any(
        sum(1 for cells in body if _NUMBER.fullmatch(cells[k])) >= _NUMERIC * len(body) for k in range(count - 1)
    )
    return Fields(count, header) if numeric else None
