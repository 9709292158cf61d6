"""scan_tokens: the whole-text scan finds exactly what a token-by-token scan finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.query import anchors
from headroom.query.anchors import extract_anchors
from headroom.query.bounded import MAX_TOKEN_CHARS, bound_question, scan_tokens
from headroom.relevance import hybrid

PATTERNS = (anchors._UUID, anchors._HOST, anchors._PATH, anchors._IDENT, anchors._NUMBER, hybrid._EXACT_ID)


def per_token(text: str, *patterns: re.Pattern[str]) -> list[str]:
    """The reference: each whitespace-free token on its own, long ones skipped."""
    words = [m.group(0) for m in re.finditer(r"\S+", bound_question(text))]
    return [m.group(0) for rx in patterns for w in words if len(w) <= MAX_TOKEN_CHARS for m in rx.finditer(w)]


# Characters the patterns care about, whitespace of several kinds and a few non-ASCII ones.
_ALPHABET = st.sampled_from(list("aZx_-./:09'\"`@#é") + [" ", "  ", "\t", "\n", "\u00a0", "\u2003", "ab12", "ORD-", "v1.2"])
texts = st.lists(_ALPHABET, max_size=80).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_whole_text_scan_equals_token_by_token(text):
    for rx in PATTERNS:
        assert scan_tokens(text, rx) == per_token(text, rx)
    assert scan_tokens(text, *PATTERNS) == per_token(text, *PATTERNS)


@settings(max_examples=50, deadline=None)
@given(texts, st.integers(MAX_TOKEN_CHARS + 1, MAX_TOKEN_CHARS + 40))
def test_a_long_run_is_skipped_and_the_rest_still_found(text, n):
    long = "a/" * (n // 2) + "b"
    question = f"{text} {long} host-7.example.org {text}"
    found = scan_tokens(question, *PATTERNS)
    assert found == per_token(question, *PATTERNS)
    assert long not in found and "host-7.example.org" in found


def test_anchors_of_an_ordinary_question():
    a = extract_anchors('What failed on web-35 in /var/log/app.log for "order 991" (id 3f2a9c1e-0000-4000-8000-000000000001)?')
    assert {"web-35", "var/log/app.log", "order 991", "3f2a9c1e-0000-4000-8000-000000000001"} <= a.terms
