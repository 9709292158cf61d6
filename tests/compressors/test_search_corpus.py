"""Search hits over real repositories (corpus source ``search_hits``, issue 33): the
definition line is in view for every case, and a file's hits come back by its path."""

from __future__ import annotations

import json
import re

import pytest

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.eval.corpus import load_cases

CASES = load_cases("dev", sources=["search_hits"])


def _conversation(case) -> list[dict]:
    return [
        {"role": "user", "content": case.question},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": case.tool_name, "arguments": json.dumps(case.tool_arguments)}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": case.content},
    ]


def test_the_source_covers_four_languages_and_many_packages() -> None:
    repos = {c.id.split("/")[1].split("_")[0] for c in CASES}
    assert len(CASES) >= 20 and {"rich", "jinja2", "npm", "openssl", "libc", "memchr"} <= repos


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_definition_line_in_view(case) -> None:
    out = headroom.compress(_conversation(case), model="gpt-4o").messages[2]["content"]
    assert MARKER_RE.search(out), "compressed (a marker)"
    for f in case.facts:
        assert f.text in out, f"{case.id}: definition line not in view: {f.text!r}"


def test_marker_says_how_to_get_a_files_hits_and_the_store_answers() -> None:
    case = next(c for c in CASES if c.id.endswith("rich_Console"))
    out = headroom.compress(_conversation(case), model="gpt-4o").messages[2]["content"]
    m = MARKER_RE.search(out)
    assert m and "headroom_retrieve with query=<its path>" in m.group(0)
    summarised = re.findall(r"^… (\S+): (\d+) (?:more )?hits?\b", out, re.MULTILINE)
    assert summarised
    for path, n in summarised[:5]:
        got = headroom.retrieve(m.group("hash"), query=path)
        want = [ln for ln in case.content.splitlines() if ln.startswith(f"{path}:")]
        assert got.results == want
        kept = [ln for ln in out.splitlines() if ln.startswith(f"{path}:")]
        assert len(want) - len(kept) == int(n)  # the count on the summary line is what is not in view
