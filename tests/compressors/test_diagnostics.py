"""Linter/compiler diagnostics: parsing by structure, detection, selection by rule."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType, detect_content_type
from headroom.compressors.diagnostics import DiagnosticsCompressor, parse_head, parse_report
from headroom.config import HeadroomConfig
from headroom.eval.corpus import load_cases
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for


def _content(case_id: str) -> str:
    return next(c.content for c in load_cases("dev") if c.id == case_id)


@pytest.fixture(scope="module")
def pylint_text() -> str:
    return _content("pylint_report/text_one_off")


@pytest.fixture(scope="module")
def gcc_text() -> str:
    return _content("gcc_warnings/text_one_off")


def compress(text: str, query: str = ""):
    return DiagnosticsCompressor().compress(
        CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=query,
                      anchors=extract_anchors(query)))


@pytest.mark.parametrize(
    "line, severity, rule",
    [
        ("tenacity/wait.py:83:14: W0622: Redefining built-in 'min' (redefined-builtin)", "warning",
         "W0622 redefined-builtin"),
        ("pkg/a.py:1:0: C0114: Missing module docstring (missing-module-docstring)", "convention",
         "C0114 missing-module-docstring"),
        ("src/x.c:12:5: warning: unused variable 'n' [-Wunused-variable]", "warning", "-Wunused-variable"),
        ("src/x.c:40:1: error: expected ';' before '}' token", "error", "error: expected ';' before '}' token"),
        ("src/x.c:3:10: fatal error: foo.h: No such file or directory", "error",
         "error: foo.h: No such file or directory"),
        ("pkg/mod.py:12: error: Incompatible return value type  [return-value]", "error", "return-value"),
        ("pkg/mod.py:3:1: F401 [*] `os` imported but unused", "warning", "F401"),
        ("pkg/mod.py:88:80: E501 line too long (88 > 79 characters)", "warning", "E501"),
        ("/app/src/index.js:10:5: 'x' is defined but never used. [Error/no-unused-vars]", "error", "no-unused-vars"),
        ("src/main.rs:4:9: error[E0308]: mismatched types", "error", "E0308"),
    ],
)
def test_diagnostic_lines_parse_by_structure(line: str, severity: str, rule: str) -> None:
    head = parse_head(line)
    assert head is not None
    assert head[2] == severity and head[3] == rule


@pytest.mark.parametrize(
    "line",
    [
        "src/app.py:12:    result = compute_total(order)",  # grep -n hit
        "src/app.py:12:5:    x = 1",  # grep with a column
        "12:30:01: error: not a path",  # a clock, not a location
        "2026-11-22 03:00:01 ERROR db: connection refused",
        "The fix is in src/app.py:12: see the comment there.",
    ],
)
def test_lookalikes_are_not_diagnostics(line: str) -> None:
    assert parse_head(line) is None


def test_compiler_excerpts_carets_and_notes_belong_to_their_warning(gcc_text: str) -> None:
    report = parse_report(gcc_text)
    lines = report.lines
    first = report.diagnostics[0]
    assert "In function" in lines[first.start] and "warning:" in lines[first.head]
    assert all("warning:" not in lines[i] and "error:" not in lines[i] for i in range(first.head + 1, first.end))
    notes = [i for d in report.diagnostics for i in range(d.head + 1, d.end) if ": note:" in lines[i]]
    assert notes  # gcc's "note: 'ml_doc' declared here" is a child, not a diagnostic of its own
    assert all(d.severity != "note" for d in report.diagnostics)


def test_detection_tells_reports_from_grep_hits_and_logs(pylint_text: str, gcc_text: str) -> None:
    assert detect_content_type(pylint_text) == ContentType.DIAGNOSTICS
    assert detect_content_type(gcc_text) == ContentType.DIAGNOSTICS  # excerpts and carets included
    grep = "\n".join(f"src/mod{i % 7}.py:{i * 3}:    total += price_{i} * qty" for i in range(40))
    assert detect_content_type(grep) == ContentType.SEARCH
    log = "\n".join(f"2026-11-22 03:00:{i % 60:02d} INFO worker: job {i} done in {i % 13}ms" for i in range(40))
    assert detect_content_type(log) == ContentType.LOG


def test_every_rule_reported_once_stays_verbatim_and_frequent_rules_are_counted(pylint_text: str) -> None:
    result = compress(pylint_text, "What stands out in the lint report?")
    assert result is not None and result.lossy
    report = parse_report(pylint_text)
    rules = Counter(d.rule for d in report.diagnostics)
    for d in report.diagnostics:
        if rules[d.rule] == 1:
            assert report.lines[d.head] in result.text
    # Frequent rules are named with their counts, shown or not.
    frequent = [r for r, n in rules.items() if n > 5]
    assert frequent and all(r in result.text or any(
        report.lines[d.head] in result.text for d in report.diagnostics if d.rule == r) for r in frequent)
    assert "Your code has been rated" in result.text  # the closing score
    assert len(result.text) < 0.3 * len(pylint_text)


def test_header_names_the_file_with_most_diagnostics(pylint_text: str) -> None:
    result = compress(pylint_text)
    header = result.text.splitlines()[0]
    files = Counter(d.path for d in parse_report(pylint_text).diagnostics)
    top, n = files.most_common(1)[0]
    assert f"per file: {top} {n}" in header


def test_warning_excerpts_are_dropped_and_every_distinct_warning_message_shown(gcc_text: str) -> None:
    result = compress(gcc_text)
    assert result is not None
    assert not re.search(r"^\s+\d+ \| ", result.text, re.MULTILINE)  # no source excerpts under warnings
    report = parse_report(gcc_text)
    for key in {d.message_key for d in report.diagnostics}:
        d = next(d for d in report.diagnostics if d.message_key == key)
        assert any(report.lines[x.head] in result.text for x in report.diagnostics if x.message_key == key), d


def test_errors_keep_their_context_excerpt_and_caret(gcc_text: str) -> None:
    error = [
        "psutil/_x.c: In function 'f':",
        "psutil/_x.c:40:12: error: 'undeclared_name' undeclared (first use in this function)",
        "   40 |     return undeclared_name;",
        "      |            ^~~~~~~~~~~~~~~",
    ]
    text = gcc_text + "\n" + "\n".join(error)
    result = compress(text)
    assert "\n".join(error) in result.text


def test_a_report_that_is_mostly_something_else_goes_to_the_fallback() -> None:
    build = [f"cc -O2 -c src/file{i}.c -o build/file{i}.o" for i in range(60)]
    build[10] = "src/file10.c:3:1: warning: unused variable 'x' [-Wunused-variable]"
    build[20] = "src/file20.c:3:1: warning: unused variable 'y' [-Wunused-variable]"
    build[30] = "src/file30.c:3:1: warning: unused variable 'z' [-Wunused-variable]"

    class Fallback:
        name = "fallback"
        called = False

        def compress(self, inp):
            Fallback.called = True

    DiagnosticsCompressor(fallback=Fallback()).compress(
        CompressInput(text="\n".join(build), config=HeadroomConfig(), counter=counter_for("gpt-4o")))
    assert Fallback.called


def test_end_to_end_report_is_retrievable_byte_for_byte(gcc_text: str) -> None:
    messages = [
        {"role": "user", "content": "Build the C extension and tell me what the compiler complained about."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "make", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": gcc_text},
    ]
    result = headroom.compress(messages, model="gpt-4o")
    compressed = result.messages[2]["content"]
    assert "[diagnostics:" in compressed
    m = MARKER_RE.search(compressed)
    assert m
    got = headroom.retrieve(m.group("hash"))
    assert got is not None and got.content == gcc_text


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_kept_lines_are_input_lines(data) -> None:
    pool = _POOL
    picks = data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=0, max_size=120))
    noise = data.draw(st.lists(st.sampled_from(["", "************* Module x", "random prose line", "    | ^"]),
                               max_size=10))
    lines = [pool[i] for i in picks] + noise
    order = data.draw(st.permutations(range(len(lines))))
    text = "\n".join(lines[i] for i in order)
    result = compress(text)
    if result is None:
        return
    inputs = set(text.splitlines())
    for ln in result.text.splitlines()[1:]:  # the header is ours
        assert ln in inputs or ln.startswith(("  … ", "[not shown: ")), ln


_POOL = _content("pylint_report/text_one_off").splitlines()[:150] + _content("gcc_warnings/text_one_off").splitlines()[:150]


def test_notes_name_files_by_their_shortest_unambiguous_suffix() -> None:
    from headroom.compressors.diagnostics.compressor import _short_paths
    from headroom.compressors.diagnostics.parse import Diagnostic

    paths = ["pkg/tz/__init__.py", "pkg/parser/__init__.py", "pkg/tz/tz.py", "other/tz/tz.py", "pkg/rrule.py"]
    diags = [Diagnostic(0, 0, 1, p, 1, "error", "r", "m") for p in paths]
    assert _short_paths(diags) == {
        "pkg/tz/__init__.py": "tz/__init__.py", "pkg/parser/__init__.py": "parser/__init__.py",
        "pkg/tz/tz.py": "pkg/tz/tz.py", "other/tz/tz.py": "other/tz/tz.py", "pkg/rrule.py": "rrule.py"}


def test_verbose_test_run_folds_passing_lines_and_keeps_the_rest() -> None:
    # Log compressor, not diagnostics: a verbose test run names every test, so without
    # folding passing lines into one template each "PASSED" line looked like a one-off.
    # (This used CPython's own unittest run until issue 33 removed that source: the standard
    # library's sources are reserved for outside checks.)
    from headroom.compressors.logs import LogCompressor

    text = _content("pytest_run/networkx_last")
    result = LogCompressor().compress(
        CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o")))
    lines = text.splitlines()
    passing = [ln for ln in lines if " PASSED" in ln]
    assert len(passing) > 100
    assert sum(1 for ln in passing if ln in result.text) <= 0.05 * len(passing)
    for ln in lines:
        if ln.strip() and " PASSED" not in ln and not ln.startswith(("platform ", "rootdir: ", "configfile: ")):
            assert ln in result.text, ln
    assert re.search(r"… \d{3} similar lines", result.text)


@pytest.mark.parametrize("case_id", ["pylint_report/text_errors", "gcc_warnings/text_one_off", "mypy_report/text_errors"])
def test_real_reports_show_input_lines_verbatim_in_input_order(case_id: str) -> None:
    """Lines are kept or elided, never rewritten (issue 33): after the header, every line
    is an input line, byte for byte and in its input order, or a note the compressor adds
    (a rule's "… +N more", the rules not shown)."""
    text = _content(case_id)
    result = compress(text)
    assert result is not None
    lines = text.splitlines()
    at = {ln: i for i, ln in reversed(list(enumerate(lines)))}
    last = -1
    for ln in result.text.splitlines()[1:]:
        if ln.startswith(("  … +", "[not shown: ")):
            continue
        assert ln in at, ln
        i = lines.index(ln, last + 1)
        last = i
