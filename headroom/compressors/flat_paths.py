"""Flattened documents: one line per leaf, its path and its value (``jq -c --stream``'s
``[["services",3,"port"],8155]``, ``jq -r 'paths(scalars) …'``'s and gron's
``services.3.port = 8155``).

A record of the document (``services[3]``) is spread over the lines whose path runs through
its index, and every line of a record but one says nothing of which record it is: "which
port does media-worker listen on?" names the ``name`` line, and the port stands on
another. Read by shape (a path of keys and array indices, then a value, on nearly every
line), whatever the keys are called:

- :func:`path_mates`: the other lines of the records holding named lines;
- :func:`missing_field_records`: the first line of each record that lacks a field nearly
  every other record has ("which service has no owner?");
- :func:`path_extremes`: for "the biggest memory limit", the lines of the largest (smallest)
  numeric value among the leaves whose path says a word of the question.

The same document as a JSON array of two-field objects, a path and a value
(``[{"path": "services.3.port", "value": 8155}, …]``), is read through :func:`pair_lines`.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict

from ..query.said_numbers import rows_holding, said_numbers

# A stream event's path: [[ then strings and integers, comma-separated.
_STREAM = re.compile(r'\[\[((?:"(?:[^"\\]|\\.)*"|\d+)(?:,(?:"(?:[^"\\]|\\.)*"|\d+))*)\]')
_STREAM_PART = re.compile(r'"((?:[^"\\]|\\.)*)"|(\d+)')
# A dotted path and " = " (or ": ") before the value.
_DOTTED = re.compile(r"([A-Za-z_$][\w$-]*(?:\.[\w$-]+|\[\d+\])+)(?: = |: )")
_SAMPLE = 200
_SHARE = 0.8  # sampled nonblank lines that must be paths
_RECORD_LINES = 80  # a record longer than this is no record to copy whole
_NAMED_RECORDS = 6  # records the named lines may bring; more, and the words name none
_FIELD_SHARE = 0.9  # of the records that must have a field for its absence to be odd
_MIN_RECORDS = 5
_MISSING_MAX = 4  # records lacking a field kept at most (more: the field is optional)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_PATH_SEPARATORS = re.compile(r"[.\[\]]")
_LAST_NUMBER = re.compile(r"(?:^|[\s,=:])(-?\d+(?:\.\d+)?)$")


def _paths(lines: list[str]) -> list[tuple[str, ...] | None] | None:
    """Each line's path (keys and indices as strings), when the text is a flattened
    document; None otherwise."""
    sample = [ln for ln in lines[:_SAMPLE] if ln.strip()]
    if len(sample) < 8:
        return None
    stream = sum(1 for ln in sample if ln.startswith("[["))
    dotted = 0 if stream else sum(1 for ln in sample if _DOTTED.match(ln))
    if max(stream, dotted) < _SHARE * len(sample):
        return None
    out: list[tuple[str, ...] | None] = []
    for ln in lines:
        if stream:
            m = _STREAM.match(ln)
            out.append(tuple(a if b == "" else b for a, b in _STREAM_PART.findall(m.group(1))) if m else None)
        else:
            m = _DOTTED.match(ln)
            if m is None:
                out.append(None)
                continue
            path = m.group(1)
            # Most paths hold no index brackets: split at the dots alone (the same pieces).
            pieces = _PATH_SEPARATORS.split(path) if "[" in path or "]" in path else path.split(".")
            out.append(tuple(p for p in pieces if p))
    return out


def _record(path: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The path up to its last array index (``services.3``), None without one."""
    if not path:
        return None
    for k in range(len(path) - 2, -1, -1):  # the leaf's own key is no record
        if path[k].isdigit():
            return path[:k + 1]
    return None


def _records(paths: list[tuple[str, ...] | None]) -> dict[tuple[str, ...], list[int]]:
    by: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, p in enumerate(paths):
        r = _record(p)
        if r is not None:
            by[r].append(i)
    return by


def path_mates(lines: list[str], named: set[int], paths=None) -> set[int]:
    """The other lines of the records (``_RECORD_LINES`` at most each) holding ``named``
    lines, at most ``_NAMED_RECORDS`` records; none when the text is no flattened
    document. ``paths``: :func:`_paths` of the lines, when already read."""
    if not named:
        return set()
    paths = _paths(lines) if paths is None else paths
    if paths is None:
        return set()
    wanted = {r for i in named if i < len(paths) and (r := _record(paths[i])) is not None}
    if not wanted or len(wanted) > _NAMED_RECORDS:
        return set()
    out: set[int] = set()
    for r, rows in _records(paths).items():
        if r in wanted and len(rows) <= _RECORD_LINES:
            out.update(rows)
    return out - named


def missing_field_records(lines: list[str], paths=None) -> set[int]:
    """The first line of each record (among siblings: the same path but the index) that
    lacks a field at least ``_FIELD_SHARE`` of them have, at most ``_MISSING_MAX`` a field."""
    paths = _paths(lines) if paths is None else paths
    if paths is None:
        return set()
    records = _records(paths)
    fields: dict[tuple[str, ...], dict[tuple[str, ...], set[str]]] = defaultdict(dict)
    for r, rows in records.items():
        family = r[:-1]  # the array the record is an element of
        fields[family][r] = {paths[i][len(r)] for i in rows if len(paths[i]) > len(r)}
    out: set[int] = set()
    for family, recs in fields.items():
        if len(recs) < _MIN_RECORDS:
            continue
        seen = Counter(f for fs in recs.values() for f in fs)
        for field, n in seen.items():
            if n < len(recs) and n >= _FIELD_SHARE * len(recs) and len(recs) - n <= _MISSING_MAX:
                out.update(records[r][0] for r, fs in recs.items() if field not in fs)
    return out


def _named_leaf_groups(lines: list[str], paths, words: set[str]) -> dict[tuple[str, ...], list[tuple[float, int]]]:
    """The numeric leaves whose path, indices aside, has a key holding one of ``words``
    (``memory`` in ``limits.memory_mib``), by that path: (value, line) each."""
    groups: dict[tuple[str, ...], list[tuple[float, int]]] = defaultdict(list)
    for i, p in enumerate(paths):
        if not p:
            continue
        generic = tuple("*" if part.isdigit() else part.lower() for part in p)
        if not any(w in part for part in generic if part != "*" for w in words):
            continue
        value = _value(lines[i])
        if value is not None:
            groups[generic].append((value, i))
    return groups


def _with_record_heads(picks: list[int], paths) -> set[int]:
    """``picks`` with the first line of each one's record (which record it is)."""
    out: set[int] = set(picks)
    records = None
    for i in picks:
        r = _record(paths[i])
        if r is not None:
            records = records if records is not None else _records(paths)
            out.add(records[r][0])
    return out


def path_extremes(lines: list[str], words: set[str], most: bool, least: bool, paths=None) -> set[int]:
    """The lines of the largest (``most``) and smallest (``least``) numeric leaf among the
    leaves whose path, indices aside, has a key holding one of ``words``; with the first
    line of their records."""
    paths = _paths(lines) if paths is None else paths
    if paths is None or not words:
        return set()
    picks: list[int] = []
    for rows in _named_leaf_groups(lines, paths, words).values():
        if len(rows) < 3:
            continue
        rows.sort()
        picks += ([rows[-1][1]] if most else []) + ([rows[0][1]] if least else [])
    return _with_record_heads(picks, paths)


def path_said_values(lines: list[str], words: set[str], said: list[float], paths=None) -> set[int]:
    """For "scaled down to zero replicas": the leaves whose path names a word of the
    question and whose value is a number it says in words, where few leaves of that path
    hold it; with the first line of their records."""
    paths = _paths(lines) if paths is None else paths
    if paths is None or not words or not said:
        return set()
    picks: list[int] = []
    for rows in _named_leaf_groups(lines, paths, words).values():
        if len(rows) >= 3:
            picks += [rows[k][1] for k in rows_holding([v for v, _ in rows], said, _MISSING_MAX)]
    return _with_record_heads(picks, paths)


def _value(line: str) -> float | None:
    """The number a leaf line ends with (``…],24576]``, ``… = 24576``), else None."""
    s = line.rstrip().rstrip("]").rstrip()
    m = _LAST_NUMBER.search(s)
    return float(m.group(1)) if m else None


def flat_path_lines(lines: list[str], named: set[int], query: str) -> set[int]:
    """What a flattened document adds to a line selection: the records of the named lines,
    the records lacking a field, and the extremes the question asks for among the leaves
    it names. Empty for any other text (one cheap sample test)."""
    paths = _paths(lines)  # a sample test first (None for most texts), then read once for the three
    if paths is None:
        return set()
    from ..query.intent import content_lemmas
    from .tables.select import asked_directions

    out = path_mates(lines, named, paths) | missing_field_records(lines, paths)
    if query:
        most, least = asked_directions(query.lower())
        said = said_numbers(query.lower())
        if most or least or said:
            words = {w for w in content_lemmas(query) if len(w) >= 4}
            out |= path_extremes(lines, words, most, least, paths) if most or least else set()
            out |= path_said_values(lines, words, said, paths)
    return out


def pair_lines(items) -> list[str] | None:
    """``path = value`` lines, one per item, for a JSON array of two-field objects one of
    whose fields holds a dotted path on nearly every item (whatever the fields are called):
    a flattened document in JSON, which the functions above read as they read gron's lines.
    None for any other array (a look at its first item, then at a sample)."""
    first = items[0] if len(items) >= 8 else None
    if not isinstance(first, dict) or len(first) != 2:
        return None
    sample = items[:_SAMPLE]
    a, b = first
    for path_key, value_key in ((a, b), (b, a)):
        paths = sum(1 for it in sample if isinstance(it, dict) and isinstance(p := it.get(path_key), str)
                    and _DOTTED.match(p + " = "))
        if paths >= _SHARE * len(sample):
            return [f"{it.get(path_key)} = {json.dumps(it.get(value_key))}" if isinstance(it, dict) else ""
                    for it in items]
    return None
