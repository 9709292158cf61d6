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

from .compressor import Compressed, CompressInput

_MIN_LINES = 12  # shorter logs are cheaper to send whole
_CONTEXT = 2  # lines kept before and after an error
_HEAD, _TAIL = 3, 3
_TRACE_KEEP_HEAD, _TRACE_KEEP_TAIL = 6, 8  # a long trace keeps its top and its bottom
_MAX_LINE_CHARS = 2000  # one giant line (minified JSON, base64) is cut, not kept whole

_ERROR = re.compile(
    r"\b(?:errors?|err!|fatal|critical|crit|exception|failed|failures?|fail|panic(?:ked)?|"
    r"segmentation fault|aborted|traceback|assertionerror|uncaught|unhandled)\b|"
    r"^E\s{2,}\S|\berror\[\w+\]|\"level\"\s*:\s*\"(?:error|fatal|critical)\"",
    re.I,
)
# "0 errors", "no failures", "errors: 0": the word is there, the problem is not.
_NOT_ERROR = re.compile(
    r"\b(?:0|no|zero)\s+(?:errors?|failures?|failed)\b|\b(?:errors?|failures?|failed)\s*[:=]\s*0\b", re.I
)
_WARNING = re.compile(r"\b(?:warn(?:ing)?s?|deprecat\w*)\b|\"level\"\s*:\s*\"warn(?:ing)?\"", re.I)
_NOT_WARNING = re.compile(r"\b(?:0|no)\s+warnings?\b|\bwarnings?\s*[:=]\s*0\b", re.I)
_LEVEL_WORD = re.compile(r"\b(TRACE|DEBUG|INFO|NOTICE)\b|\"level\"\s*:\s*\"(trace|debug|info)\"", re.I)
_SUMMARY = re.compile(
    r"^=+ .*\b(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|no tests ran)\b.*=+\s*$|"
    r"\b\d+ (?:passed|failed|failing|passing|pending|skipped|errors?)\b|"
    r"^\s*(?:Tests|Test Suites|Snapshots|Test Files|Time):\s+\S|"
    r"\bTests run: \d+, Failures: \d+|"
    r"\btest result: (?:ok|FAILED)\.|"
    r"^(?:ok|FAIL|PASS)\s+\S+\s+[\d.]+m?s\b|"
    r"\bBUILD (?:SUCCESS(?:FUL)?|FAILURE|FAILED)\b|"
    r"short test summary info|^\s*Finished\b.*\btarget|^\s*Ran \d+ tests? in",
    re.I,
)
_PY_TRACE_START = re.compile(r"^\s*Traceback \(most recent call last\):")
_FRAME = re.compile(
    r"^\s+at [\w.$<>/\\\[\]-]+|^\s+File \"|^\s*Caused by:|^\s+\.\.\. \d+ more|^\s+\S.*\(\S+:\d+(?::\d+)?\)\s*$"
)
# One pass masks hex ids (6+ chars with a digit) and every number except a lone "0", so
# "0 errors" and "3 errors" stay different templates while "job 12 in 40ms" and
# "job 13 in 41ms" become one. Timestamps, UUIDs and IPs fall out as runs of "#".
_MASK = re.compile(r"\b(?=[0-9a-fA-F]{6,}\b)[0-9a-fA-F]*\d[0-9a-fA-F]*\b|[0-9]*[1-9][0-9]*|0[0-9]+")


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


def _classify(text: str) -> str:
    low = text.lower()
    if not any(k in low for k in _KEYWORDS) and not text.startswith("E "):
        return "other"
    if _SUMMARY.search(text):
        return "summary"
    if _ERROR.search(text) and not _NOT_ERROR.search(text):
        return "error"
    if _WARNING.search(text) and not _NOT_WARNING.search(text):
        return "warning"
    return "other"


def _trace_spans(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) inclusive index ranges of stack traces.

    A Python trace runs from "Traceback (most recent call last):" to the first
    unindented line after it (the exception line, included). A Java/JS trace is a run of
    frame lines ("at …", "Caused by:", "... N more"), preceded by its exception line.
    """
    spans: list[tuple[int, int]] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
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


class LogCompressor:
    name = "log"

    def compress(self, inp: CompressInput) -> Compressed | None:
        raw = inp.text.splitlines()
        if len(raw) < _MIN_LINES:
            return None
        # Classification depends only on the template, so repetitive logs (the big ones)
        # run the expensive patterns once per distinct template.
        kind_of: dict[str, str] = {}
        lines = []
        for t in raw:
            tpl = template_of(t)
            kind = kind_of.get(tpl)
            if kind is None:
                kind = kind_of[tpl] = _classify(tpl)
            lines.append(_Line(t, tpl, kind))
        n = len(lines)
        cap = max(5, round(inp.config.router.log_max_lines * (1.5 - _clamp(inp.aggressiveness))))

        # keep[i] = priority (lower is more important); notes[i] = count line shown after i.
        keep: dict[int, int] = {}
        notes: dict[int, str] = {}
        # Lines replaced by a "frames omitted" note inside a long trace.
        trace_gaps: dict[int, int] = {}

        def mark(i: int, prio: int) -> None:
            if 0 <= i < n and (i not in keep or keep[i] > prio):
                keep[i] = prio

        traces = _trace_spans(raw)
        in_trace = set()
        for s, e in traces:
            length = e - s + 1
            in_trace.update(range(s, e + 1))
            if length <= _TRACE_KEEP_HEAD + _TRACE_KEEP_TAIL + 1:
                for i in range(s, e + 1):
                    mark(i, 1)
            else:
                for i in range(s, s + _TRACE_KEEP_HEAD):
                    mark(i, 1)
                for i in range(e - _TRACE_KEEP_TAIL + 1, e + 1):
                    mark(i, 1)
                trace_gaps[s + _TRACE_KEEP_HEAD - 1] = length - _TRACE_KEEP_HEAD - _TRACE_KEEP_TAIL

        text_counts = Counter(raw)
        # Errors: first occurrence of each template with context; repeats become a count.
        error_seen: dict[str, int] = {}
        error_counts: Counter[str] = Counter()
        warn_first: dict[str, int] = {}
        warn_counts: Counter[str] = Counter()
        for i, ln in enumerate(lines):
            if ln.kind == "error" and i not in in_trace:
                error_counts[ln.template] += 1
                if ln.template not in error_seen:
                    error_seen[ln.template] = i
                    mark(i, 0)
                    for k in range(i - _CONTEXT, i + _CONTEXT + 1):
                        mark(k, 3)
            elif ln.kind == "summary":
                mark(i, 0)
            elif ln.kind == "warning":
                warn_counts[ln.template] += 1
                if ln.template not in warn_first:
                    warn_first[ln.template] = i
                    mark(i, 4)
            if inp.anchors and inp.anchors.matches(ln.text):
                mark(i, 0)
        for tpl, i in error_seen.items():
            if error_counts[tpl] > 1:
                notes[i] = _count_note(text_counts, raw[i], error_counts[tpl])
        for tpl, i in warn_first.items():
            if warn_counts[tpl] > 1:
                notes[i] = _count_note(text_counts, raw[i], warn_counts[tpl])
        for i in list(range(_HEAD)) + list(range(n - _TAIL, n)):
            mark(i, 2)

        # Frequent "other" templates: one representative each, with its count.
        other_counts = Counter(ln.template for ln in lines if ln.kind == "other")
        other_first: dict[str, int] = {}
        for i, ln in enumerate(lines):
            if ln.kind == "other" and other_counts[ln.template] >= 3 and ln.template not in other_first:
                other_first[ln.template] = i
        for tpl, i in sorted(other_first.items(), key=lambda kv: (-other_counts[kv[0]], kv[1])):
            mark(i, 5)
            notes.setdefault(i, _count_note(text_counts, raw[i], other_counts[tpl]))

        chosen = _fit_to_cap(keep, cap)
        if len(chosen) >= n:
            return None
        # A template representative that survives speaks for all its dropped twins; a
        # note whose line was cut would describe nothing.
        notes = {i: t for i, t in notes.items() if i in chosen}

        body = _render(raw, chosen, notes, trace_gaps)
        kinds = Counter(ln.kind for ln in lines)
        levels = _level_counts(lines)
        header = _header(n, kinds, levels, len(traces))
        summary = f"{kinds['error']} error, {kinds['warning']} warning lines, {len(traces)} traces kept"
        return Compressed(
            text=f"{header}\n{body}",
            items_before=n,
            items_after=len(chosen),
            strategy="log_select",
            lossy=True,
            summary=summary,
        )


def _clamp(x: float) -> float:
    return min(1.0, max(0.0, float(x)))


def _count_note(text_counts: Counter[str], text: str, count: int) -> str:
    """Identical repeats read "repeated", template-equal ones read "similar"."""
    if text_counts[text] == count:
        return f"  … repeated {count} times"
    return f"  … {count} similar lines (numbers/ids differ)"


def _fit_to_cap(keep: dict[int, int], cap: int) -> list[int]:
    """Drop the least important lines until the cap holds; priority 0 always stays."""
    if len(keep) <= cap:
        return sorted(keep)
    ranked = sorted(keep, key=lambda i: (keep[i], i))
    must = [i for i in ranked if keep[i] == 0]
    rest = [i for i in ranked if keep[i] != 0]
    room = max(0, cap - len(must))
    return sorted(must + rest[:room])


def _render(raw: list[str], chosen: list[int], notes: dict[int, str], trace_gaps: dict[int, int]) -> str:
    out: list[str] = []
    prev = -1
    for i in chosen:
        gap = i - prev - 1
        if gap > 0:
            # A gap that exactly matches a trimmed trace middle says "frames".
            frames = trace_gaps.get(prev)
            if frames == gap:
                out.append(f"    … {gap} frames omitted")
            else:
                out.append(f"… {gap} lines omitted")
        line = raw[i]
        if len(line) > _MAX_LINE_CHARS:
            line = line[:_MAX_LINE_CHARS] + f" … ({len(raw[i]) - _MAX_LINE_CHARS} chars cut)"
        out.append(line)
        if i in notes:
            out.append(notes[i])
        prev = i
    if prev < len(raw) - 1:
        out.append(f"… {len(raw) - 1 - prev} lines omitted")
    return "\n".join(out)


def _level_counts(lines: list[_Line]) -> Counter[str]:
    levels: Counter[str] = Counter()
    for ln in lines:
        if ln.kind in ("error", "warning"):
            continue
        m = _LEVEL_WORD.search(ln.text)
        if m:
            levels[(m.group(1) or m.group(2)).lower()] += 1
    return levels


def _header(n: int, kinds: Counter[str], levels: Counter[str], traces: int) -> str:
    parts = [f"{kinds['error']} error", f"{kinds['warning']} warning"]
    parts += [f"{levels[k]} {k}" for k in ("notice", "info", "debug", "trace") if levels[k]]
    if traces:
        parts.append(f"{traces} stack trace{'s' if traces != 1 else ''}")
    if kinds["summary"]:
        parts.append(f"{kinds['summary']} summary line{'s' if kinds['summary'] != 1 else ''}")
    return f"[log: {n} lines; " + ", ".join(parts) + "]"
