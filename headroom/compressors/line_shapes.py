"""Lines of a rare shape, value or mark among lines that mostly repeat one: what is rare
among repeats is what a reader asks about, whatever the lines' words are.

- ``rare_shape_lines``: a line of a rare shape among a few common ones (``pwck``'s one
  missing program among three hundred missing home directories);
- ``rare_assigned_values``: a name assigned a rare value on a line of its own (a shell
  trace's one ``state=E_TIMEOUT`` among twenty ``state=ok``);
- ``rare_marks``: a rare short mark in one of a line's first fields (``git range-diff``'s
  ``<`` and ``>`` among its ``=`` and ``!``);
- ``mark_turns``: where a family of lines' leading mark turns from one value to the next
  (the last applied and the first pending of an app's ``[X]``/``[ ]`` migrations).

Used by the structured line selection, the log selection and the search-hit compressor.
"""

from __future__ import annotations

import re
from collections import Counter

from .text_records import SHAPE_RARE as _SKELETON_RARE
from .text_records import skeletons as _skeletons

RARE_SIBLINGS_MIN = 20  # one-line siblings needed before their values say what is common
RARE_KEPT = 24  # rare-valued siblings kept at most


# "+ state=ok" in a shell trace, "  retries=3" in a dump: a name assigned a value on a line of
# its own, behind at most a run of signs and blanks (the trace's "+"/"++").
_ASSIGNED = re.compile(r"[^\w\s]*\s*([A-Za-z_][\w.-]{0,40})=(\S{1,80})\s*$")


def rare_assigned_values(lines: list[str]) -> set[int]:
    """Lines assigning a name one of its rare values: a name assigned on at least
    ``RARE_SIBLINGS_MIN`` lines, its values mostly repeated (twenty services' ``state=ok``
    in a ``bash -x`` trace), and a value seen at most twice (the one ``state=E_TIMEOUT``).
    What is rare among repeats is what a reader asks about; at most ``RARE_KEPT``, those
    seen once first."""
    # Read only when the first lines assign names (a trace does from its start): most texts
    # are not split into assignments line by line.
    if not any("=" in ln and _ASSIGNED.match(ln) for ln in lines[:_HEAD_SAMPLE]):
        return set()
    by_name: dict[str, dict[str, list[int]]] = {}
    for i, ln in enumerate(lines):
        if "=" in ln and (m := _ASSIGNED.match(ln)) is not None:
            by_name.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(i)
    out: list[tuple[int, int]] = []
    for values in by_name.values():
        seen = sum(map(len, values.values()))
        if seen >= RARE_SIBLINGS_MIN and len(values) <= seen // 2:
            out += [(len(v), i) for v in values.values() if len(v) <= 2 for i in v]
    return _rarest(out)


def _rarest(counted: list[tuple[int, int]]) -> set[int]:
    """The lines of (count, line) pairs, those seen once first, at most ``RARE_KEPT``."""
    return {i for _, i in sorted(counted)[:RARE_KEPT]}


_SKELETON_SHARE = 0.8  # of the nonblank lines one skeleton must hold for the others to be rare


_COMMON_SHARE = 0.05  # of the nonblank lines a shape must hold to be one of the text's own
COMMON_SHAPES = 8  # more, and the text has no few shapes of its own


def rare_shape_lines(lines: list[str], max_common: int = COMMON_SHAPES) -> set[int]:
    """Lines of a rare shape among lines of a few common shapes, whatever their words: among
    three hundred ``user 'x': directory '/home/x' does not exist`` lines of ``pwck``, the
    one whose program is missing, the entry that is invalid, the user without a shadow line;
    among ``ninja -d explain``'s three interleaved messages, the object whose input is a
    source file, not the shared header. A shape is common on at least ``RARE_SIBLINGS_MIN``
    lines and ``_COMMON_SHARE`` of the nonblank ones; at most ``max_common`` common shapes
    must hold ``_SKELETON_SHARE`` of the nonblank lines for a shape of at most
    ``_SKELETON_RARE`` lines to be rare. At most ``RARE_KEPT`` lines, those of the rarest
    shapes first. Read on the first lines before the whole text: most texts have no few
    common shapes."""
    shapes = _skeletons(lines[:_HEAD_SAMPLE])
    head = Counter(k for k in shapes if k.strip())
    if not head or not _common_shapes(head, max_common):
        return set()
    shapes += _skeletons(lines[_HEAD_SAMPLE:]) if len(lines) > _HEAD_SAMPLE else []
    counts = Counter(k for k in shapes if k.strip())
    common = _common_shapes(counts, max_common)
    if not common:
        return set()
    members: dict[str, list[int]] = {k: [] for k in common}
    for i, k in enumerate(shapes):
        if k in members:
            members[k].append(i)
    odd: list[tuple[int, int]] = []
    fixed = False
    for shape in common:
        found = _odd_words(lines, members[shape])
        if found is not None:
            fixed = True
            odd += found
    if not fixed:
        return set()
    rare = [(counts[k], i) for i, k in enumerate(shapes) if k.strip() and counts[k] <= _SKELETON_RARE]
    return _rarest(rare + odd)


def _common_shapes(counts: Counter, max_common: int) -> list[str]:
    """The few shapes that hold most of the nonblank lines (see ``rare_shape_lines``); none
    when more than ``max_common`` would be needed or they hold too few lines."""
    total = sum(counts.values())
    floor = max(_COMMON_SHARE * total, RARE_SIBLINGS_MIN)
    common = [k for k, v in counts.most_common(max_common) if v >= floor]
    if sum(counts[k] for k in common) < _SKELETON_SHARE * total:
        return []
    return common


_FIXED_SHARE = 0.9  # of a shape's lines one word must hold at a place for it to be the shape's own


def _odd_words(lines: list[str], members: list[int]) -> list[tuple[int, int]] | None:
    """(count, line) for the lines of one shape that put another word where nearly all of
    them put the same one: ``program`` where three hundred ``pwck`` lines say ``directory``.
    A word seen at most ``_SKELETON_RARE`` times there is rare. None when no place holds
    one word on nearly all the lines: then the shape is no message's template (``key
    value`` lines of a settings dump share a shape, not words), and nothing is rare by it."""
    split = [lines[i].split() for i in members]
    width = len(split[0])
    if any(len(words) != width for words in split):
        return None  # a shape's words line up only when the blanks did
    out: list[tuple[int, int]] = []
    fixed = False
    for place in range(width):
        words = Counter(words[place] for words in split)
        usual, held = words.most_common(1)[0]
        if held < _FIXED_SHARE * len(split):
            continue
        fixed = True
        out += [(words[w[place]], i) for i, w in zip(members, split, strict=True)
                if w[place] != usual and words[w[place]] <= _SKELETON_RARE]
    return out if fixed else None


_HEAD_SAMPLE = 200  # first lines read to decide whether a whole text is worth reading
_MARK_POSITIONS = 4  # leading blank-separated fields looked at
_MARK_SHARE = 0.8  # of the lines one mark must hold for the others to be rare
_MARK_MIN_LINES = 20
_MARKED_SHARE = 0.3  # of the lines that must hold a mark at the field


def rare_marks(lines: list[str]) -> set[int]:
    """Lines whose short mark at one of the first fields is rare where one mark fills the
    field on most of the lines holding a mark there: ``git range-diff`` pairs commits with ``=`` (same), ``!``
    (changed), ``<`` (dropped) and ``>`` (added); the few ``<`` and ``>`` say what the new
    series lost and gained. A mark is one or two signs (no letter or digit); the rare ones
    are those on at most two lines, at most ``RARE_KEPT`` lines."""
    # Which fields hold marks, read on the first lines: most texts have none, and are not
    # split whole.
    sample = [ln.split(None, _MARK_POSITIONS) for ln in lines[:_HEAD_SAMPLE] if ln.strip()]
    positions = [pos for pos in range(_MARK_POSITIONS) if _mark_counts(sample, pos, len(sample) // 4)]
    if not positions:
        return set()
    numbered = [(i, ln.split(None, _MARK_POSITIONS)) for i, ln in enumerate(lines) if ln.strip()]
    if len(numbered) < _MARK_MIN_LINES:
        return set()
    rows = [parts for _, parts in numbered]
    out: list[tuple[int, int]] = []
    for pos in positions:
        counts = _mark_counts(rows, pos, _MARK_MIN_LINES)
        rare = {m for m, n in counts.items() if n <= 2}
        if rare:  # the lines split once above, read again for the rare marks
            out += [(counts[parts[pos]], i) for i, parts in numbered if len(parts) > pos and parts[pos] in rare]
    return _rarest(out)


def _mark_counts(rows: list[list[str]], pos: int, least: int) -> dict[str, int]:
    """Each mark's count at field ``pos`` when at least ``least`` rows and ``_MARKED_SHARE`` of
    them hold a mark there (a reworked commit's inner diff lines hold none), one mark
    ``_MARK_SHARE`` of those; else empty."""
    counts: dict[str, int] = {}
    for r in rows:
        if len(r) > pos and len(r[pos]) <= 2 and not any(ch.isalnum() for ch in r[pos]):
            counts[r[pos]] = counts.get(r[pos], 0) + 1
    marked = sum(counts.values())
    if marked < max(least, _MARKED_SHARE * len(rows)) or max(counts.values()) < _MARK_SHARE * marked:
        return {}
    return counts


_TURN_MIN = 4  # members a family needs before its marks' runs say anything
_TURN_VALUES = 3  # a leading field of more values is no status mark
_TURN_RUNS = 4  # runs of one mark, at most: more, and the mark says nothing of a progress
_TURN_MARK_CHARS = 6  # a mark is short ("[X]", "ok", "+"); a longer leading field is a name


def mark_turns(lines: list[str], members: list[int]) -> set[int]:
    """The ends of each run of one leading mark along a family of lines (in their order):
    where ``[X]`` turns to ``[ ]`` is how far a list of steps has got, the last done and
    the first still to do. Only where the family's first fields are short marks of two or
    three values, in at most ``_TURN_RUNS`` runs."""
    if len(members) < _TURN_MIN:
        return set()
    marks = [_lead(lines[i]) for i in members]
    if not 2 <= len(set(marks)) <= _TURN_VALUES or max(map(len, marks)) > _TURN_MARK_CHARS:
        return set()
    out: set[int] = set()
    runs = 0
    for k, mark in enumerate(marks):
        if k == 0 or mark != marks[k - 1]:
            runs += 1
            if runs > _TURN_RUNS:
                return set()
            out.add(members[k])
            if k:
                out.add(members[k - 1])
    out.add(members[-1])
    return out


def _lead(line: str) -> str:
    """A line's first blank-separated field, with a bracketed mark whole ("[ ]" not "[")."""
    text = line.lstrip()
    if text.startswith("[") and (end := text.find("]", 0, _TURN_MARK_CHARS)) > 0:
        return text[:end + 1]
    return text.split(None, 1)[0] if text else ""
