"""One enormous line gets a way in (issue 24, class 4): split at its structure or at a
size, so a compressor that selects lines or sentences can work; and a block that stays
larger than the model's window says so in its decision.

Real text: the GPL-3 text Debian ships (words of a real document), PostgreSQL's log from
the corpus (a real run) with its newlines lost, a real binary as base64."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.compressors import long_lines
from headroom.config import HeadroomConfig, RouterConfig
from headroom.eval.corpus import load_cases

GPL = Path("/usr/share/common-licenses/GPL-3")
POSTGRES = Path("/usr/lib/postgresql/15/bin/postgres")


def _decision(text: str, question: str, config: HeadroomConfig | None = None):
    messages = [{"role": "user", "content": question},
                {"role": "assistant", "content": None,
                 "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": text}]
    r = headroom.compress(messages, model="gpt-4o", config=config)
    return r.messages[-1]["content"], next(d for d in r.decisions if d.transform == "content_router")


@pytest.mark.skipif(not GPL.exists(), reason="Debian's common licenses")
def test_a_single_line_of_words_is_split_and_compressed() -> None:
    words = " ".join(re.sub(r"[^\w\s]", " ", GPL.read_text()).split())
    text = (words + " ") * (600_000 // len(words))
    assert "\n" not in text
    out, d = _decision(text, "What does this text say about patent licenses?")
    assert d.action == "compressed", d.reason
    assert "one line of" in d.reason and "split at words" in d.reason
    body = MARKER_RE.sub("", out)
    assert d.tokens_after < 0.5 * d.tokens_before
    # Every kept piece is a stretch of the original line. Words without sentence ends are
    # not prose: pieces are selected whole and each dropped run is one elision line.
    elided = re.compile(r"… \d+ lines elided \(lines \d+-\d+\) …")
    assert all(piece.strip(" …") in text or elided.fullmatch(piece.strip())
               for piece in body.splitlines() if piece.strip(" …"))


def test_a_log_that_lost_its_newlines_is_cut_before_each_record() -> None:
    case = next(c for c in load_cases(sources=["postgres_server"]) if c.id.endswith("server_text_one_off"))
    flat = " ".join(case.content.splitlines())
    split = long_lines.split(flat)
    assert split is not None and "split at records" in split[1]
    assert len(split[0].splitlines()) > 0.9 * len(case.content.splitlines())
    out, d = _decision(flat, "Which events in this postgres output only happened once?")
    assert d.action == "compressed" and d.content_type == "log"
    missing = [f.text for f in case.facts if f.text not in out]
    assert len(missing) <= len(case.facts) // 10


@pytest.mark.skipif(not POSTGRES.exists(), reason="Debian's postgresql-15")
def test_a_block_left_larger_than_the_window_says_so() -> None:
    blob = base64.b64encode(POSTGRES.read_bytes()[:400_000]).decode()
    config = HeadroomConfig(router=RouterConfig(min_savings=0.99))  # nothing saves that much: it stays as it is
    _, d = _decision(blob, "What is in this attachment?", config)
    assert d.action == "kept"
    assert "more than gpt-4o's context window (128000)" in d.reason


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab cd.E;{}\n,\"x1"), min_size=0, max_size=3000),
       st.integers(20_001, 60_000))
def test_split_keeps_every_character_but_the_cut_whitespace(seed: str, size: int) -> None:
    line = (seed.replace("\n", " ") or "z") * (size // max(1, len(seed)) + 1)
    out = long_lines.split(line[:size])
    assert out is not None
    joined = re.sub(r"\s+", "", out[0])
    assert joined == re.sub(r"\s+", "", line[:size])
    assert max(len(p) for p in out[0].split("\n")) <= long_lines.LONG_LINE


def test_a_closing_quote_after_a_sentence_end_stays_with_its_sentence() -> None:
    # Found by hypothesis: sentences cut at '." ' lost the quote.
    line = ('1." ' * 6000)[:20001]
    out = long_lines.split(line)
    assert out is not None
    assert re.sub(r"\s+", "", out[0]) == re.sub(r"\s+", "", line)
