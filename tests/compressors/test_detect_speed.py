"""The fast forms of detection give the same answers as the plain forms they replace.

``_LOG_MARK`` is written with its first character factored out (so the regex engine can
skip positions in C), ``_has_log_mark`` skips the time shapes when there is no colon to
hold one, and ``_at_least`` stops counting once the answer is known; all are
checked here against the straightforward versions, on real tool outputs and on strings
built to sit on every shape's edges.
"""

from __future__ import annotations

import re
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors import detect as D
from headroom.eval.corpus import load_cases

# The plain alternation the fast pattern replaces: the oracle.
PLAIN_LOG_MARK = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|(?<!:)\b\d{2}:\d{2}:\d{2}\b(?!:\w)|"
    r"\b\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}|\b[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|"
    r"\[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}|"
    r"\b(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL|SEVERE)\b|"
    r"\[(?:trace|debug|info|notice|warn|warning|error|crit|alert|emerg)\]|\b(?:level|lvl)=\w"
)

# Pieces that make up log marks and their near misses, glued by separators.
PIECES = ["2026-11-23", "2026-11-23T18:17", " 18:17:07", "18:17:070", "a18:17:07", "23 Nov 2026 18:17",
          "3 Nov 2026 18:17", "Nov 23 18:17:07", "Nov  3 18:17:07", "xNov 23 18:17:07", "[23/Nov/2026:18:17:07",
          "261128 101500", "2611280 101500", "INFO", "WARNING", "WARN", "WARNx", "xERROR", "SEVERE", "FATAL_",
          "[warn]", "[warning]", "[Warn]", "level=3", "lvl=x", "xlevel=3", "level=", "l", "T", "1", "[", "_",
          "Alabama,459.9,7.1", "12.5,0.3", ":", "x" * 70]


def _same(line: str) -> None:
    plain = bool(PLAIN_LOG_MARK.search(line, 0, D._LOG_MARK_SPAN))
    assert bool(D._LOG_MARK.search(line, 0, D._LOG_MARK_SPAN)) == plain, line
    assert D._has_log_mark(line) == plain, line  # the colon-less shortcut too


def test_log_mark_matches_the_plain_alternation_on_real_outputs():
    lines = [ln for c in load_cases() if c.split == "dev" for ln in c.content.splitlines()[:200]]
    assert len(lines) > 1000
    for ln in lines:
        _same(ln)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES) | st.text(alphabet="aZ09:- /[]=_", max_size=6), max_size=8),
       st.sampled_from(["", " ", "-", ":", "/", "x"]))
def test_log_mark_matches_the_plain_alternation_on_edges(parts, sep):
    _same(sep.join(parts))


@given(st.lists(st.booleans(), max_size=40), st.floats(min_value=0.5, max_value=45))
def test_at_least_answers_like_a_full_count(hits, k):
    lines = ["x" if h else "" for h in hits]
    assert D._at_least(lines, bool, k) == (sum(hits) >= k)


@settings(max_examples=300)
@given(st.lists(st.one_of(st.sampled_from(["diff --git a/x b/x", "--- a/x", "+++ b/x", "@@ -1,2 +1,3 @@", "--- ",
                                           "@@ -1 +1 @@ x", "-removed", "+added", " context", "d", "@"]),
                          st.text(max_size=30).map(lambda t: t.replace("\n", " ").replace("\r", " "))),
                max_size=40))
def test_diff_starts_equal_the_multiline_scan(lines) -> None:
    """The line-start test counts what a multiline scan of the joined lines finds, but for
    a "--- x" line without its "+++ y" right after (a dashed title, no file header)."""
    from headroom.compressors.detect import _DIFF_START, _diff_starts

    lines = [ln for text in lines for ln in text.splitlines() or [""]]  # what splitlines() gives detection
    joined = "\n".join(lines)
    offsets = [0]
    for ln in lines[:-1]:
        offsets.append(offsets[-1] + len(ln) + 1)
    at = {pos: k for k, pos in enumerate(offsets)}
    expected = 0
    for m in _DIFF_START.finditer(joined):
        k = at[m.start()]
        paired = k + 1 < len(lines) and lines[k + 1].startswith("+++ ")
        expected += not (lines[k].startswith("--- ") and not paired)
    assert _diff_starts(lines) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(list("ab \t") + ["\r", "\r\n", "\x0b", "\x1c", "\u2028", "\x85"]),
                         max_size=6).map("".join), max_size=400), st.integers(1, 64))
def test_sample_lines_equal_the_first_lines_of_splitlines(parts, cut):
    text = "\n".join(parts)
    with patch.object(D, "_SAMPLE_CHARS", cut), patch.object(D, "_SAMPLE_LINES", 20):
        assert D._sample_lines(text) == text.splitlines()[:20]


# The log-line pattern as it was before its leading blanks were taken whole: the oracle.
PLAIN_LOG_LINE = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|"
    r"\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\b|"
    r"(?:PASSED|FAILED|ERROR|ok|FAIL|PASS)\b|npm (?:ERR|WARN)|Traceback |\s+at [\w.$]+\(|"
    r"[\w./-]+\.py::\S+|={3,}|-{3,} |_{3,} \S|E {2,}\S|\S+ [.FEsxX]*\s*\[\s*\d+%\]$|"
    r"File \"[^\"]+\", line \d+|"
    r"(?-i:(?:Compiling|Downloaded|Downloading|Checking|Fresh|Installing|Locking|Adding) \S+ v?\d|"
    r"(?:Finished|Running|Updating) [`\w.-]+ (?:index|profile|\[|`)|(?:Finished|Running) `)|"
    r"(?:warning|error)(?:\[\w+\])?: |--> \S+:\d+:\d+)",
    re.IGNORECASE,
)
# Shapes of log lines and their near misses, each of which may sit behind blanks.
LINE_PIECES = ["2026-11-23 18:17", "[2026-11-23T18:17", "18:17:07", "[INFO]", "info", "WARNING", "ok", "PASS",
               "npm ERR!", "Traceback (most", "at com.x.Y(", "at x(", "AT x(", "at (", "tests/a.py::t", "===",
               "--- x", "___ t", "E   x", "t.py .. [ 50%]", "x [100%]", 'File "a.py", line 3', "Compiling foo v1",
               "Finished `dev`", "Running `x`", "warning: x", "error[E1]: y", "--> a.rs:1:2", "\u017fx", "\u212a",
               "a", "at", "\u0130NFO", "-", "[", "%]"]


def _same_log_line(line: str) -> None:
    assert bool(D._LOG_LINE.match(line)) == bool(PLAIN_LOG_LINE.match(line)), repr(line)


def test_log_line_matches_the_plain_pattern_on_real_outputs():
    lines = [ln for c in load_cases("dev") for ln in c.content.splitlines()[:200]]
    assert len(lines) > 1000
    for ln in lines:
        _same_log_line(ln)
        _same_log_line(" " + ln)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=" \t\x0b\x0c\x1f\u3000", max_size=4),
       st.lists(st.sampled_from(LINE_PIECES) | st.text(alphabet="aAtT0:. []%", max_size=5), max_size=4),
       st.sampled_from(["", " ", "\t", "  "]))
def test_log_line_matches_the_plain_pattern_on_edges(lead, parts, sep):
    _same_log_line(lead + sep.join(parts))
