"""Records in plain text: short blocks of lines separated by blank lines (or rules).

``sqlite3 -line`` prints each row as ``column = value`` lines with a blank line between
rows; ``dpkg -s`` and Debian's status file print one stanza per package. A question names
one line of a record (the row's name, the package) and asks for another field of it: the
selectors keep the named line, and this module says which lines share its record.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_right
from collections import Counter
from itertools import pairwise

from ..query.terms import question_terms, rows_naming

RECORD_LINES = 40  # a blank-line separated block this short is one record (a dpkg stanza: 10-30)
_MIN_RECORDS = 3
_RECORD_CHARS = 2_000  # nor one this long (a stanza carrying a line of build ids)
# Indented records named by the question: more than this many, and the words name no record
# in particular (a key id in every signature packet of a keyring dump).
_NAMED_RECORDS = 4


def record_mates(raw: list[str], named: set[int]) -> set[int]:
    """The other lines of the short records holding ``named`` lines, when the text is made
    of such records (at least ``_MIN_RECORDS``); none otherwise. A record is a blank-line
    separated block, or, in a text without blank lines between them, an unindented head line
    with the lines indented under it (``ip addr``: an interface, then its address lines)."""
    if not named:
        return set()
    raw = _rules_blanked(without_line_prefix(raw))
    if sum(1 for ln in raw if not ln.strip()) < _MIN_RECORDS - 1:
        return _indented_mates(raw, named)
    out: set[int] = set()
    n = len(raw)
    for i in sorted(named):
        if i in out or not raw[i].strip():
            continue
        a = i
        while a > 0 and raw[a - 1].strip() and i - a < RECORD_LINES:
            a -= 1
        b = i + 1
        while b < n and raw[b].strip() and b - a < RECORD_LINES:
            b += 1
        if (a == 0 or not raw[a - 1].strip()) and (b == n or not raw[b].strip()) \
                and sum(map(len, raw[a:b])) <= _RECORD_CHARS:
            out.update(range(a, b))
    return out - named


# The item numbers a line opens with (redis-cli's nested replies: "    4) 1)  1) \"id\""):
# the last is the line's own, and where its ")" stands is the level of its list.
_ITEM_NUMBERS = re.compile(r"(?:[ \t]*\d{1,6}\))+")
_ITEM_NUMBER = re.compile(r"(\d{1,6})\)$")


def _item(line: str) -> tuple[int, int] | None:
    """(the line's own item number, the column after its ")"), or None."""
    m = _ITEM_NUMBERS.match(line)
    if m is None:
        return None
    own = _ITEM_NUMBER.search(m.group(0))
    return (int(own.group(1)), m.end()) if own else None


def _levels(line: str) -> list[tuple[int, int]]:
    """Each item number a line opens with and the column after its ")", innermost first:
    "6) 1) allow-oom" is item 1 of a list of flags and item 6 of a function's fields."""
    m = _ITEM_NUMBERS.match(line)
    if m is None:
        return []
    return [(int(x.group(1)), x.end()) for x in reversed(list(_ITEM_AT.finditer(m.group(0))))]


_ITEM_AT = re.compile(r"(\d{1,6})\)")


def numbered_mates(raw: list[str], named: set[int]) -> set[int]:
    """The other items of the short numbered lists holding each ``named`` line: the run of
    lines numbered 1, 2, 3 … at each of that line's levels (a nested reply's record: "1) id",
    "2) <the id>", … "10) <the host name>"), for each run of at most ``RECORD_LINES``."""
    out: set[int] = set()
    for i in sorted(named):
        if i not in out:
            for here in _levels(raw[i]):
                out |= _item_run(raw, i, here)
    return out - named


def _item_run(raw: list[str], i: int, here: tuple[int, int]) -> set[int]:
    """The lines of the numbered run line ``i`` is item ``here`` of, when at most
    ``RECORD_LINES`` long and its first item is in the text."""
    number, col = here
    a, k = i, number
    while k > 1 and a > 0 and (up := _item(raw[a - 1])) is not None and up == (k - 1, col):
        a, k = a - 1, k - 1
    if k != 1:
        return set()  # the run's first item is not in view: no record to bring
    b, k = i + 1, number
    while b < len(raw) and b - a < RECORD_LINES and (down := _item(raw[b])) is not None and down == (k + 1, col):
        b, k = b + 1, k + 1
    return set(range(a, b)) if b - a <= RECORD_LINES else set()


_RULE = re.compile(r"\s*([-=*_~])\1{2,}\s*")  # "---", "=====": a rule between records


def _rules_blanked(raw: list[str]) -> list[str]:
    """``raw`` with its rule lines (``---`` between ``pip show`` records) read as blank
    lines: they separate records the way a blank line does."""
    if not any(ln[:1] in "-=*_~" and _RULE.fullmatch(ln) for ln in raw):
        return raw
    return ["" if ln[:1] in "-=*_~" and _RULE.fullmatch(ln) else ln for ln in raw]


_PREFIX_SHARE = 0.9  # lines that must open with the same mark for it to be the program's
_PREFIX_MAX = 24


def without_line_prefix(raw: list[str]) -> list[str]:
    """``raw`` with the mark a program puts before every line taken off (Valgrind's
    ``==29812== ``): the first line's first word, when at least 90 % of the lines open with
    it and a blank after it (or end with it). The records are then what they would be
    without it: a line holding only the mark separates them, indentation after it nests."""
    first = next((ln for ln in raw if ln.strip()), "")
    cut = first.find(" ")
    mark = first[:cut] if 0 < cut <= _PREFIX_MAX else ""
    if not mark or mark[0].isalnum() and mark[-1].isalnum():
        return raw  # a word of text, not a mark (a mark is punctuated: ==12==, [pid 7], >>)
    width = len(mark) + 1
    if sum(1 for ln in raw if ln.startswith(mark) and (len(ln) == len(mark) or ln[len(mark)] == " ")) \
            < _PREFIX_SHARE * len(raw):
        return raw
    return [ln[width:] if ln.startswith(mark) else ln for ln in raw]


def _indented_mates(raw: list[str], named: set[int]) -> set[int]:
    """``record_mates`` for records made by indentation: each unindented line opens one and
    the indented lines after it belong to it. The text must be mostly such records: at
    least ``_MIN_RECORDS`` heads and as many indented lines."""
    heads = [i for i, ln in enumerate(raw) if ln[:1] not in ("", " ", "\t")]
    if len(heads) < _MIN_RECORDS or len(raw) - len(heads) < len(heads):
        return set()
    out: set[int] = set()
    n = len(raw)
    records = 0
    for i in sorted(named):
        if i in out:
            continue
        a = i
        while a > 0 and raw[a][:1] in (" ", "\t") and i - a < RECORD_LINES:
            a -= 1
        if raw[a][:1] in ("", " ", "\t"):
            continue  # indented lines above any head, or a record too long to be one
        b = a + 1
        while b < n and raw[b][:1] in (" ", "\t") and b - a < RECORD_LINES:
            b += 1
        if (b == n or raw[b][:1] not in (" ", "\t")) and sum(map(len, raw[a:b])) <= _RECORD_CHARS:
            out.update(range(a, b))
            records += 1
            if records > _NAMED_RECORDS:
                return set()  # what the question names is everywhere: no record in particular
    return out - named


def _heads_block(raw: list[str], i: int) -> bool:
    """Line ``i`` heads the lines under it: they are indented, or all open on one mark it
    does not open with (gdb's ``#0``, ``#1`` frames), not fields of its own kind
    (``sqlite3 -line``'s ``code = …`` over ``name = …``)."""
    marks = set()
    for ln in raw[i + 1:i + RECORD_LINES]:
        if not ln.strip():
            break
        marks.add(" " if ln[:1] in (" ", "\t") else ln[:1] if not ln[:1].isalnum() else "a")
    return bool(marks) and (marks == {" "} or (len(marks) == 1 and "a" not in marks and raw[i][:1] not in marks))


_HEAD_SHARE = 0.5  # of the blocks whose first line opens with the usual first word
_HEAD_WORD = re.compile(r"[A-Za-z][A-Za-z_-]*:?")


def record_heads(raw: list[str], kept: list[int]) -> set[int]:
    """The head lines of the records holding ``kept`` lines, when the text is made of
    headed records: at least ``_MIN_RECORDS`` blank-line separated blocks, half of them or
    more opening with one first word (gdb's ``Thread 12 (... "svc-k"):`` over its frames).
    A kept frame says what a record does; its head says which record that is, and the
    heads, all alike but for their names, are what a template fold takes out of view."""
    blocks = [i for i, ln in enumerate(raw) if ln.strip() and (i == 0 or not raw[i - 1].strip())]
    starts = [i for i in blocks if raw[i][:1] not in (" ", "\t") and _heads_block(raw, i)]
    if len(starts) < _MIN_RECORDS:
        return set()
    firsts = [raw[i].split(None, 1)[0] for i in starts]
    word = max(set(firsts), key=firsts.count)
    # A head opens with a word ("Thread", "Process:"), not an id: a commit hash that happens
    # to follow several blank source lines of ``git blame --porcelain`` heads nothing.
    if not _HEAD_WORD.fullmatch(word) or firsts.count(word) < max(_MIN_RECORDS, _HEAD_SHARE * len(blocks)):
        return set()
    heads = {i for i, w in zip(starts, firsts) if w == word}
    out: set[int] = set()
    head = -1
    kept_set = set(kept)
    for i, ln in enumerate(raw):
        if not ln.strip():
            head = -1
        elif i in heads:
            head = i
        elif head >= 0 and i in kept_set:
            out.add(head)
    return out - kept_set


_COLON_HEAD_SHARE = 0.6  # colon heads over more of the lines than this are the content, not heads
_COLON_HEAD_OWN = 0.6  # of the lines opening on the heads' first field, at least this share are heads


def colon_heads(raw: list[str], kept: list[int]) -> set[int]:
    """For each kept line, the line that introduces it with a trailing colon, in a text
    without blank lines between its records: GNU ld's ``obj/a.o: in function `f':`` over
    the undefined references of ``f``, gcc's ``x.c: In function 'main':`` over its
    warnings. A kept reference says what is missing; its head says who needs it, and the
    heads, all alike but for their names, are what a template fold takes out of view.
    Heads are unindented lines ending in a colon that open on one first field (at least
    ``_MIN_RECORDS`` of them, at most ``_COLON_HEAD_SHARE`` of the lines, and most of the
    lines opening on that field); a kept line brings the nearest head above it, at most
    ``RECORD_LINES`` up, with no blank line between."""
    if not kept:
        return set()
    colon = [i for i, ln in enumerate(raw) if ln[:1] not in ("", " ", "\t") and ln.rstrip().endswith(":")
             and not ln.rstrip().endswith("::")]
    if len(colon) < _MIN_RECORDS or len(colon) > _COLON_HEAD_SHARE * sum(1 for ln in raw if ln.strip()):
        return set()
    firsts = Counter(raw[i].split(None, 1)[0] for i in colon)
    word, count = firsts.most_common(1)[0]
    # Most lines opening on the heads' first field are heads: code ending in a colon under
    # git blame's commit ids (``abc123 (…) def f():``) is one line in many of its commit's.
    if count < _MIN_RECORDS or count < _COLON_HEAD_OWN * sum(1 for ln in raw if ln.startswith(word)):
        return set()
    heads = {i for i in colon if raw[i].split(None, 1)[0] == word}
    out: set[int] = set()
    for i in kept:
        if i in heads or not raw[i].strip():
            continue
        a = i - 1
        while a >= 0 and i - a < RECORD_LINES and raw[a].strip() and a not in heads:
            a -= 1
        if a >= 0 and a in heads:
            out.add(a)
    return out - set(kept)


_ANNOTATION_SHARE = 0.1


def indent_heads(raw: list[str], kept: list[int]) -> set[int]:
    """For each kept indented line, the unindented line it hangs under (at most
    ``RECORD_LINES`` above, no blank line between): ``git worktree list -v``'s
    ``\tprunable: …`` says what is wrong, the worktree line above it says with which. Lines
    above any unindented one head nothing. Only where indented lines are few (at most
    ``_ANNOTATION_SHARE`` of the lines), notes on their heads: where they are the body
    (code under ``git blame``'s hashes, a packet's fields) a head per kept line costs
    as much again."""
    asked = [i for i in kept if raw[i][:1] in (" ", "\t") and raw[i].strip()]
    if not asked:
        return set()  # most logs: no kept line is indented, and the text is not read
    indented = sum(1 for ln in raw if ln[:1] in (" ", "\t") and ln.strip())
    if indented > _ANNOTATION_SHARE * len(raw):
        return set()
    out: set[int] = set()
    for i in asked:
        a = i - 1
        while a >= 0 and i - a < RECORD_LINES and raw[a][:1] in (" ", "\t") and raw[a].strip():
            a -= 1
        if a >= 0 and raw[a][:1] not in ("", " ", "\t"):
            out.add(a)
    return out - set(kept)


_FAMILY_NAMED_MAX = 4  # named lines whose family is read; more: the question names no one node
_FAMILY_CHILDREN_MAX = 32  # a node's children kept at most; more: its outline costs too much
_FAMILY_REACH = 2_000  # lines walked up or down from a named line, at most


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def indent_family(raw: list[str], named: set[int] | list[int]) -> set[int]:
    """In a tree drawn by indentation, the ancestors of each line the question names (each
    nearest line above with less indentation) and its children (the lines one level deeper
    below it, up to the next line at its own level or above): ``pytest --collect-only``'s
    ``<Function test_x>`` says nothing of the ``<Class …>`` that holds it, and a named
    ``<Module …>``'s own functions are its children. For at most ``_FAMILY_NAMED_MAX`` named
    lines (a word on every line names no node); children only where at most
    ``_FAMILY_CHILDREN_MAX``."""
    if not named or len(named) > _FAMILY_NAMED_MAX:
        return set()
    out: set[int] = set()
    n = len(raw)
    for i in named:
        depth = _indent(raw[i])
        a = i - 1
        while depth > 0 and a >= 0 and i - a <= _FAMILY_REACH:  # ancestors
            if raw[a].strip() and (d := _indent(raw[a])) < depth:
                out.add(a)
                depth = d
            a -= 1
        own = _indent(raw[i])
        children: list[int] = []
        level = None
        for b in range(i + 1, min(n, i + _FAMILY_REACH)):
            if not raw[b].strip():
                continue
            d = _indent(raw[b])
            if d <= own:
                break
            level = d if level is None else level
            if d == level:
                children.append(b)
                if len(children) > _FAMILY_CHILDREN_MAX:
                    break
        if len(children) <= _FAMILY_CHILDREN_MAX:
            out.update(children)
    return out - set(named)


_SUBTREE_WORD_LINES = 4  # lines of a named record a question word may name there; more name none


def subtree_words(raw: list[str], named: set[int] | list[int], query: str | None) -> set[int]:
    """In a tree drawn by indentation, the lines of a named line's record that hold another
    question word, with their children: the record is the largest subtree holding the named
    line within ``RECORD_LINES`` (``parquet-tools inspect``'s ``ColumnChunk`` whose
    ``path_in_schema`` names ``bay_code``), and there "statistics", a word of every chunk,
    names the one ``statistics = Statistics`` whose children hold the asked maximum. For at
    most ``_FAMILY_NAMED_MAX`` named lines."""
    if not query or not named or len(named) > _FAMILY_NAMED_MAX:
        return set()
    terms = [t for t in question_terms(query) if len(t) >= 4]
    out: set[int] = set()
    for i in named:
        a, b = _record_subtree(raw, i)
        if b - a <= 1:
            continue
        hits = {a + k for k in _word_start_lines(raw[a:b], terms, _SUBTREE_WORD_LINES)} - {i}
        out |= hits | indent_family(raw, hits)
    return out - set(named)


def _word_start_lines(lines: list[str], terms: list[str], limit: int) -> set[int]:
    """Lines where a term starts a word ("stat" in "stats = Stats"), for each term at most
    ``limit`` lines hold."""
    out: set[int] = set()
    low = [ln.lower() for ln in lines]
    for t in terms:
        pattern = re.compile(rf"(?<![a-z0-9_]){re.escape(t)}")
        hits = [k for k, ln in enumerate(low) if t in ln and pattern.search(ln)]
        if len(hits) <= limit:
            out.update(hits)
    return out


def _record_subtree(raw: list[str], i: int) -> tuple[int, int]:
    """The span of the largest subtree holding line ``i`` (an ancestor and the lines deeper
    than it below) that is at most ``RECORD_LINES`` long; ``(i, i + 1)`` when none is."""
    best = (i, i + 1)
    depth = _indent(raw[i])
    a = i
    while depth > 0 and a > 0 and i - a < RECORD_LINES:
        a -= 1
        if not raw[a].strip() or (d := _indent(raw[a])) >= depth:
            continue
        depth = d
        b = a + 1
        while b < len(raw) and raw[b].strip() and _indent(raw[b]) > d and b - a <= RECORD_LINES:
            b += 1
        if b - a > RECORD_LINES:
            break
        best = (a, b)
    return best


# A row's marks: the signs and blanks before its first other character (``git
# show-branch``'s "*  + +  ++   [main~13] …": one column per branch).
_MARKS = re.compile(r"[ *+!-]*")
_MARK_ROWS_SHARE = 0.6  # of the sampled nonblank lines that must open with marks
_MARK_COLUMNS_MIN = 3  # columns marks fill across the rows: fewer is a list's bullet, not a matrix
_MARK_RUNS_MAX = 64  # runs whose ends are kept at most; more: the pattern changes every few rows


def mark_run_ends(raw: list[str]) -> set[int]:
    """In a matrix of marks (a column per branch, a row per commit), the first and last row
    of each run of rows marked alike: where a pattern of marks begins and ends is where a
    branch starts, forks off or is merged (the oldest commit of a topic is the last row of
    its run; a fork point the first row of a new pattern). Empty unless most sampled lines
    open with marks spread over ``_MARK_COLUMNS_MIN`` columns or more."""
    sample = [ln for ln in raw[:_DEPTH_SAMPLE] if ln.strip()]
    marked = [m.group(0).rstrip() for m in map(_MARKS.match, sample)]
    marked = [p for p in marked if p.strip()]
    if len(marked) < max(_MIN_RECORDS, _MARK_ROWS_SHARE * len(sample)):
        return set()
    columns = {k for p in marked for k, ch in enumerate(p) if ch != " "}
    if len(columns) < _MARK_COLUMNS_MIN:
        return set()
    out: set[int] = set()
    runs = 0
    prev = None
    last = -1
    for i, ln in enumerate(raw):
        if not ln.strip():
            continue
        pattern = _MARKS.match(ln).group(0).rstrip()
        if pattern != prev:
            if last >= 0:
                out.add(last)
            out.add(i)
            runs += 1
            if runs > _MARK_RUNS_MAX:
                return set()
            prev = pattern
        last = i
    if last >= 0:
        out.add(last)
    return out


# A depth marker: a run of one mark and a blank, one mark per level (``gcc -H``'s include
# tree: ". a.h", ".. b.h" under it).
_DEPTH_MARK = re.compile(r"([.*>])\1* (?=\S)")
_DEPTH_SAMPLE = 200
_DEPTH_SHARE = 0.6  # of the sampled nonblank lines that must carry the marker


def depth_ancestors(raw: list[str], kept: list[int]) -> set[int]:
    """The ancestors of ``kept`` lines in a tree drawn with depth markers: each line's
    parent is the nearest line above it with a shorter run of the same mark. A kept
    ``.. /usr/include/pthread.h`` says what is included; the ``.`` line above it says which
    header includes it, and that is what a template fold of look-alike lines takes out.
    Empty unless most sampled lines carry one mark at two depths or more."""
    sample = [ln for ln in raw[:_DEPTH_SAMPLE] if ln.strip()]
    marks = [m.group(1) for m in map(_DEPTH_MARK.match, sample) if m]
    if len(marks) < _DEPTH_SHARE * len(sample) or len(marks) < _MIN_RECORDS:
        return set()
    mark = max(set(marks), key=marks.count)
    depth = [_marked_depth(ln, mark) for ln in raw]
    if len(set(depth) - {0}) < 2:
        return set()
    out: set[int] = set()
    kept_set = set(kept)
    # One pass down the text; path[k] is the open line at depth k + 1. An unmarked line, or
    # a jump of more than one level, leaves no ancestors known.
    path: list[int] = []
    for i, d in enumerate(depth):
        if d == 0 or d > len(path) + 1:
            path = []
            continue
        del path[d - 1:]
        if i in kept_set:
            out.update(path)
        path.append(i)
    return out - kept_set


def _marked_depth(line: str, mark: str) -> int:
    """The length of the run of ``mark`` that opens ``line`` before a blank (0: none)."""
    run = len(line) - len(line.lstrip(mark))
    return run if run and line[run:run + 1] == " " else 0


# A record's opening field: its name and colon, as the text's first line has it
# ("\tCommand being timed:", "Name:"); or its opening mark, a run of one sign and a blank
# ("== fi_FI.UTF-8" over each locale's ``locale -k`` fields; two signs at least, as one
# "#" or "-" opens a comment or an item, not a record); or a run of three signs or more
# against the next sign ("===[ValidationError]===(stores/a.json)===" over each error of
# ``jsonschema``'s pretty output).
_OPENING_FIELD = re.compile(r"\s*[^\s:][^:]{0,60}:")
_OPENING_MARK = re.compile(r"\s*([^\w\s])\1+ (?=\S)|\s*([^\w\s])\2{2,}(?!\2)(?=\S)")
_OPENING_WORDS = re.compile(r"[a-z][\w.-]* -{1,2}[\w-]+ (?=\S)")  # a command and an option
# Or a phrase of two to four words before the line's one last word ("checking file
# src/audit.py" over each file's hunks in ``patch``'s report).
_OPENING_PHRASE = re.compile(r"(?:[A-Za-z][a-z-]* ){2,4}(?=\S+$)")


_LAST_STARTS: tuple[list[str] | None, list[int]] = (None, [])


def record_starts(raw: list[str]) -> list[int]:
    """The opening lines of the records a text is made of, when each record opens the way
    its first line does (on the same field, the same mark, or the same command and option)
    and holds two lines or more on average (three for a command); at least ``_MIN_RECORDS``
    of them (else none). Read-only: one slot, by identity, remembers the last text's answer,
    asked by up to five rules of one selection (openers, runs, asked fields, bodies)."""
    global _LAST_STARTS
    last, starts = _LAST_STARTS  # one read of the slot: another thread may replace it
    if last is raw:
        return starts
    starts = _record_starts(raw)
    _LAST_STARTS = (raw, starts)
    return starts


def _record_starts(raw: list[str]) -> list[int]:
    first = next((i for i, ln in enumerate(raw) if ln.strip()), None)
    if first is None:
        return []
    m = _OPENING_FIELD.match(raw[first]) or _OPENING_MARK.match(raw[first])
    if m is not None:
        field = m.group(0)
        opens = [i for i, ln in enumerate(raw) if ln.startswith(field)]
        return opens if len(opens) >= _MIN_RECORDS and len(raw) >= 2 * len(opens) else []
    # Or the first line's command and option (``diff -r old/a new/a`` over each file's hunks),
    # or its phrase before a last word: words that open at most one line in three.
    m = _OPENING_WORDS.match(raw[first]) or _OPENING_PHRASE.match(raw[first])
    if m is None:
        return []
    field = m.group(0)
    opens = [i for i, ln in enumerate(raw) if ln.startswith(field)]
    return opens if len(opens) >= _MIN_RECORDS and len(raw) >= 3 * len(opens) else []


def record_openers(raw: list[str], kept: list[bool]) -> set[int]:
    """The opening lines of the records holding kept lines, when the text is records that
    each open on the field its first line opens on (``/usr/bin/time -v`` over several
    commands: ``Command being timed: "..."`` then 20-odd fields, no blank line between).
    A kept ``Elapsed`` line says how long; its record's opening line says what ran."""
    opens = record_starts(raw)
    if not opens:
        return set()
    out: set[int] = set()
    for i, k in enumerate(kept):
        if k and i > opens[0]:
            o = opens[bisect_right(opens, i) - 1]
            if not kept[o]:
                out.add(o)
    return out


_LEADING_INT = re.compile(r"\s*(\d{1,12})(?=\s|:|$)")
_RUN_SHARE = 0.9  # of the lines (record openers aside) that must open with an integer
_RUNS_MAX = 120  # runs whose ends are kept at most; more, and the numbers are no offsets
_OPENERS_MAX = 64  # records whose opening lines are all kept (a table of contents)


def run_ends(raw: list[str]) -> set[int]:
    """The first and last line of each run of consecutive integers opening the lines
    (``cmp -l``'s byte offsets: a rewritten table is one run, a lone flipped byte a run of
    one), when nearly every line opens with an integer that rises from line to line
    (within each record of a text of records); none otherwise. A record (or the whole
    text) of more than ``_RUNS_MAX`` runs gives none: its numbers are scattered, and its
    ends would be most of its lines."""
    opens = set(record_starts(raw))
    segments: list[list[tuple[int, int]]] = [[]]  # (line, integer) per record
    other = total = 0
    for i, ln in enumerate(raw):
        if i in opens:
            segments.append([])
            continue
        if not ln.strip():
            continue
        m = _LEADING_INT.match(ln)
        if m is None:
            other += 1
        else:
            segments[-1].append((i, int(m.group(1))))
            total += 1
    if total < 8 or other > (1 - _RUN_SHARE) * (total + other):
        return set()
    out: set[int] = set()
    for seg in segments:
        ends: set[int] = set()
        runs = 0
        for k, (i, n) in enumerate(seg):
            if k and n <= seg[k - 1][1]:
                return set()  # falling numbers inside a record: not offsets
            if k == 0 or n != seg[k - 1][1] + 1:
                runs += 1
                ends.add(i)
                if k:
                    ends.add(seg[k - 1][0])
        if seg:
            ends.add(seg[-1][0])
        if runs <= _RUNS_MAX:
            out |= ends
    return out


def all_openers(raw: list[str]) -> set[int]:
    """Every record's opening line, when the text is at most ``_OPENERS_MAX`` records that
    open alike: which records there are, and which hold nothing (an image identical in
    both folders prints its name and no difference)."""
    opens = record_starts(raw)
    return set(opens) if len(opens) <= _OPENERS_MAX else set()


_BODY_LINES = 40  # a named record brought whole at most this long
_BODIES_MAX = 4  # named records brought at most; more, and the words name none


def record_bodies(raw: list[str], named: set[int], terms=()) -> set[int]:
    """The lines of the records (``record_starts``) holding named lines, each at most
    ``_BODY_LINES`` long, at most ``_BODIES_MAX`` records: the file ``diff -r`` names in its
    header line, with the hunks that say what changed in it. When more records hold named
    lines, those whose opening line and named lines hold the most of the question's
    ``terms`` (at least two; "edge" and "ratelimit" in ``diff -r old/edge/ratelimit.conf …``;
    a doctest call's name and arguments), if few enough."""
    if not named:
        return set()
    opens = record_starts(raw)
    if not opens:
        return set()
    bounds = [*opens, len(raw)]
    held: dict[int, list[int]] = {}  # record -> its named lines
    for i in named:
        if (k := bisect_right(opens, i) - 1) >= 0:
            held.setdefault(k, []).append(i)
    wanted = set(held)
    if len(wanted) > _BODIES_MAX and terms:
        # The question's words its opening line and its named lines hold together: a
        # doctest's "Trying:" opens every record, and the asked call's line holds the
        # function's name and both its arguments ("adjust_shrinkage(74, 57)"), where the
        # other calls of that function hold the name alone and others a number alone.
        said = {}
        for k in wanted:
            said_in = [raw[j].lower() for j in {opens[k], *held[k]}]  # each line lowered once
            said[k] = sum(1 for t in terms if any(t in low for low in said_in))
        most = max(said.values())
        wanted = {k for k, n in said.items() if n == most} if most >= 2 else wanted
    if len(wanted) > _BODIES_MAX:
        return set()
    out: set[int] = set()
    for k in wanted:
        if bounds[k + 1] - bounds[k] <= _BODY_LINES:
            out.update(range(bounds[k], bounds[k + 1]))
    return out - named


# A hash (a commit, an object, a request id): hex digits, letters and digits both (an epoch
# second or a pid opening a log line is no block's id).
_ID_TOKEN = re.compile(r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,64}")
_ID_BACK = 16  # lines above a named line looked at for the id that opens its block
_ID_NAMED = 3  # named lines a block must hold for its id to be followed (author, mail, committer…)
_ID_MAX = 2  # ids followed at most; more, and the words name no one block
_ID_LINES = 120  # lines brought at most


def id_mates(raw: list[str], named: set[int]) -> set[int]:
    """The other lines that open with the id opening the block most named lines fall in
    (half as many again as in any other block), each with the indented line under it: ``git blame --porcelain`` names the author once,
    in the header under the first line a commit blames (author, mail, committer: several
    named lines), and every later line of that commit is its id alone, then the code. A
    block's id is the first word of the nearest line above (or at) a named line that opens
    with a hash. Only ids of blocks holding ``_ID_NAMED`` named lines or more, at most
    ``_ID_MAX`` of them, at most ``_ID_LINES`` lines."""
    if len(named) < _ID_NAMED:
        return set()
    per_id: dict[str, int] = {}
    for i in named:
        for j in range(i, max(-1, i - _ID_BACK), -1):
            word = raw[j][:65].split(" ", 1)[0]
            if _ID_TOKEN.fullmatch(word):
                per_id[word] = per_id.get(word, 0) + 1
                break
    # The blocks holding the most named lines, when they hold more than the others (a word
    # every header says, "core.py", names a few lines of each).
    counts = sorted(per_id.values(), reverse=True)
    top = counts[0] if counts else 0
    ids = {w for w, k in per_id.items() if k == top}
    if top < _ID_NAMED or len(ids) > _ID_MAX or (len(counts) > len(ids) and counts[len(ids)] * 3 > top * 2):
        return set()
    out: set[int] = set()
    for j, ln in enumerate(raw):
        if ln[:65].split(" ", 1)[0] in ids:
            out.add(j)
            # The indented line the id line stands for: right under it, or under the
            # header that follows its first appearance.
            for k in range(j + 1, min(len(raw), j + _ID_BACK)):
                if raw[k][:1] in ("\t", " "):
                    out.add(k)
                    break
            if len(out) > _ID_LINES:
                return set()
    # An id opening no other line is no block's id (a hash inside a log line).
    return out - named if len(out) > 2 * len(ids) else set()


# A commit graph's rails (``git log --graph``): marks and blanks before the commit's text.
_RAILS = re.compile(r"[*|/\\ _.-]*[*|/\\]")
_RAILS_ONLY = re.compile(r"[|/\\ _.-]+")
_RAILS_SHARE = 0.8  # of the sampled nonblank lines that open with rails


def graph_heads(raw: list[str], named: set[int]) -> set[int]:
    """In a drawn commit graph, a named merge brings the commit that heads the lane it
    merges: ``*   841a471 Merge branch 'feature/x'``, then the connector ``|\\``, then
    ``| * 6042e01 <the branch's last commit>``. A merge line is one followed by a line of
    rails alone; the lane's head is the first line after it with a commit mark. None for
    any other text (a sample test first)."""
    if not named:
        return set()
    sample = [ln for ln in raw[:200] if ln.strip()]
    if len(sample) < 8 or sum(1 for ln in sample if _RAILS.match(ln)) < _RAILS_SHARE * len(sample):
        return set()
    out: set[int] = set()
    for i in named:
        if i + 1 < len(raw) and _RAILS_ONLY.fullmatch(raw[i + 1].rstrip() or "x"):
            for k in range(i + 1, min(len(raw), i + 4)):
                out.add(k)
                if "*" in raw[k][:40]:
                    break
    return out - named


# A line's skeleton: each run of letters, digits and "_" one "w", each run of blanks one
# blank; the signs that remain are its shape ("user 'w': w '/w/w' w w w").
_SKELETON_OF = str.maketrans(dict.fromkeys(string.ascii_letters + string.digits + "_", "a"))
_SKELETON_WORDS = re.compile("a+")
_SKELETON_BLANKS = re.compile("[ \t]+")


def skeletons(lines: list[str]) -> list[str]:
    """Each line's skeleton (one join, one translation, two substitutions, one split)."""
    joined = "\n".join(lines).translate(_SKELETON_OF)
    return _SKELETON_BLANKS.sub(" ", _SKELETON_WORDS.sub("w", joined)).split("\n")


# Lines (or records) a shape may hold and still be rare (issue 33: "at most 5 times"); the
# structured selector's rare shapes and forms read the same figure.
SHAPE_RARE = 5
_HEADLINE_RECORDS = 20  # records needed before their headlines say what is common
_HEADLINE_SHARE = 0.5  # of the records one headline shape must hold for the others to be rare


def rare_headlines(raw: list[str], terms) -> set[int]:
    """The headlines (first lines after the opening line) of records of a rare kind that
    hold a word of the question: among sixty ``jsonschema`` errors, forty-seven say "0 is
    less than the minimum of 1" and one says "'sku' is a required property"; "which order
    is missing its SKU" names that record, whose instance (further down, after the schema)
    holds the order id. The caller brings the records' bodies (``record_bodies``)."""
    opens = record_starts(raw)
    if len(opens) < _HEADLINE_RECORDS or not terms:
        return set()
    bounds = [*opens, len(raw)]
    heads = [next((j for j in range(a + 1, b) if raw[j].strip()), None) for a, b in pairwise(bounds)]
    shapes = skeletons([raw[j] if j is not None else "" for j in heads])
    counts = Counter(k for k in shapes if k.strip())
    if not counts or counts.most_common(1)[0][1] < _HEADLINE_SHARE * len(opens):
        return set()
    rare = [j for j, k in zip(heads, shapes) if j is not None and k.strip() and counts[k] <= SHAPE_RARE]
    # A question word as a whole word ("_" may touch it: "gift" in "gift_wrap"), however many hold it.
    return {rare[i] for i in rows_naming([raw[j] for j in rare], terms, len(rare), edge="a-z0-9")}
