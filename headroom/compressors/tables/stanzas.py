"""Records printed as stanzas: one ``field<sep>value`` line per field, a blank line
between records (``sqlite3 -line``'s ``column = value``, Debian's status file and
``dpkg -s``'s ``Field: value``, ``systemctl show`` over several units).

They are a table turned on its side: each stanza is a row, each field a column. Read that
way, the table row selection applies (:func:`.select.select_rows`: the records the question
names, the extremes of numeric fields, rare values, first and last), and the kept stanzas
are copied whole, byte for byte, blank lines included. Read as a log, the same text was
cut into lines of a few recurring templates: a record's fields were folded apart, and
Drain over a thousand lines took several times tiktoken's count of them (issue 34).

Recognised by shape only: at least ``MIN_STANZAS`` blank-line separated blocks in the
first ``_SAMPLE_LINES`` lines, every line of a block a ``field<sep>value`` line with one
separator for the whole text (or an indented continuation of the line before), and every
block opening with the same field. What the fields are called does not matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

MIN_STANZAS = 4  # in the sample: fewer is a form or a header block, not records
MIN_FIELDS = 2  # fields a stanza needs (one field per record is a listing)
_SAMPLE_LINES = 200
_MAX_FIELDS = 64  # columns kept apart; more (a stanza of free-form keys) is not a record
# A field name (one word: no blank and no separator inside, at most 64 characters), its
# separator and the value. "=" and "|" may touch the value; ":" needs a blank or the
# line's end after it, so a URL or a clock time does not read as a field. One word, so a
# line of prose ending in a colon ("Traceback (most recent call last):") is no field.
# A blank is a separator only before a quoted value (gettext's ``msgid "Archive"``); then
# quoted lines carry the field above on, and "#" lines are comments (see _step).
_FIELD = re.compile(r"[ \t]*([^\s=:|\"#]{1,64})[ \t]*(=|\||:(?=[ \t]|$)| (?=\"))[ \t]?(.*)")


@dataclass(frozen=True)
class Stanzas:
    """How a text's records are written: the field/value separator, the field every
    record opens with, and that field's indent."""

    separator: str
    opener: str
    indent: int
    column: int  # where the opening field's separator stands (right-aligned names share it)
    titled: bool = False  # each record may have a title line above it (head's "==> f <==")
    # The shape of a ruled title that opens each record without a blank line before it
    # (psql's expanded "-[ RECORD 12 ]--+----"), "" when records are set apart by blanks.
    rule: str = ""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _continues(line: str, f: tuple[str, str, str, int] | None, layout: Stanzas) -> bool:
    """Whether ``line`` carries on the field above it: indented deeper than the opening
    field, and not a field itself. With ":" an indented line is a field only when its
    separator lines up with the opening field's (right-aligned names): dpkg's Description
    and Conffiles lines hold colons of their own."""
    return _indent(line) > layout.indent and (
        f is None or line.strip() == "." or (layout.separator == ":" and f[3] != layout.column))


def _field(line: str) -> tuple[str, str, str, int] | None:
    """(field, separator, value, the separator's column) of a ``field<sep>value`` line,
    else None."""
    m = _FIELD.match(line)
    return (m.group(1), m.group(2), m.group(3), m.start(2)) if m else None


# A name of a few words padded to the column of the record's separators (/proc/crypto's
# "min keysize  : 16" among "name         : cbc(aes)"): a field where one word alone
# would be. At the separators' column only, so prose ending in a colon stays no field.
_ALIGNED_FIELD = re.compile(r"[ \t]*([A-Za-z][\w.()/-]*(?: [A-Za-z0-9][\w.()/-]*){1,3})[ \t]+(:)(?=[ \t]|$)[ \t]?(.*)")


def _aligned_field(line: str, layout: Stanzas) -> tuple[str, str, str, int] | None:
    m = _ALIGNED_FIELD.match(line)
    if m is None or m.start(2) != layout.column:
        return None
    return m.group(1), ":", m.group(3), m.start(2)


_BLANK, _CONTINUED, _COMMENT = object(), object(), object()


def _step(line: str, fresh: bool, layout: Stanzas, any_opener: bool = False):
    """What ``line`` is in a text of ``layout``'s records: ``_BLANK`` (between records),
    ``_CONTINUED`` (more of the field above), ``_COMMENT`` (a "#" line of a quoted-value
    catalogue), its field (a record's field line), or None (a line no record has: the text
    is not, or no longer, records). ``fresh``: no field line since the last blank one.
    ``any_opener``: past the sample a record may open with another of its fields
    (gettext's ``msgctxt`` before ``msgid``)."""
    if not line.strip():
        return _BLANK
    if layout.separator == " ":
        head = line.lstrip()[:1]
        if head == "#":
            return _COMMENT
        if head == '"' and not fresh:
            return _CONTINUED
    f = _field(line)
    if f is None and layout.separator == ":":
        f = _aligned_field(line, layout)
    if not fresh and _continues(line, f, layout):
        return _CONTINUED
    if f is None or f[1] != layout.separator or (fresh and not any_opener and f[0] != layout.opener):
        return None
    return f


def infer(lines: list[str]) -> Stanzas | None:
    """The stanza layout of a text whose first ``_SAMPLE_LINES`` lines are records, else None.
    Most texts fail on their first line (no field) or first block (no blank line after it)."""
    # (A catalogue's "#" comments stand over its first entry.)
    # (The first two such lines only: read lazily, not the whole sample.)
    head = list(islice((ln for ln in lines[:_SAMPLE_LINES] if ln.strip() and ln.lstrip()[:1] != "#"), 2))
    got = _field(head[0]) if head else None
    titled = False
    if got is None and len(head) == 2 and len(head[0]) <= _MAX_TITLE:
        # A title line over each record (``head`` over several files: "==> f <=="): the
        # record's first field is on the line after it. Its name is a name: a number
        # there is a line number under a path (ripgrep's heading mode), no field.
        got, titled, title_line = _field(head[1]), True, head[0]
        if got is not None and got[0].isdigit():
            got = None
        head = head[1:]
    if got is None:
        return None
    layout = Stanzas(got[1], got[0], _indent(head[0]), got[3], titled, _rule_shape(title_line) if titled else "")
    blocks, fields, fresh, title = 0, 0, True, False
    quoted = layout.separator == " "
    others = 0  # blocks a catalogue opens with another field (msgctxt before msgid)
    for ln in lines[:_SAMPLE_LINES]:
        f = _step(ln, fresh, layout, any_opener=quoted)
        if f is _COMMENT:
            continue
        if f is None and _is_title(ln, fresh, title, layout):
            if not fresh:  # a ruled title right under a record's fields: that record ends here
                if fields < MIN_FIELDS:
                    return None
                blocks, fresh, fields = blocks + 1, True, 0
            title = True
            continue
        title = False
        if f is _BLANK:
            if not fresh:
                if fields < MIN_FIELDS:
                    return None
                blocks += 1
            fresh, fields = True, 0
        elif f is not _CONTINUED:
            if f is None or fields >= _MAX_FIELDS:
                return None  # (a logfmt log is "key=value" lines without a blank: given up after 64)
            if not fresh and not quoted and _reopens(f, layout):
                # The opening field again, no blank line before it (``stat``): a new record.
                if fields < MIN_FIELDS:
                    return None
                blocks, fields = blocks + 1, 0
            others += fresh and f[0] != layout.opener
            fields += 1
            fresh = False
    # A record the sample ends inside counts (/proc/<pid>/status: 59 fields a record,
    # three whole ones in 200 lines).
    if 4 * others > blocks:
        return None  # most blocks open with the first one's field
    return layout if blocks + (fields >= MIN_FIELDS) >= MIN_STANZAS else None


_MAX_TITLE = 200  # characters of a record's title line



def _is_title(line: str, fresh: bool, after_title: bool, layout: Stanzas) -> bool:
    """Whether ``line`` (no field of the layout) is a record's title: where a record may
    start, in a text whose records have titles, the first such line there; or, in a text
    whose titles are rules, a line of the rule's shape wherever it stands."""
    if layout.rule and not after_title and _rule_shape(line) == layout.rule:
        return True
    return layout.titled and fresh and not after_title and 0 < len(line.strip()) <= _MAX_TITLE


_RULE = re.compile(r"([-=*+_~#])\1\1")  # a run of three drawing characters
_DIGITS = re.compile(r"\d+")
_RUNS = re.compile(r"(.)\1+")


def _rule_shape(line: str) -> str:
    """A ruled title's shape: numbers masked and runs of one character as one, so record
    9's "-[ RECORD 9 ]---+--" and record 10's "-[ RECORD 10 ]--+--" read alike; "" when
    the line draws no rule."""
    s = line.strip()
    if len(s) > _MAX_TITLE or not _RULE.search(s):
        return ""
    return _RUNS.sub(r"\1", _DIGITS.sub("#", s))


def _reopens(f: tuple[str, str, str, int], layout: Stanzas) -> bool:
    """Whether a field line opens the next record: the opening field's name at its column."""
    return f[0] == layout.opener and f[3] == layout.column


# A further field on a line: a tab or two blanks, then a name of a word or two and a colon
# ("Size: 2682   Blocks: 8   IO Block: 4096"). Only after ":" fields; a value's own
# parenthesised padding ("Uid: (    0/    root)") holds no name before a colon.
_FIELD_NAME = r"[A-Za-z][\w.-]{0,30}(?: [A-Za-z][\w.-]{0,20})?"  # one word, or two
_MORE_FIELDS = re.compile(r"(?:\t|  )\s*(?=" + _FIELD_NAME + r":(?:\s|$))")
_MORE_NAME = re.compile("(" + _FIELD_NAME + r"):\s*(.*)", re.DOTALL)


def _fields_of(f: tuple[str, str, str, int], layout: Stanzas) -> list[tuple[str, str]]:
    """The (name, value) fields of a field line: its own, and with ":" the further ones
    its value holds."""
    name, value = f[0], f[2]
    if layout.separator != ":" or ":" not in value:
        return [(name, value)]
    pieces = _MORE_FIELDS.split(value)
    out = [(name, pieces[0].strip())]
    for piece in pieces[1:]:
        m = _MORE_NAME.match(piece)
        if m is None:
            out[-1] = (out[-1][0], f"{out[-1][1]}  {piece}".strip())
        else:
            out.append((m.group(1), m.group(2).strip()))
    return out


@dataclass
class Records:
    names: list[str]  # the fields, in the order they first appear
    rows: list[list[str]]  # each record's values by ``names`` ("" where a record lacks one)
    spans: list[tuple[int, int]]  # each record's lines: its first, and the next record's first


def parse(lines: list[str], layout: Stanzas) -> Records | None:
    """Every record of ``lines`` (the whole text), or None when they stop being records
    past the sample (a trailer of prose, a second kind of block): the text then stays with
    the compressors that read it line by line."""
    starts: list[int] = []
    values: list[dict[str, str]] = []
    index: dict[str, int] = {}
    fresh = True
    title = -1  # the line of the title over the record about to start
    last: str | None = None  # the field the latest field line set
    for i, ln in enumerate(lines):
        f = _step(ln, fresh, layout, any_opener=True)
        if f is _COMMENT:  # a catalogue's comments open the record they stand over
            if fresh and title < 0:
                title = i
            continue
        if f is None and _is_title(ln, fresh, title >= 0, layout):
            title, fresh = i, True
            continue
        if f is _BLANK:
            fresh, title = True, -1
            continue
        if f is _CONTINUED:
            if layout.separator == " " and last is not None:  # a quoted value goes on: its length counts
                values[-1][last] += ln.strip()
            continue
        if f is None:
            return None
        if fresh or (layout.separator != " " and _reopens(f, layout)):
            starts.append(title if title >= 0 else i)
            values.append({})
            fresh, title = False, -1
        for name, value in _fields_of(f, layout):
            if name in values[-1]:  # a name again in one record (stat's two "Access" lines)
                name = f"{name} ({sum(1 for n in values[-1] if n == name or n.startswith(name + ' (')) + 1})"
            if name not in index:
                if len(index) >= _MAX_FIELDS:
                    return None
                index[name] = len(index)
            values[-1][name] = value
            last = name
    names = list(index)
    rows = [[rec.get(n, "") for n in names] for rec in values]
    ends = starts[1:] + [len(lines)]
    return Records(names, rows, list(zip(starts, ends)))
