"""Logs whose lines start with something other than their timestamp (issue 24, class 2).

Real log lines (the corpus' postgres runs) with the prefixes real tooling puts in front of
them: a rotated file's name with its own date (several files concatenated), and the
corpus' own PostgreSQL captures whose lines start with a dash and a Unix time or with the
backend type. Each is a log whatever precedes the timestamp, and the decision says why.
(Until issue 33 two shapes here imitated a reserved public log benchmark's lines; they
are replaced by real captures.)
"""

from __future__ import annotations

import json

import pytest

import headroom
from headroom.compressors.detect import ContentType, detect
from headroom.eval.corpus import load_cases


def _text_case(source: str, intent: str = "one_off"):
    return next(c for c in load_cases(sources=[source]) if c.form == "text" and c.intent == intent)


def _file_prefixed(lines: list[str]) -> str:
    """Three rotated files concatenated, each line led by its file's name and rotation date."""
    parts = [lines[k::3] for k in range(3)]
    return "\n".join(f"postgresql-15-main.log.{k}.2026-11-2{3 - k}_00:00:00 {ln}" for k, p in enumerate(parts)
                     for ln in p)


def _as_captured(lines: list[str]) -> str:
    return "\n".join(lines)


@pytest.mark.parametrize("shape, source", [(_file_prefixed, "postgres_server"), (_as_captured, "postgres_dash_prefix"),
                                           (_as_captured, "pg_category_prefix")])
def test_prefixed_logs_are_logs(shape, source) -> None:
    text = shape(_text_case(source).content.splitlines())
    assert detect(text).type is ContentType.LOG


def test_file_prefixed_log_keeps_its_one_offs_and_says_why() -> None:
    case = _text_case("postgres_server")
    text = _file_prefixed(case.content.splitlines())
    messages = [{"role": "user", "content": "Which things happened just once across these log files?"},
                {"role": "assistant", "content": None,
                 "tool_calls": [{"id": "c1", "type": "function",
                                 "function": {"name": "shell", "arguments": json.dumps({"cmd": "cat *.log.*"})}}]},
                {"role": "tool", "tool_call_id": "c1", "content": text}]
    r = headroom.compress(messages, model="gpt-4o")
    d = next(d for d in r.decisions if d.transform == "content_router")
    assert d.content_type == "log" and d.strategy == "log:log_templates"
    assert "repeated templates" in d.reason
    out = r.messages[-1]["content"]
    assert [f.text for f in case.facts if f.text not in out] == []


def test_grep_hits_over_code_and_prose_with_dates_stay_what_they_were() -> None:
    grep = "\n".join(f"src/app/module_{k}.py:{10 + k}:    value_{k} = compute_{k}(items[{k}])" for k in range(40))
    assert detect(grep).type is ContentType.SEARCH
    prose = "\n".join(f"On 2024-03-{k % 28 + 1:02d} the committee met to discuss topic number {k} of the agenda, "
                      f"and {['agreed', 'argued', 'voted', 'adjourned'][k % 4]} after {k} minutes." for k in range(30))
    assert detect(prose).type is not ContentType.SEARCH
