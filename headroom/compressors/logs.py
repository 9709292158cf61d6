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
from collections import Counter
from dataclasses import dataclass

from ..toin import steer as toin_steer
from .base import Compressed, CompressInput
from .text import anchored_indices

_MIN_LINES = 12  # shorter logs are cheaper to send whole
_CONTEXT = 2  # lines kept before and after an error
_HEAD, _TAIL = 3, 3
_TRACE_KEEP_HEAD, _TRACE_KEEP_TAIL = 6, 8  # a long trace keeps its top and its bottom
_MAX_LINE_CHARS = 2000  # one giant line (minified JSON, base64) is cut, not kept whole

_ERROR = re.compile(
    r"\b(?:errors?|err!|fatal|critical|crit|exception|failed|failures?|fail|panic(?:ked)?|"
    r"segmentation fault|aborted|traceback|assertionerror|uncaught|unhandled)\b|"
    r"^E\s{2,}\S|\berror\[\w+\]|\"level\"\s*:\s*\"(?:error|fatal|critical)\"",
    re.IGNORECASE,
)
# "0 errors", "no failures", "errors: 0": the word is there, the problem is not.
_NOT_ERROR = re.compile(
    r"\b(?:0|no|zero)\s+(?:errors?|failures?|failed)\b|\b(?:errors?|failures?|failed)\s*[:=]\s*0\b", re.IGNORECASE
)
_WARNING = re.compile(r"\b(?:warn(?:ing)?s?|deprecat\w*)\b|\"level\"\s*:\s*\"warn(?:ing)?\"", re.IGNORECASE)
_NOT_WARNING = re.compile(r"\b(?:0|no)\s+warnings?\b|\bwarnings?\s*[:=]\s*0\b", re.IGNORECASE)
_LEVEL_WORD = re.compile(r"\b(TRACE|DEBUG|INFO|NOTICE)\b|\"level\"\s*:\s*\"(trace|debug|info)\"", re.IGNORECASE)
_JSON_LEVEL = re.compile(r"\"(?:level|severity|lvl|log\.level|levelname)\"\s*:\s*\"(\w+)\"", re.IGNORECASE)
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
# Every run of hex digits that contains a decimal digit becomes "#": numbers, durations,
# hex ids, timestamps, IPs and UUIDs all mask in one fast pass, so "job 12 in 40ms" and
# "job 13 in 41ms" share a template. Words without digits ("ERROR", "cafe") stay.
_MASK = re.compile(r"[0-9a-fA-F]*\d[0-9a-fA-F]*")


def template_of(line: str) -> str:
    """The line with its variable parts masked, so similar lines compare equal."""
    return _MASK.sub("#", line).strip()


@dataclass
class _Line:
    text: str
    template: str
    kind: str  # error | warning | summary | other


# Substrings one of the patterns below needs; most lines have none, and a substring test
# is far cheaper than the case-insensitive patterns.
_KEYWORDS = (
    "err", "fatal", "crit", "exception", "fail", "panic", "segmentation", "abort", "traceback",
    "uncaught", "unhandled", "warn", "deprecat", "pass", "pending", "skipped", "tests", "test ",
    "time:", "snapshots", "build ", "summary", "finished", "ran ", "ok ", "deselected",
)


def _classify(template: str) -> tuple[str, str | None]:
    """(kind, level word) of a template. "0 errors" is refined per line in ``_kind``."""
    if template.startswith("{"):
        m = _JSON_LEVEL.search(template)
        if m:
            # A structured record says its level; an "error": null field in an info
            # record is not a failure.
            value = m.group(1).lower()
            if value in _JSON_ERROR_LEVELS:
                return "error", None
            if value.startswith("warn"):
                return "warning", None
            return "other", value
    m = _LEVEL_WORD.search(template)
    level = (m.group(1) or m.group(2)).lower() if m else None
    low = template.lower()
    if not any(k in low for k in _KEYWORDS) and not template.startswith("E "):
        return "other", level
    if _SUMMARY.search(template):
        return "summary", level
    if _ERROR.search(template):
        return "error", level
    if _WARNING.search(template):
        return "warning", level
    return "other", level


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
                start = i - 1 if i > 0 and lines[i - 1].strip() and not _FRAME.match(lines[i - 1]) else i
                spans.append((start, j))
                i = j + 1
                continue
        i += 1
    return spans


class _Selection:
    """Lines chosen so far: index -> priority (lower is more important), plus the count
    notes shown after some of them."""

    def __init__(self, n: int):
        self.n = n
        self.keep: dict[int, int] = {}
        self.notes: dict[int, str] = {}

    def mark(self, i: int, prio: int) -> None:
        if 0 <= i < self.n and (i not in self.keep or self.keep[i] > prio):
            self.keep[i] = prio


def _classify_lines(raw: list[str]) -> tuple[list[_Line], Counter[str]]:
    """Every line with its template and kind, and the count of each plain level word.

    Classification depends only on the template, so repetitive logs (the big ones) run
    the expensive patterns once per distinct template.
    """
    kind_of: dict[str, tuple[str, str | None]] = {}
    lines: list[_Line] = []
    levels: Counter[str] = Counter()
    for t in raw:
        tpl = template_of(t)
        cls = kind_of.get(tpl)
        if cls is None:
            cls = kind_of[tpl] = _classify(tpl)
        kind = _kind(t, cls[0])
        lines.append(_Line(t, tpl, kind))
        if cls[1] and kind not in ("error", "warning"):
            levels[cls[1]] += 1
    return lines, levels


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
                sel.mark(i, 1)
    return trace_of


def _select_by_kind(lines: list[_Line], in_trace, anchored: set[int], text_counts: Counter[str],
                    sel: _Selection) -> None:
    """Errors (first of each template, with context), summaries, warnings, anchors."""
    error_first: dict[str, int] = {}
    error_counts: Counter[str] = Counter()
    warn_first: dict[str, int] = {}
    warn_counts: Counter[str] = Counter()
    for i, ln in enumerate(lines):
        if ln.kind == "error" and i not in in_trace:
            error_counts[ln.template] += 1
            if ln.template not in error_first:
                error_first[ln.template] = i
                sel.mark(i, 0)
                for k in range(i - _CONTEXT, i + _CONTEXT + 1):
                    sel.mark(k, 3)
        elif ln.kind == "summary":
            sel.mark(i, 0)
        elif ln.kind == "warning":
            warn_counts[ln.template] += 1
            if ln.template not in warn_first:
                warn_first[ln.template] = i
                sel.mark(i, 4)
        if i in anchored:
            sel.mark(i, 0)
    for first, counts in ((error_first, error_counts), (warn_first, warn_counts)):
        for tpl, i in first.items():
            if counts[tpl] > 1:
                sel.notes[i] = _count_note(text_counts, lines[i].text, counts[tpl])


def _select_noise(lines: list[_Line], in_trace, text_counts: Counter[str], cap: int, sel: _Selection) -> None:
    """Representatives of the biggest repeated groups, then evenly spaced one-offs.

    Only the biggest groups (a quarter of the cap) get a representative, so a log of many
    small groups does not spend the cap on them. Stack frames and blank lines are never
    noise groups. Room left under the cap then shows the shape of the rest.
    """
    other_counts = Counter(ln.template for i, ln in enumerate(lines)
                           if ln.kind == "other" and ln.template and i not in in_trace)
    first: dict[str, int] = {}
    for i, ln in enumerate(lines):
        if ln.kind == "other" and other_counts[ln.template] >= 3 and ln.template not in first and i not in in_trace:
            first[ln.template] = i
    for tpl, i in sorted(first.items(), key=lambda kv: (-other_counts[kv[0]], kv[1]))[:max(1, cap // 4)]:
        sel.mark(i, 5)
        sel.notes.setdefault(i, _count_note(text_counts, lines[i].text, other_counts[tpl]))
    singles = [i for i, ln in enumerate(lines) if i not in sel.keep and i not in in_trace
               and ln.kind == "other" and ln.template and other_counts[ln.template] < 3]
    room = cap - len(sel.keep)
    if room > 0 and singles:
        for i in singles[::max(1, len(singles) // room)][:room]:
            sel.mark(i, 6)


class LogCompressor:
    name = "log"

    def compress(self, inp: CompressInput) -> Compressed | None:
        raw = inp.text.splitlines()
        if len(raw) < _MIN_LINES:
            return None
        lines, levels = _classify_lines(raw)
        n = len(lines)
        cap = max(5, round(inp.config.router.log_max_lines * (1.5 - _clamp(inp.aggressiveness))))
        cap = toin_steer.budget(inp.toin, cap)  # learned budget (headroom.toin)
        sel = _Selection(n)
        traces = _trace_spans(raw)
        trace_of = _select_traces(raw, traces, sel)
        text_counts = Counter(raw)
        _select_by_kind(lines, trace_of.keys(), anchored_indices(inp.anchors, raw, cap), text_counts, sel)
        for i in list(range(_HEAD)) + list(range(n - _TAIL, n)):
            sel.mark(i, 2)
        _select_noise(lines, trace_of.keys(), text_counts, cap, sel)

        chosen = _fit_to_cap(sel.keep, cap)
        if len(chosen) >= n:
            return None
        # A note whose line was cut would describe nothing.
        notes = {i: t for i, t in sel.notes.items() if i in chosen}
        kinds = Counter(ln.kind for ln in lines)
        return Compressed(
            text=f"{_header(n, kinds, levels, len(traces))}\n{_render(raw, chosen, notes, trace_of)}",
            items_before=n,
            items_after=len(chosen),
            strategy="log_select",
            lossy=True,
            summary=(f"{_plural(kinds['error'], 'error line')}, {_plural(kinds['warning'], 'warning line')}, "
                     f"{_plural(len(traces), 'stack trace')}; errors and traces kept"),
        )


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _clamp(x: float) -> float:
    return min(1.0, max(0.0, float(x)))


def _count_note(text_counts: Counter[str], text: str, count: int) -> str:
    """Identical repeats read "repeated", template-equal ones read "similar"."""
    if text_counts[text] == count:
        return f"  … repeated {count} times"
    return f"  … {count} similar lines (numbers/ids differ)"


def _fit_to_cap(keep: dict[int, int], cap: int) -> list[int]:
    """Drop the least important lines until the cap holds; priority 0 always stays.

    Unless there are more than twice ``cap`` of them (a log of thousands of distinct
    errors): then the first and the last ``cap`` stay, as the first failure and the final
    state are what explain a run, and the header still counts them all.
    """
    if len(keep) <= cap:
        return sorted(keep)
    ranked = sorted(keep, key=lambda i: (keep[i], i))
    must = [i for i in ranked if keep[i] == 0]
    if len(must) > 2 * cap:
        must = must[:cap] + must[-cap:]
    rest = [i for i in ranked if keep[i] != 0]
    room = max(0, cap - len(must))
    return sorted(must + rest[:room])


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


def _header(n: int, kinds: Counter[str], levels: Counter[str], traces: int) -> str:
    parts = [f"{kinds['error']} error", f"{kinds['warning']} warning"]
    parts += [f"{levels[k]} {k}" for k in ("notice", "info", "debug", "trace") if levels[k]]
    if traces:
        parts.append(f"{traces} stack trace{'s' if traces != 1 else ''}")
    if kinds["summary"]:
        parts.append(f"{kinds['summary']} summary line{'s' if kinds['summary'] != 1 else ''}")
    return f"[log: {n} lines; " + ", ".join(parts) + "]"
