"""LogCompressor: build/test output, application logs and JSON-lines logs.

What an agent needs from a log is almost always the failures, their stack traces and
the totals. So we keep, in original order: every error line (first occurrence of each
error *template*, with a count when it repeats) and a few lines around it, whole stack
traces (the middle of very long ones trimmed with a count), test summaries, lines naming
an anchor from the question, and the first/last lines. Warnings are summarised (one line
per distinct warning template with its count), repeated lines collapse to one line with
"… repeated N times", and the rest is dropped with a "… N lines omitted" gap line.

A template is the line with numbers, hex ids, UUIDs and timestamps masked, so
"request 123 took 45ms" and "request 124 took 46ms" count as the same line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter

from ..query.intent import content_lemmas, intents_of, names_content_word
from ..query.order import asks_neighbour, neighbours, pointed_lines
from ..query.said_numbers import rows_holding, said_numbers, written_numbers
from ..toin import steer as toin_steer
from .base import Compressed, CompressInput
from .flat_paths import flat_path_lines
from .line_shapes import mark_turns, rare_shape_lines
from .odd_members import odd_members
from .operand_order import operand_lines
from .spread_order import spread_order
from .tables.select import RARE_MAX_DISTINCT, RARE_MIN_ROWS, code_numbers, rare_value_rows
from .templates import (
    WILDCARD,
    TemplateMiner,
    describe,
    display,
    extreme_rows,
    header_tokens,
    key_of,
    keys_of,
)
from .text_records import (
    colon_heads,
    depth_ancestors,
    graph_heads,
    id_mates,
    indent_family,
    indent_heads,
    mark_run_ends,
    numbered_mates,
    record_bodies,
    record_heads,
    record_mates,
    subtree_words,
)

_MIN_LINES = 12  # shorter logs are cheaper to send whole
_CROWDED_ONE_OFFS = 0.2  # of the lines one-offs must be for rare shapes among them to be read
_CONTEXT = 2  # lines kept before and after an error
_HEAD, _TAIL = 3, 3
_ANCHORED = 0.25  # priority of a line the question names: after errors, before one-offs
_INTENT_EDGE = 10  # lines kept at the start/end when the question asks for the first/last
_ANCHOR_LIMIT = 60  # an anchor in more lines than this is the search term itself
_SMALL_CLUSTER = 10  # a cluster of at most this many one-off lines keeps them as one-offs
_FEW_KEYS = 4  # a cluster of at most this many frequent keys shows each key's first line
_WORD_HIT_MIN, _WORD_HIT_SHARE = 10, 0.02  # a question word in at most this many lines is a lead
_DESCRIBE_ROWS = 600  # rows a "what varies" summary reads (first, last and a spread)
_TOP_K = 20  # lines kept per numeric column for "largest/slowest" questions
# A number alone in its token, or in parentheses of its own (radon's "- B (7)"); not in
# brackets, which hold a log's process ids ("[12345]"), no quantity to rank.
_PLAIN_NUMBER = re.compile(r"^(?P<open>\()?-?\d+(?:\.\d+)?(?(open)\))$")
_ASKED_MAX_SHARE = 0.2  # a cluster the question names, up to this share of the log
_GAP_COST = 4  # tokens of the "… N lines omitted" line a kept line may bring along
# The token ceiling of the kept lines: this share of the log, at least the floor, at most
# the cap (the cap scales with router.log_max_lines against its default).
_CEILING_SHARE, _CEILING_FLOOR, _CEILING_CAP = 0.2, 600, 6000
# When one-off templates are the information (a desktop or system log with hundreds of
# them), the budget follows them: one-offs may use up to this share of the log (so the
# output still saves about two thirds), at most this many tokens, before any is left out.
_ONE_OFF_SHARE, _ONE_OFF_CAP = 0.3, 24_000
# Severity of a one-off line by its level word: what a ranking of one-offs that cannot all
# fit looks at first (then rarity of its cluster, then words no other template uses).
_SEVERITY = re.compile(r"\b(?:(EMERG|ALERT|FATAL|PANIC|CRIT(?:ICAL)?)|(ERR(?:OR)?|SEVERE)|(WARN(?:ING)?)|(NOTICE))\b",
                       re.IGNORECASE)
_DEFAULT_MAX_LINES = 60
_VITAL_CEILING = 2  # priorities up to 1 (one-offs, exemplars, warnings) may use this x the ceiling
_VITAL_MAX_SHARE = 0.25  # … while one-off lines are at most this share of the log
_CONTEXT_CEILING = 0.75  # priorities above 1 (context, head/tail, variants) may use this x the ceiling
_TRACE_KEEP_HEAD, _TRACE_KEEP_TAIL = 6, 8  # a long trace keeps its top and its bottom
_DIFF_TAIL = 8  # "- a" / "+ b" lines after a trace's exception line kept with it
_MAX_LINE_CHARS = 2000  # one giant line (minified JSON, base64) is cut, not kept whole

_ERROR = re.compile(
    r"\b(?:errors?|err!|fatal|critical|crit|exception|failed|failures?|fail|panic(?:ked)?|"
    r"segmentation fault|aborted|traceback|assertionerror|uncaught|unhandled)\b|"
    r"^E\s{2,}\S|\berror\[\w+\]",
    re.IGNORECASE,
)
# "0 errors", "no failures", "errors: 0": the word is there, the problem is not.
_NOT_ERROR = re.compile(
    r"\b(?:0|no|zero)\s+(?:errors?|failures?|failed)\b|\b(?:errors?|failures?|failed)\s*[:=]\s*0\b", re.IGNORECASE
)
# Warnings: the word itself, phrases of a refused or impossible step ("policy-rc.d
# denied execution", "unable to initialize frontend", "could not resolve host"), and a
# test that did not run (unittest's "... skipped 'reason'", pytest's SKIPPED).
_WARNING = re.compile(
    r"\b(?:warn(?:ing)?s?|deprecat\w*|denied|refused|unable to|cannot|can't|could not|couldn't|"
    r"not found|timed out)\b|\.\.\. skipped\b|\bSKIPPED\b",
    re.IGNORECASE,
)
_NOT_WARNING = re.compile(r"\b(?:0|no)\s+warnings?\b|\bwarnings?\s*[:=]\s*0\b", re.IGNORECASE)
# A JSON record's level: a field, whatever it is called, whose whole value is a level word.
_JSON_LEVEL = re.compile(r"\"[^\"\n]{1,40}\"\s*:\s*\"(trace|debug|info|notice|warn|warning|error|err|fatal|critical|crit|"
                         r"panic|alert|emerg|emergency)\"", re.IGNORECASE)
_JSON_ERROR_LEVELS = frozenset({"error", "err", "fatal", "critical", "crit", "panic", "alert", "emerg", "emergency"})
_SUMMARY = re.compile(
    r"^=+ .*\b(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|no tests ran)\b.*=+\s*$|"
    r"\b\d+ (?:passed|failed|failing|passing|pending|skipped|errors?)\b|"
    r"^\s*(?:Tests|Test Suites|Snapshots|Test Files|Time):\s+\S|"
    r"\bTests run: \d+, Failures: \d+|"
    r"\btest result: (?:ok|FAILED)\.|"
    r"^(?:ok|FAIL|PASS)\s+\S+\s+[\d.]+m?s\b|"
    r"\bBUILD (?:SUCCESS(?:FUL)?|FAILURE|FAILED)\b|"
    r"short test summary info|^\s*Finished\b.*\btarget|^\s*Ran \d+ tests? in",
    re.IGNORECASE,
)
_PYTEST_SECTION_MAX = 200
_PYTEST_SECTION = re.compile(r"^_{3,} .+ _{3,}\s*$")
_PYTEST_BANNER = re.compile(r"^(?:_{3,}|={3,}) .+ (?:_{3,}|={3,})\s*$")
_PY_TRACE_START = re.compile(r"^\s*Traceback \(most recent call last\):")
_FRAME = re.compile(
    r"^\s+at [\w.$<>/\\\[\]-]+|^\s+File \"|^\s*Caused by:|^\s+\.\.\. \d+ more|^\s+\S.*\(\S+:\d+(?::\d+)?\)\s*$"
)
def template_of(line: str) -> str:
    """The line with its variable parts masked, so similar lines compare equal."""
    return key_of(line).strip()


@dataclass(slots=True)
class _Line:
    text: str
    template: str
    kind: str  # error | warning | summary | other


# Substrings one of the patterns below needs. Most lines have none; finding them with
# str.find over the lowered text is about 25x faster than a case-insensitive regex
# alternation per line, so only lines with a hit pay for the patterns.
_KEYWORDS = (
    "err", "fatal", "crit", "exception", "fail", "panic", "segmentation", "abort", "traceback",
    "uncaught", "unhandled", "warn", "deprecat", "pass", "pending", "skipped", "tests:", "tests run", "test ",
    "time:", "snapshots", "build ", "summary", "finished", "ran ", "ok ", "deselected",
    "denied", "refused", "unable to", "cannot", "can't", "could not", "couldn't", "not found", "timed out",
)
_LEVEL_NAMES = ("notice", "info", "debug", "trace")


def _classify(template: str) -> str:
    """The kind of a template that names a keyword. "0 errors" is refined per line in
    ``_kind``."""
    if template.startswith("{"):
        values = {m.group(1).lower() for m in _JSON_LEVEL.finditer(template)}
        if values:
            # A structured record says its level (the most severe level word among its
            # values, whatever the fields are called); an "error": null field in an info
            # record is not a failure.
            if values & _JSON_ERROR_LEVELS:
                return "error"
            if any(v.startswith("warn") for v in values):
                return "warning"
            return "other"
    if _SUMMARY.search(template):
        return "summary"
    if _ERROR.search(template):
        return "error"
    if _WARNING.search(template):
        return "warning"
    return "other"


def _line_of(starts: list[int], pos: int) -> int:
    return bisect_right(starts, pos) - 1


def _lines_naming(low: str, starts: list[int], words, whole_word: bool = False,
                  limit: int | None = None, word_start: bool = False) -> dict[int, str]:
    """Line index -> a word of ``words`` found in it (first in ``words`` order wins).
    With ``limit``, stops once more than ``limit`` lines are found (the caller only
    wants selective words). ``word_start``: a stem found where a word starts ("read" in
    ``libc_read`` and ``read.c``, not in "thread")."""
    found: dict[int, str] = {}
    for w in words:
        i = low.find(w)
        while i != -1:
            end = i + len(w)
            if word_start and i > 0 and low[i - 1].isalnum():
                pass
            elif not whole_word or ((i == 0 or not low[i - 1].isalnum()) and (end >= len(low) or not low[end].isalnum())):
                found.setdefault(_line_of(starts, i), w)
                if limit is not None and len(found) > limit:
                    return found
            i = low.find(w, end)
    return found


def _kind(raw: str, template_kind: str) -> str:
    """Masking hides the digit that makes "0 errors" harmless; check the raw line."""
    if template_kind == "error" and _NOT_ERROR.search(raw):
        return "warning" if _WARNING.search(raw) and not _NOT_WARNING.search(raw) else "other"
    if template_kind == "warning" and _NOT_WARNING.search(raw):
        return "other"
    return template_kind


def _trace_spans(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) inclusive index ranges of stack traces.

    A Python trace runs from "Traceback (most recent call last):" to the first
    unindented line after it (the exception line, included). A Java/JS trace is a run of
    frame lines ("at …", "Caused by:", "... N more"), preceded by its exception line. A
    pytest failure section runs from its "____ test_name ____" banner to the next banner.
    """
    spans: list[tuple[int, int]] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        first = line[:1]
        if first == "_" and _PYTEST_SECTION.match(line):
            # A pytest failure section: from its "____ test_x ____" banner to the next banner.
            j = i + 1
            while j < n and j - i <= _PYTEST_SECTION_MAX and not _PYTEST_BANNER.match(lines[j]):
                j += 1
            if j - i <= _PYTEST_SECTION_MAX:
                spans.append((i, j - 1))
                i = j
                continue
            # Longer than any failure report: an unrelated banner. Its lines are
            # classified one by one like the rest of the log.
        if first not in (" ", "\t", "T", "C"):
            i += 1  # cheap exit: a trace line starts with space, "Traceback" or "Caused by"
            continue
        if _PY_TRACE_START.match(line):
            j = i + 1
            while j < n and (lines[j][:1] in (" ", "\t") or not lines[j].strip()):
                j += 1
            end = min(j, n - 1)
            spans.append((i, end))
            i = end + 1
            continue
        if _FRAME.match(line) and not line.lstrip().startswith("File \""):
            j = i
            while j + 1 < n and _FRAME.match(lines[j + 1]):
                j += 1
            if j - i + 1 >= 2:
                spans.append((_trace_head(lines, i), j))
                i = j + 1
                continue
        i += 1
    return spans


_TRACE_HEAD_MAX = 3  # indented lines between a trace's head and its first frame


def _trace_head(lines: list[str], first_frame: int) -> int:
    """Where a run of frames starting at ``first_frame`` begins: the line before it (the
    exception), or, over up to ``_TRACE_HEAD_MAX`` indented lines (a thread's state line in
    a JVM thread dump), the unindented line that names what the frames belong to."""
    k = first_frame - 1
    if k < 0 or not lines[k].strip() or _FRAME.match(lines[k]):
        return first_frame
    top = k
    while top >= 0 and first_frame - top <= _TRACE_HEAD_MAX and lines[top][:1] in (" ", "\t") \
            and lines[top].strip() and not _FRAME.match(lines[top]):
        top -= 1
    if top < k and top >= 0 and lines[top].strip() and lines[top][:1] not in (" ", "\t"):
        return top  # the head over the indented lines
    return k


class _Selection:
    """Lines chosen so far: index -> priority (lower is more important), plus the count
    notes shown after some of them."""

    def __init__(self, n: int):
        self.n = n
        self.keep: dict[int, float] = {}
        self.notes: dict[int, str] = {}
        self.members: dict[int, list[int]] = {}  # a noted line -> the rows its note counts

    def mark(self, i: int, prio: float) -> None:
        if 0 <= i < self.n and (i not in self.keep or self.keep[i] > prio):
            self.keep[i] = prio


@dataclass
class _Lowered:
    """The log lowered once, with each line's start offset, for str.find scans."""

    text: str
    starts: list[int]

    @classmethod
    def of(cls, raw: list[str]) -> _Lowered:
        starts, pos = [], 0
        for t in raw:
            starts.append(pos)
            pos += len(t) + 1
        return cls("\n".join(raw).lower(), starts)

    def anchored(self, anchors, limit: int) -> set[int]:
        """Lines naming a selective anchor (one in at most ``limit`` lines), like
        ``text.anchored_indices`` but one str.find scan per term, not a lower() per line."""
        out: set[int] = set()
        found: list[str] = []
        # Longest first: a part of a term that names lines ("16" of "wal-16") names nothing
        # more exactly than the whole, and as a substring it is in half the lines.
        for term in sorted(anchors.terms, key=lambda t: (-len(t), t)) if anchors else ():
            if any(term in longer for longer in found):
                continue
            hits = set(_lines_naming(self.text, self.starts, (term,), limit=limit))
            if len(hits) <= limit:
                out |= hits
            if hits:
                found.append(term)
        return out


def _classify_lines(raw: list[str]) -> tuple[list[_Line], Counter[str]]:
    """Every line with its template and kind, and the count of each plain level word.

    Keywords and level words hold no digits, so they are looked for once per distinct
    key (in the joined, lowered keys), and only keys naming a keyword run the patterns.
    """
    keys = _passing_tests_as_one(raw, keys_of(raw))
    distinct = list(dict.fromkeys(keys))
    lowered = _Lowered.of(distinct)
    keyworded = _lines_naming(lowered.text, lowered.starts, _KEYWORDS)
    level_of = {distinct[j]: w for j, w in
                _lines_naming(lowered.text, lowered.starts, _LEVEL_NAMES, whole_word=True).items()}
    kind_of = {k: _classify(k) for j, k in enumerate(distinct)
               if j in keyworded or k[:2] == "E " or k[:1] == "{"}
    lines: list[_Line] = []
    levels: Counter[str] = Counter()
    for t, tpl in zip(raw, keys):
        cls = kind_of.get(tpl)
        kind = _kind(t, cls) if cls is not None else "other"
        lines.append(_Line(t, tpl, kind))
        if tpl in level_of and kind not in ("error", "warning"):
            levels[level_of[tpl]] += 1
    return lines, levels


def _rare_level_lines(lines: list[_Line], levels: Counter[str], rare_max: int) -> list[int]:
    """Lines of a level heard at most ``rare_max`` times in a log that uses several (the
    only NOTICE among thousands of INFO lines, two warnings): kept whatever their template,
    like a record's rare level value. Errors keep their own rule."""
    counts = Counter({"warning": sum(ln.kind == "warning" for ln in lines)}) + levels
    rare = {w for w, c in counts.items() if 0 < c <= rare_max}
    if not rare or len(+counts) < 2:
        return []
    words = {w for w in rare if w != "warning"}
    out = []
    for i, ln in enumerate(lines):
        if (ln.kind == "warning" and "warning" in rare) or \
                (words and ln.kind == "other" and any(_has_word(ln.template.lower(), w) for w in words)):
            out.append(i)
    return out


_LEAD_FIELDS = 3
_LEAD_KINDS = 8  # first-field values at most, for the first field to be a kind of line


def _rare_lead_lines(raw: list[str]) -> list[int]:
    """Lines whose first fields hold a rare value of a field of few values: a status or kind
    column found by its distribution, whatever it holds (``git status --porcelain=v2``'s
    one "u" line among a hundred "1" lines, its one ".D" among a hundred ".M", where every
    line is a template of its own)."""
    idx = [i for i, ln in enumerate(raw) if ln[:1].strip()]
    # Most logs open each line with a time: their first 200 first fields already hold more
    # values than a kind column may, and no line needs splitting further.
    if len({raw[i].split(None, 1)[0] for i in idx[:200]}) > _LEAD_KINDS:
        return []
    # The first fields alone, by C-level maps: in a log of kinds of line with more than a
    # kind column's few values (apt's "Unpacking", "Setting up", "Processing" ...), no
    # line needs splitting further (3 500 lines of apt: ~4 -> ~2.4 ms; issue 34).
    firsts = list(map(itemgetter(0), map(str.split, [raw[i] for i in idx], repeat(None), repeat(1))))
    out = {idx[k] for k in rare_value_rows([tuple(firsts)], len(idx))}
    # The next fields among the lines of the usual first field (the "1" lines of changed
    # paths, not the few header lines): each field capped on its own.
    kinds = Counter(firsts)
    if not firsts or len(kinds) > _LEAD_KINDS:
        return sorted(out)  # the first field is no kind (a timestamp): no kind's fields to read
    usual = kinds.most_common(1)[0][0]
    main = [k for k, w in enumerate(firsts) if w == usual]
    heads = [raw[idx[k]].split(None, _LEAD_FIELDS)[:_LEAD_FIELDS] for k in main]
    for f in range(1, _LEAD_FIELDS):
        col = tuple(h[f] if f < len(h) else None for h in heads)
        out.update(idx[main[j]] for j in rare_value_rows([col], len(main)))
    return sorted(out)


_TAB_COLUMNS = 3  # columns ``comm`` prints, one more tab each
_HEAD_LINES = 200  # first lines read to decide whether the whole text is worth reading


def _rare_tab_column_lines(raw: list[str]) -> list[int]:
    """Lines of a rare tab column: where lines are set in columns by leading tabs alone
    (``comm``: only in the first file, only in the second after one tab, in both after
    two), at most ``_TAB_COLUMNS`` of them, the lines of a column that few hold (the hosts
    added or retired among hundreds kept). Read only when a first line opens with a tab."""
    if not any(ln[:1] == "\t" for ln in raw[:_HEAD_LINES]):
        return []
    idx = [i for i, ln in enumerate(raw) if ln.strip()]
    tabs = tuple(len(raw[i]) - len(raw[i].lstrip("\t")) for i in idx)
    if len(set(tabs)) > _TAB_COLUMNS or any(raw[i][t:t + 1].isspace() for i, t in zip(idx, tabs)):
        return []  # other indents: blanks, or more levels (a tree, code), not columns
    return [idx[k] for k in rare_value_rows([tuple(f"column {t}" for t in tabs)], len(idx))]


def _has_word(text: str, word: str) -> bool:
    k = text.find(word)
    while k != -1:
        end = k + len(word)
        if (k == 0 or not text[k - 1].isalnum()) and (end >= len(text) or not text[end].isalnum()):
            return True
        k = text.find(word, end)
    return False


# A passing test in a verbose test run (unittest's "name (module.Class.name) ... ok",
# pytest's "path::name PASSED"): the test's name is what varies, so every passing line
# is one template, and skips and failures stay the rare lines they are.
_PASSING_TEST = re.compile(r"^\S+ \([\w.]+\)(?: \S.*)? \.\.\. ok$|^\S+::\S+ PASSED\b")
_PASSING_KEY = "<test> ... ok"
# unittest prints a test with a docstring (and a doctest) on two lines: "name (id)", then
# the docstring's first line (or "Doctest: x") with the result.
_TEST_ID_ONLY = re.compile(r"^\S+ \([\w.]+\)$")


def _passing_tests_as_one(raw: list[str], keys: list[str]) -> list[str]:
    out = [_PASSING_KEY if (t.endswith(" ... ok") or " PASSED" in t) and _PASSING_TEST.match(t) else k
           for t, k in zip(raw, keys)]
    for i in [i for i, t in enumerate(raw) if i and t.endswith(" ... ok")]:
        if out[i] != _PASSING_KEY and _TEST_ID_ONLY.match(raw[i - 1]):
            out[i - 1] = out[i] = _PASSING_KEY
    return out


def _select_traces(raw: list[str], traces: list[tuple[int, int]], sel: _Selection) -> dict[int, int]:
    """Keep short traces whole, long ones head + tail + cause chain; line -> trace id."""
    trace_of: dict[int, int] = {}
    for t, (s, e) in enumerate(traces):
        short = e - s + 1 <= _TRACE_KEEP_HEAD + _TRACE_KEEP_TAIL + 1
        for i in range(s, e + 1):
            trace_of[i] = t
            # The cause chain ("Caused by: …" and its first frame) is the point of a
            # long Java trace, wherever it sits.
            cause = raw[i].lstrip().startswith("Caused by:") or (i > s and raw[i - 1].lstrip().startswith("Caused by:"))
            if short or i < s + _TRACE_KEEP_HEAD or i > e - _TRACE_KEEP_TAIL or cause:
                sel.mark(i, 0.25)  # an error's explanation: right after the errors
        # unittest prints the two sides of a failed equality after the exception line
        # ("- expected", "+ actual", "? ^"): part of the message.
        j = e + 1
        while j < len(raw) and j <= e + _DIFF_TAIL and raw[j][:2] in ("- ", "+ ", "? "):
            sel.mark(j, 0.25)
            j += 1
    return trace_of


_NAMED_TRACES = 4  # traces a question's lines may name and bring whole; more name none in particular
_NAMED_TRACE_LINES = 40  # a named trace longer than this keeps what the trace selection keeps


def _named_traces(traces: list[tuple[int, int]], trace_of: dict[int, int], named: set[int]) -> list[int]:
    """The lines of the short traces holding a named line, for at most ``_NAMED_TRACES``."""
    ids = {trace_of[i] for i in named if i in trace_of}
    if not ids or len(ids) > _NAMED_TRACES:
        return []
    return [i for t in sorted(ids) for s, e in (traces[t],) if e - s < _NAMED_TRACE_LINES for i in range(s, e + 1)]


def _select_by_kind(lines: list[_Line], in_trace, anchored: set[int], text_counts: Counter[str],
                    sel: _Selection, rare_max: int) -> None:
    """Errors, summaries, anchors. An error template seen at most ``rare_max`` times keeps
    every line (rare stays verbatim: three failures that differ in a user id are three
    facts); a more frequent one keeps its first line, with context and a note saying how
    many lines it stands for and what varies in them. Warnings and the rest are selected
    by template rarity (``_select_templates``)."""
    error_rows: dict[str, list[int]] = {}
    for i, ln in enumerate(lines):
        if ln.kind == "error" and i not in in_trace:
            error_rows.setdefault(ln.template, []).append(i)
        elif ln.kind == "summary":
            sel.mark(i, 0)
        if i in anchored:
            # Right after errors: a question that quotes a whole log names dozens of its
            # lines, and they must not push a one-off failure out of view.
            sel.mark(i, _ANCHORED)
    for tpl, rows in error_rows.items():
        shown = rows if len(rows) <= rare_max else rows[:1]
        for i in shown:
            sel.mark(i, 0)
            for k in range(i - _CONTEXT, i + _CONTEXT + 1):
                sel.mark(k, 3)
        if len(shown) < len(rows):
            first = rows[0]
            sel.notes[first] = _count_note(text_counts, lines[first].text, len(rows), tpl,
                                           [lines[k].text for k in _spread_rows(rows)])
            sel.members[first] = rows


@dataclass
class _TemplateStats:
    templates: int = 0
    one_offs: list[int] = field(default_factory=list)  # line indices of one-off templates
    # rare line (a one-off, or a key seen at most rare_max times in a cluster of its own)
    # -> its key, for ranking them when not all fit (``rank_one_offs``)
    key_of_one_off: dict[int, str] = field(default_factory=dict)
    miner: TemplateMiner | None = None
    summarised: int = 0  # frequent clusters shown as one exemplar
    folded_lines: int = 0  # lines those exemplars stand for


def _select_templates(lines: list[_Line], in_trace, text_counts: Counter[str], sel: _Selection,
                      intents: frozenset[str], query: str = "", rare_max: int = 5) -> _TemplateStats:
    """Rare templates whole, one exemplar (with count and what varies) per frequent one.

    Keys are clustered (Drain). A key seen at most ``rare_max`` times is rare and all its
    lines are kept: at priority 1 when its whole cluster is rare too (an event unlike the
    rest of the log), at priority 3 when it is a variant of a frequent cluster ("Setting up
    <package> …" for the 300th package), so real one-offs win the budget. Each frequent
    cluster shows its first line with a note like
    ``… 312 similar lines (10:02:11–10:59:58; from: 14 distinct)`` (the template,
    ``"connection from <*> closed"``, only when nothing that varies can be named),
    and a cluster of a few frequent keys ("frontend: Dialog", "frontend: Readline") shows
    the first line of each key too.
    """
    n = len(lines)
    rows_of: dict[str, list[int]] = {}
    for i, ln in enumerate(lines):
        if ln.kind in ("other", "warning") and i not in in_trace and ln.text.strip():
            rows_of.setdefault(ln.template, []).append(i)
    rare_max = max(rare_max, n // 1000)
    stats = _TemplateStats(templates=len(rows_of))
    miner = TemplateMiner(header=header_tokens(list(rows_of)))
    for key, rows in rows_of.items():
        miner.add(key, len(rows))
    stats.miner = miner
    for key, rows in rows_of.items():
        if len(rows) > rare_max:
            continue
        if len(rows) == 1:
            stats.one_offs.append(rows[0])
            stats.key_of_one_off[rows[0]] = key
        # A question about rare events lifts templates seen a few times too. Variants of
        # bigger clusters go later (3.1 … 3.3): "Creating group polkitd" (a cluster of 5)
        # before "Setting up libfoo" (a cluster of 400).
        size = miner.cluster_of(key).count
        # A small cluster of one-offs ("MASTER <-> REPLICA sync: <*>" five times, each
        # with another step) is a run of distinct events, not a frequent one.
        # So is the odd variant of a frequent event when the cluster has few variants
        # ("flags=M" once among 42 "flags=N" closes: the master's connection).
        cluster = miner.cluster_of(key)
        # A rare key of a small cluster or of a cluster of few keys (debconf's "falling back
        # to frontend: Teletype", four times) is a rare event and stays in view like a
        # one-off; a rare key of a cluster of many keys is a variant ("Setting up <pkg>").
        own = size <= max(rare_max, _SMALL_CLUSTER) or len(cluster.keys) <= _FEW_KEYS
        prio = 1 if own else 3.1 if size <= 30 else 3.2 if size <= 300 else 3.3
        for i in rows:
            sel.mark(i, prio)
            if own:  # ranked with the one-offs when not all rare lines fit
                stats.key_of_one_off[i] = key
    for key, rows in rows_of.items():
        if lines[rows[0]].kind == "warning":
            sel.mark(rows[0], 0.5)  # every kind of warning, once, before the one-offs
    asked = content_lemmas(query)
    for c in miner.clusters:
        if asked and 1 < c.count <= _ASKED_MAX_SHARE * n and any(names_content_word(t, asked) for t in c.tokens
                                         if t != WILDCARD and "#" not in t):
            # The question names this kind of event ("which packages were upgraded?"
            # and "… upgrade libcap2 …"): its lines come right after the one-offs. A
            # word found in most of the log ("worker" in a worker's log) names nothing.
            for k in c.keys:
                for i in rows_of[k]:
                    sel.mark(i, 1.5)
        if c.count <= rare_max:
            continue
        rows = sorted(i for k in c.keys for i in rows_of[k]) if len(c.keys) > 1 else rows_of[c.keys[0]]
        first, last = rows[0], rows[-1]
        sel.mark(first, 1)
        frequent_keys = [k for k in c.keys if len(rows_of[k]) > rare_max]
        if 1 < len(frequent_keys) <= _FEW_KEYS:
            for k in frequent_keys:
                sel.mark(rows_of[k][0], 1)
        if "last" in intents or "change" in intents:
            sel.mark(last, 1)
        if "last" in intents or "first" in intents:
            # A map of versions to publish times is not in time order: the newest
            # entry is the one with the latest timestamp, not the last line.
            for k in _time_extremes([lines[i].text for i in rows], "last" in intents, "first" in intents):
                sel.mark(rows[k], 1)
        if "extreme" in intents:
            for k in extreme_rows(c.tokens, [lines[i].text for i in rows]):
                sel.mark(rows[k], 1)
        # A rare value of a position of few values (FLAGS="0x4" once among 107 "0x0", the one
        # EFI type among Linux data partitions) is a rare event however the rest repeats: it
        # stays beside the one-offs instead of being counted in the note (issue 33).
        for k in _rare_slot_rows(c.tokens, [lines[i].text for i in rows]):
            sel.mark(rows[k], 1)
            stats.key_of_one_off.setdefault(rows[k], lines[rows[k]].template)
        stats.summarised += 1
        stats.folded_lines += len(rows)
        sel.members[first] = rows
        sel.notes[first] = _template_note(c.tokens, [lines[i].text for i in _spread_rows(rows)], rows,
                                          text_counts, lines[first].text)
    return stats


_SLOT_SAMPLE = 200  # rows read to tell a position of few values from one of many


def _rare_slot_rows(tokens: list[str], texts: list[str]) -> list[int]:
    """Rows of a frequent template holding a rare value of a wildcard position whose values
    are few (a flag, a type, a status: found by their distribution, whatever the field is
    called). Positions are first told apart on a sample of rows, so a template whose every
    position varies freely (times, ids) costs one split of the sample."""
    slots = [i for i, t in enumerate(tokens) if t == WILDCARD or "#" in t]
    if not slots or len(texts) < RARE_MIN_ROWS:
        return []
    width = len(tokens)
    sample = [p for p in map(str.split, texts[:_SLOT_SAMPLE]) if len(p) == width]
    few = [i for i in slots if len({p[i] for p in sample}) <= RARE_MAX_DISTINCT]
    if not few:
        return []
    split = list(map(str.split, texts))
    at = [k for k, p in enumerate(split) if len(p) == width]
    if len(at) != len(split):
        split = [split[k] for k in at]
    # The few positions' cells of every row, picked and transposed in C.
    picked = list(map(itemgetter(*few), split))
    columns = list(zip(*picked)) if len(few) > 1 else [tuple(picked)]
    return [at[j] for j in rare_value_rows([c for c in columns if not _measures(c)], len(at))]


_KEY_OF_VALUE = re.compile(r"[\w.-]+")


def _value_of(cell: str) -> str:
    """A cell's value: ``omem=20504`` -> ``20504``, ``(30),`` -> ``30`` (string methods and a
    full match only: linear on any cell)."""
    key, eq, rest = cell.partition("=")
    if eq and _KEY_OF_VALUE.fullmatch(key):
        cell = rest
    return cell.strip("\"'(),;")


def _measures(column: tuple[str, ...]) -> bool:
    """A position whose values are numbers that measure (a duration, a size, a count), not
    codes: its rare values are a tail, not events (``code_numbers`` tells them apart)."""
    # Read on the distinct values: whether each is a number, and how many there are, is all
    # that decides (a column of ten thousand cells holds a few dozen values at most here).
    values = tuple({_value_of(v) for v in set(column)})
    if not all(map(_PLAIN_NUMBER.match, values)):
        return False
    return not code_numbers(values)


def rank_one_offs(stats: _TemplateStats, raw: list[str]) -> dict[int, tuple]:
    """Where each one-off line stands when not all of them fit (lower first): the most
    severe level word first, then the rarest cluster (a template unlike any other before a
    variant of a frequent one), then the most words no other template uses (novelty).
    Computed only when needed: most logs' one-offs all fit."""
    miner = stats.miner
    assert miner is not None
    word_keys: Counter[str] = Counter()  # distinct keys each word occurs in
    for c in miner.clusters:
        for k in c.keys:
            word_keys.update(set(k.split()))
    out: dict[int, tuple] = {}
    for i, key in stats.key_of_one_off.items():
        m = _SEVERITY.search(raw[i], 0, 200)
        severity = next((k for k, g in enumerate(m.groups()) if g), 4) if m else 4
        novel = sum(1 for w in set(key.split()) if word_keys[w] == 1 and "#" not in w)
        out[i] = (severity, miner.cluster_of(key).count, -novel)
    return out


_ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?")


def _time_extremes(texts: list[str], latest: bool, earliest: bool) -> set[int]:
    """Rows holding the latest / earliest ISO timestamp when the rows are not already in
    time order (then the first and last rows are those). ISO timestamps of one zone and
    format sort as strings; rows whose stamps differ in length or zone are left alone."""
    if len(texts) < 3:
        return set()
    # A row without a stamp settles it: the rest are not searched (git blame's commit
    # lines, asked for the last change: every frequent cluster's rows, each searched).
    stamps: list[str] = []
    for t in texts:
        m = _ISO_TIME.search(t)
        if m is None:
            return set()
        stamps.append(m.group(0))
    if len({len(s) for s in stamps}) != 1 or len({s[19:].lstrip(".,0123456789") for s in stamps}) > 1:
        return set()
    order = sorted(range(len(stamps)), key=stamps.__getitem__)
    if order == list(range(len(stamps))):
        return set()
    return ({order[-1]} if latest else set()) | ({order[0]} if earliest else set())


def _longest_anchor_lines(lowered: _Lowered, anchors, most: int = 4) -> set[int]:
    """The lines naming the question's longest anchor ("feature/checkout-10", not its "10"),
    when at most ``most`` lines do."""
    terms = sorted(anchors.terms, key=len) if anchors else []
    if not terms or len(terms[-1]) < 4:
        return set()
    hits = _lines_naming(lowered.text, lowered.starts, (terms[-1],), limit=most)
    return set(hits) if len(hits) <= most else set()


def _lines_naming_content_words(lowered: _Lowered, query: str, n: int) -> set[int]:
    """Lines naming a content word of the question that few lines name ("where does the
    pinentry alternative point?" -> the two pinentry lines): a word in more than
    ``max(10, 2 %)`` of the lines (the log's own vocabulary) is not a lead."""
    out: set[int] = set()
    limit = max(_WORD_HIT_MIN, round(_WORD_HIT_SHARE * n))
    for w in sorted(content_lemmas(query)):
        if len(w) < 4:
            continue
        hits = _lines_naming(lowered.text, lowered.starts, (w,), limit=limit, word_start=True)
        if not hits and "-" in w:
            # A hyphenated word no line holds, by its parts: "hard-reset" is git's "reset:"
            # (a word the lines do hold, "media-worker", names its own lines only).
            for part in w.split("-"):
                if len(part) >= 4:
                    part_hits = _lines_naming(lowered.text, lowered.starts, (part,), limit=limit, word_start=True)
                    if len(part_hits) <= limit:
                        hits.update(part_hits)
        if len(hits) <= limit:
            out.update(hits)
    return out


_FAMILY_FIELDS = 3  # leading blank-separated fields a family's members are compared on
_FAMILY_MIN = 8  # members a family needs for one to be odd
_FAMILY_USUAL = 0.8  # of the members the usual value holds, for the others to be odd
_FAMILY_ODD = 4  # odd members kept per question word, at most
_FAMILY_MAX_SHARE = 0.9  # a word on more of the lines is the log's own vocabulary, no family
_FAMILY_MAX_LINES = 4000  # a larger family is read no further (a split a line, on a long log)


def _word_families(lowered: _Lowered, query: str | None, n: int) -> dict[str, set[int]]:
    """The lines each content word of the question (four letters or more) starts a word on,
    for words on at most ``_FAMILY_MAX_SHARE`` of the lines (read once for the readings of
    families below)."""
    if not query:
        return {}
    most = min(int(_FAMILY_MAX_SHARE * n), _FAMILY_MAX_LINES)
    out: dict[str, set[int]] = {}
    for w in sorted(content_lemmas(query)):
        if len(w) >= 4:
            hits = _lines_naming(lowered.text, lowered.starts, (w,), limit=most, word_start=True)
            if len(hits) <= most:
                out[w] = hits
    return out


def _odd_in_word_families(raw: list[str], families: dict[str, set[int]], n: int) -> list[int]:
    """Lines that differ in a leading field from the other lines holding a question word,
    where too many lines hold it to name one (``declare -x SHOP_NOTIFY_POOL`` among a
    hundred ``declare -- SHOP_…``): at most ``_FAMILY_ODD`` a word, where the usual value
    holds ``_FAMILY_USUAL`` of the family."""
    lead_limit = max(_WORD_HIT_MIN, round(_WORD_HIT_SHARE * n))
    out: list[int] = []
    for hits in families.values():
        if len(hits) <= max(lead_limit, _FAMILY_MIN - 1):
            continue
        columns: list[dict[str, list[int]]] = [{} for _ in range(_FAMILY_FIELDS)]
        for i in sorted(hits):
            for k, value in enumerate(raw[i].split(None, _FAMILY_FIELDS)[:_FAMILY_FIELDS]):
                columns[k].setdefault(value, []).append(i)
        dominated = [f for f in columns if max(map(len, f.values()), default=0) >= _FAMILY_USUAL * len(hits)]
        out += odd_members(dominated, _FAMILY_ODD, _FAMILY_MIN)
    return out


_CHILDREN_READ = 400  # lines under a named head read for its children's marks, at most


def _family_turns(raw: list[str], families: dict[str, set[int]], named: set[int], n: int) -> set[int]:
    """Where the leading mark turns along the lines a question word names (``[X]
    checkout.0010_…`` then ``[ ] checkout.0011_…``), or along the lines indented under a
    named head (``invoicing`` over its `` [X] 0001_…`` lines): "how far has checkout got"
    is the last line of one mark and the first of the next (``line_shapes.mark_turns``)."""
    out: set[int] = set()
    for hits in families.values():
        out |= mark_turns(raw, sorted(hits))
    for i in named:
        own = len(raw[i]) - len(raw[i].lstrip())
        children = []
        for b in range(i + 1, min(n, i + _CHILDREN_READ)):
            if len(raw[b]) - len(raw[b].lstrip()) <= own:
                break
            children.append(b)
        out |= mark_turns(raw, children)
    return out


# A span of time written as one: ``last``'s "(04:12)" and "(1+02:53)" (days+hours:minutes),
# ps's "2-03:04:05" (days-hours:minutes:seconds). A bare clock time is not one.
_DURATION = re.compile(r"\((?:(\d+)\+)?(\d+):(\d\d)(?::(\d\d))?\)$|(\d+)-(\d\d):(\d\d):(\d\d)$")


def _seconds(m: re.Match) -> float:
    if m[5] is not None:  # days-hh:mm:ss
        return ((int(m[5]) * 24 + int(m[6])) * 60 + int(m[7])) * 60 + int(m[8])
    if m[4] is not None:  # (hh:mm:ss)
        return (int(m[1] or 0) * 24 + int(m[2])) * 3600 + int(m[3]) * 60 + int(m[4])
    return ((int(m[1] or 0) * 24 + int(m[2])) * 60 + int(m[3])) * 60  # ([days+]hh:mm)


def _number_columns(raw: list[str], in_trace) -> Iterator[list[tuple[float, int]]]:
    """Among lines of one token count (at least 20), each position holding a plain number (or
    a duration) in most of them: its (value, line) pairs, a duration's position first. At
    most two positions per token count; timestamps and ids with letters are not numbers."""
    by_len: dict[int, list[tuple[int, list[str]]]] = {}
    for i, t in enumerate(raw):
        if i not in in_trace:
            parts = t.split()
            if 1 < len(parts) <= 40:
                by_len.setdefault(len(parts), []).append((i, parts))
    for rows in by_len.values():
        if len(rows) < 20:
            continue
        ntok = len(rows[0][1])
        used = 0
        need = 0.8 * len(rows)  # rows holding a number at a position that ranks them
        # A column of durations first: "the longest" asks how long, not which day of the month.
        first = rows[len(rows) // 2][1]
        for pos in sorted(range(ntok), key=lambda k: _DURATION.match(first[k]) is None):
            vals: list[tuple[float, int]] = []
            could = len(rows)  # rows that may still hold a number here
            for i, p in rows:
                if _PLAIN_NUMBER.match(p[pos]):
                    vals.append((float(p[pos].strip("()")), i))
                elif (d := _DURATION.match(p[pos])) is not None:
                    vals.append((_seconds(d), i))
                else:
                    could -= 1
                    if could < need:
                        break  # too few numbers already (git blame's code lines, word by word)
            if could < need or len({v for v, _ in vals}) < 3:
                continue
            yield vals
            used += 1
            if used == 2:
                break


def _top_value_lines(raw: list[str], in_trace) -> set[int]:
    """For "largest/slowest" questions: each column of numbers (:func:`_number_columns`)
    ranks its lines; the top ``_TOP_K`` and the bottom 3 are kept (``du`` output: the 20
    biggest entries)."""
    out: set[int] = set()
    for vals in _number_columns(raw, in_trace):
        vals.sort()
        out.update(i for _, i in vals[-_TOP_K:])
        out.update(i for _, i in vals[:3])
    return out


_SAID_ROWS = 4  # lines a number the question says may hold in a column and still name them


def _said_value_lines(raw: list[str], in_trace, said: list[float]) -> set[int]:
    """Lines whose number in a column of numbers equals one the question says ("which
    function has a complexity of 9"), where at most ``_SAID_ROWS`` lines of the column do."""
    out: set[int] = set()
    for vals in _number_columns(raw, in_trace) if said else ():
        out.update(vals[k][1] for k in rows_holding([v for v, _ in vals], said, _SAID_ROWS))
    return out


def _spread_rows(rows: list[int], limit: int = _DESCRIBE_ROWS) -> list[int]:
    if len(rows) <= limit:
        return rows
    step = (len(rows) - 1) / (limit - 1)
    return [rows[round(k * step)] for k in range(limit)]


def _template_note(tokens: list[str], texts: list[str], rows: list[int], text_counts: Counter[str],
                   first_text: str) -> str:
    if text_counts[first_text] == len(rows):
        return f"  … repeated {len(rows)} times"
    varies = describe(tokens, texts, total=len(rows))
    if varies:
        # The exemplar is the line right above and "what varies" names the changing
        # parts; the template would restate the exemplar's constant words once more.
        return f"  … {len(rows)} similar lines ({varies})"
    tpl = display(tokens)
    if len(tpl) > 160:
        tpl = tpl[:157] + "..."
    return f"  … {len(rows)} similar lines: \"{tpl}\""


@dataclass
class LogSelection:
    """What :func:`select_lines` chose: line indices in order, the count notes shown after
    some of them (with the rows each note stands for), the header and the marker summary."""

    chosen: list[int]
    notes: dict[int, str]
    members: dict[int, list[int]]
    trace_of: dict[int, int]
    header: str
    summary: str


def select_lines(raw: list[str], inp: CompressInput, *, costs: list[int] | None = None,
                 must: dict[int, float] | None = None) -> LogSelection | None:
    """The lines of a log worth keeping in view (None when that is all of them).

    ``costs`` are the tokens each line will cost as rendered (a JSON record costs more than
    the line it is selected by; default: the line itself); ``must`` maps lines to the
    priority they are kept at whatever their template (a question's anchors found in a
    record's other fields, a record from a rarely heard component)."""
    lowered = _Lowered.of(raw)
    lines, levels = _classify_lines(raw)
    n = len(lines)
    intents = intents_of(inp.query)
    sel = _Selection(n)
    traces = _trace_spans(raw)
    trace_of = _select_traces(raw, traces, sel)
    text_counts = Counter(raw)
    rare_max = inp.config.router.rare_max
    anchored = lowered.anchored(inp.anchors, max(_ANCHOR_LIMIT, n // 50))
    _select_by_kind(lines, trace_of.keys(), anchored, text_counts, sel, rare_max)
    for i in _rare_level_lines(lines, levels, rare_max):
        sel.mark(i, 0.5)
    for i in (*_rare_lead_lines(raw), *_rare_tab_column_lines(raw)):
        sel.mark(i, 0.5)
    # Where a matrix's pattern of marks changes is its content (git show-branch: where a
    # branch starts, forks, merges), kept as the errors are.
    for i in mark_run_ends(raw):
        sel.mark(i, 0)
    for i, prio in (must or {}).items():
        sel.mark(i, prio)
    head, tail = (_INTENT_EDGE if "first" in intents else _HEAD), (_INTENT_EDGE if "last" in intents else _TAIL)
    for i in range(min(head, n)):
        sel.mark(i, 0 if "first" in intents else 2)
    for i in range(max(0, n - tail), n):
        sel.mark(i, 0 if "last" in intents else 2)
    # The last non-blank line is the run's final state (a test run's summary, a build's
    # result, the server's last word): it stays whatever else the budget drops.
    last = next((i for i in range(n - 1, -1, -1) if raw[i].strip()), None)
    if last is not None:
        sel.mark(last, 0)
    stats = _select_templates(lines, trace_of.keys(), text_counts, sel, intents, inp.query, max(2, rare_max))
    # Where one-off lines are many, they crowd each other out of the budget: a line of a rare
    # shape among a few common ones (a nested reply's one "(nil)" among two hundred
    # descriptions, each a one-off) stays, with the items of its numbered list (the function
    # it is of). Read only then: the shapes cost a pass over the whole text.
    if len(stats.one_offs) > _CROWDED_ONE_OFFS * n:
        rare_shaped = rare_shape_lines(raw)
        for i in (*rare_shaped, *numbered_mates(raw, rare_shaped)):
            sel.mark(i, 0.5)
    # What the question names or asks to rank comes right after errors and anchors.
    named = _lines_naming_content_words(lowered, inp.query, n)
    for i in named:
        sel.mark(i, _ANCHORED)
    # A named line of a stack trace (the exception a question names) brings its trace: the
    # frames above it say which function raised it. As an error is kept: where every error
    # has a trace, the named one's lines outrank the others' at the anchors' priority.
    for i in _named_traces(traces, trace_of, named | anchored):
        sel.mark(i, 0)
    # A named line inside a short record (blank-line separated blocks: sqlite3 -line rows,
    # stanzas; or records that open alike: patch's "checking file X" over its hunks) brings
    # its record: the asked value is another field of the same row.
    # Or its block's id opens other lines (git blame --porcelain: a commit's later lines).
    # Or a named item of a nested numbered list (a redis reply) brings its list's other items.
    # An anchor names a record as a word does (namei's "f: srv/reports/current/…" names the
    # path's record, whose lines say what each step is).
    for i in (record_mates(raw, named | anchored) | record_bodies(raw, named | anchored, content_lemmas(inp.query))
              | id_mates(raw, named) | numbered_mates(raw, named | anchored)):
        sel.mark(i, 0.5)
    _mark_asked(raw, lowered, inp, sel, named, anchored, trace_of.keys(), intents)

    if costs is None:
        cost_of = lambda i: _line_cost(raw[i])
        total = _total_cost(raw)
    else:
        cost_of, total = costs.__getitem__, sum(costs)
    ceiling = _ceiling(inp, total)
    # One-off lines are anomalies only while they are a minority; in a listing where
    # every line is unique (du, ls) they are the content and get no extra room.
    vital = _VITAL_CEILING if len(stats.one_offs) <= _VITAL_MAX_SHARE * n else 1
    extra = max(0, min(round(_ONE_OFF_SHARE * total), _ONE_OFF_CAP) - vital * ceiling) if vital > 1 else 0
    chosen = _fit_to_ceiling(sel.keep, cost_of, ceiling, vital, extra=extra,
                             rank=(lambda: rank_one_offs(stats, raw)) if vital > 1 else None)
    chosen = _with_context(raw, chosen, named, anchored, inp.query)
    if len(chosen) >= n:
        return None
    # A note whose line was cut would describe nothing.
    notes = {i: t for i, t in sel.notes.items() if i in chosen}
    kinds = Counter(ln.kind for ln in lines)
    kept_one_offs = len(set(stats.one_offs).intersection(chosen))
    left_out = len(stats.one_offs) - kept_one_offs
    return LogSelection(
        chosen=chosen, notes=notes, members={i: sel.members[i] for i in notes if i in sel.members},
        trace_of=trace_of, header=_header(n, kinds, levels, len(traces), stats),
        # The header already counts errors, warnings, traces and templates; the marker
        # says only what was kept of them.
        summary=(f"{kept_one_offs} of {len(stats.one_offs)} one-off lines kept"
                 + (f" ({left_out} left out, ranked by severity, rarity, novelty)" if left_out and vital > 1 else "")
                 + f", {stats.summarised} frequent templates shown once with counts"))


def _mark_asked(raw: list[str], lowered: _Lowered, inp: CompressInput, sel: _Selection, named: set[int],
                anchored: set[int], in_trace, intents: frozenset[str]) -> None:
    """Mark what the question points at beyond the lines it names: a merge's lane, a flat
    record, a family's odd member or turn, an operand's answer, a neighbour, an extreme, a
    said number."""
    n = len(raw)
    # In a drawn commit graph, a named merge brings the head of the lane it merges, at the
    # named line's own priority (it is the answer the merge line only points to).
    for i in graph_heads(raw, named | _longest_anchor_lines(lowered, inp.anchors)):
        sel.mark(i, _ANCHORED)
    # A flattened document (jq --stream): a record's lines, the record lacking a field,
    # the extreme leaf the question asks for.
    for i in flat_path_lines(raw, named | anchored, inp.query or ""):
        sel.mark(i, 0.5)
    # A question word many lines hold names a family ("which of the SHOP settings is
    # exported"): the member that differs from the rest in a leading field is the lead.
    families = _word_families(lowered, inp.query, n)
    for i in _odd_in_word_families(raw, families, n):
        sel.mark(i, _ANCHORED)
    # Where a named family's status mark turns ("how far has checkout been migrated").
    for i in _family_turns(raw, families, named, n):
        sel.mark(i, _ANCHORED)
    # An operand the question names, answered in the operands' order (addr2line -f).
    for i in operand_lines(raw, inp.tool_arguments, inp.anchors.terms if inp.anchors else ()):
        sel.mark(i, _ANCHORED)
    # "What happened right after X": the line X names and the lines next to it.
    if inp.anchors and asks_neighbour(inp.query):
        pointed = pointed_lines(lowered.text, lowered.starts, inp.anchors.terms)
        for i in (*pointed, *neighbours(raw, pointed)):
            sel.mark(i, _ANCHORED)
    if "extreme" in intents:
        for i in _top_value_lines(raw, in_trace):
            sel.mark(i, 0.5)
    # A number the question says ("a complexity of 9", "the zero-byte one") names the lines
    # holding it in a column of numbers, where it is rare.
    if inp.query and (said := said_numbers(inp.query.lower()) + written_numbers(inp.query)):
        for i in _said_value_lines(raw, in_trace, said):
            sel.mark(i, _ANCHORED)


def _with_context(raw: list[str], chosen: list[int], named: set[int], anchored: set[int],
                  query: str | None) -> list[int]:
    """``chosen`` with the lines that say where its lines stand, on top of the budget (after
    the fit: a head is a line per record kept)."""
    # A kept line of a headed record brings the head that names the record; a kept line
    # under a head ending in a colon (ld's "in function `f':") brings that head.
    if heads := record_heads(raw, chosen) | indent_heads(raw, chosen) | colon_heads(raw, chosen):
        chosen = sorted({*chosen, *heads})
    # A named node of an indented tree brings its ancestors and children (what holds it,
    # what it holds), and a question word too common to name a line names one inside the
    # named line's record.
    asked = (named | anchored).intersection(chosen)
    if family := (indent_family(raw, anchored.intersection(chosen)) | indent_family(raw, named.intersection(chosen))
                  | subtree_words(raw, asked, query)):
        chosen = sorted({*chosen, *family})
    # A kept node of a tree drawn with depth marks brings its ancestors: what includes it.
    if ancestors := depth_ancestors(raw, chosen):
        chosen = sorted({*chosen, *ancestors})
    return chosen


class LogCompressor:
    name = "log"

    def compress(self, inp: CompressInput) -> Compressed | None:
        raw = inp.text.splitlines()
        if len(raw) < _MIN_LINES:
            return None
        picked = select_lines(raw, inp)
        if picked is None:
            return None
        return Compressed(
            text=f"{picked.header}\n{_render(raw, picked.chosen, picked.notes, picked.trace_of)}",
            items_before=len(raw),
            items_after=len(picked.chosen),
            strategy="log_templates",
            lossy=True,
            summary=picked.summary,
        )


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _clamp(x: float) -> float:
    return min(1.0, max(0.0, float(x)))


def _count_note(text_counts: Counter[str], text: str, count: int, template: str = "",
                texts: list[str] | None = None) -> str:
    """Identical repeats read "repeated", template-equal ones read "similar" with what
    varies in them (the marker says what was folded)."""
    if text_counts[text] == count:
        return f"  … repeated {count} times"
    varies = describe(template.split(), texts, total=count) if template and texts else ""
    return f"  … {count} similar lines ({varies or 'numbers/ids differ'})"


def _total_cost(raw: list[str]) -> int:
    """``sum(_line_cost(t) for t in raw)`` in C, but for the cut of giant lines (rare;
    the ceiling only needs the size of the log)."""
    return sum(map(len, raw)) // 4 + len(raw)


def _line_cost(line: str) -> int:
    """Rough tokens of a kept line (4 characters a token), as rendered."""
    return min(len(line), _MAX_LINE_CHARS) // 4 + 1


def _ceiling(inp: CompressInput, total: int) -> int:
    """The most tokens the kept lines may cost: a share of the log (``total`` tokens),
    between a floor (a short log may keep most of itself) and a cap, scaled by the tool's
    aggressiveness."""
    share = _CEILING_SHARE * (1.5 - _clamp(inp.aggressiveness))
    scale = inp.config.router.log_max_lines / _DEFAULT_MAX_LINES
    # A learned line budget (headroom.toin) larger than the configured line count raises
    # the ceiling by the same factor.
    lines = max(5, round(inp.config.router.log_max_lines * (1.5 - _clamp(inp.aggressiveness))))
    learned = toin_steer.budget(inp.toin, lines) / lines
    scale *= learned
    return max(round(_CEILING_FLOOR * learned), min(round(total * share * max(1.0, scale)), round(_CEILING_CAP * scale)))


def _fit_to_ceiling(keep: dict[int, float], cost_of, ceiling: int, vital: float = _VITAL_CEILING, *,
                    extra: float = 0, rank: Callable[[], dict[int, tuple]] | None = None) -> list[int]:
    """Whole priority classes while they fit, then an even spread of the first class
    that does not; lower classes are dropped. What a reader cannot ask for unless it is
    in view — one-off events, one exemplar per frequent template (each frequent key of
    a few-key cluster included), warnings (priority up to 1) — may use twice the
    ceiling; the rest (error context, head and tail, variants) three quarters of it. Priority 0 always
    stays, unless it alone costs more than twice the ceiling (a log of thousands of
    distinct errors): then its first and last lines stay, half the ceiling each, as the
    first failure and the final state are what explain a run, and the header still
    counts them all.

    ``extra`` is more room for priorities up to 1 (one-offs), on top of theirs, that does
    not count against the later classes; ``rank`` (called only when needed) orders the
    first class of priority up to 1 that does not fit (its unranked members, exemplars,
    first; then by rank) instead of an even spread."""
    by_prio: dict[float, list[int]] = {}
    for i, p in keep.items():
        by_prio.setdefault(p, []).append(i)
    chosen: list[int] = []
    spent = 0
    for p in sorted(by_prio):
        members = sorted(by_prio[p])
        cost = sum(cost_of(i) + _GAP_COST for i in members)
        if p == 0 and cost > 2 * ceiling:
            chosen += _ends_within(members, cost_of, ceiling // 2)
            break
        base = (vital if p <= 1 else _CONTEXT_CEILING) * ceiling - spent
        room = base + (extra if p <= 1 else 0)
        if cost <= room or p == 0:
            chosen += members
            over = max(0.0, cost - max(base, 0.0)) if p <= 1 else 0.0  # paid from the extra room
            extra -= over
            spent += cost - over
            continue
        ranks = rank() if rank is not None and p <= 1 else {}
        order = sorted(members, key=lambda i: (i in ranks, ranks.get(i, ()), i)) \
            if any(i in ranks for i in members) else [members[k] for k in spread_order(len(members))]
        for i in order:
            c = cost_of(i) + _GAP_COST
            if c <= room:
                chosen.append(i)
                room -= c
        break
    return sorted(chosen)


def _ends_within(members: list[int], cost_of, ceiling: int) -> list[int]:
    out: set[int] = set()
    for seq in (members, members[::-1]):
        spent = 0
        for i in seq:
            spent += cost_of(i)
            if spent > ceiling:
                break
            out.add(i)
    return sorted(out)


def _render(raw: list[str], chosen: list[int], notes: dict[int, str], trace_of: dict[int, int]) -> str:
    out: list[str] = []
    prev = -1
    for i in chosen:
        gap = i - prev - 1
        if gap > 0:
            t = trace_of.get(prev)
            if t is not None and trace_of.get(i) == t:
                out.append(f"    … {gap} frames omitted")
            else:
                out.append(f"… {gap} line{'s' if gap != 1 else ''} omitted")
        line = raw[i]
        if len(line) > _MAX_LINE_CHARS:
            line = line[:_MAX_LINE_CHARS] + f" … ({len(raw[i]) - _MAX_LINE_CHARS} chars cut)"
        out.append(line)
        if i in notes:
            out.append(notes[i])
        prev = i
    if prev < len(raw) - 1:
        rest = len(raw) - 1 - prev
        out.append(f"… {rest} line{'s' if rest != 1 else ''} omitted")
    return "\n".join(out)


def _header(n: int, kinds: Counter[str], levels: Counter[str], traces: int, stats: _TemplateStats) -> str:
    parts = [f"{kinds['error']} error", f"{kinds['warning']} warning"]
    parts += [f"{levels[k]} {k}" for k in ("notice", "info", "debug", "trace") if levels[k]]
    if traces:
        parts.append(f"{traces} stack trace{'s' if traces != 1 else ''}")
    if kinds["summary"]:
        parts.append(f"{kinds['summary']} summary line{'s' if kinds['summary'] != 1 else ''}")
    parts.append(f"{stats.templates} templates, {len(stats.one_offs)} one-off")
    return f"[log: {n} lines; " + ", ".join(parts) + "]"
