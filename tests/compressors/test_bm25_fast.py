"""bm25_fast gives BM25's own floats, exactly (issue 34: the same ranking, cheaper)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.bm25_fast import bm25_scores
from headroom.relevance.bm25 import BM25

# Words, compound identifiers, separators and case: what decides tokens and their parts.
_piece = st.sampled_from(["alt", "svc", "alt-svc", "user_42", "10.0.0.1", "Error", "error", "a", "the", "42",
                          "-", ".", ":", "/", "_", " ", "  ", "\n", "x.y.", "--alt-svc", "Ünïcode", "ſ", "K"])
_doc = st.lists(_piece, max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(query=_doc, docs=st.lists(_doc, max_size=15))
def test_same_floats_as_bm25(query, docs):
    expected = BM25(docs).scores(query) if docs else []
    assert bm25_scores(query, docs) == expected


@settings(max_examples=200, deadline=None)
@given(query=_doc, docs=st.lists(_doc, min_size=1, max_size=15))
def test_same_floats_given_lowered_text_and_runs(query, docs):
    import re
    low = [d.lower() for d in docs]
    runs = [re.findall(r"[a-z0-9]+", d) for d in low]
    assert bm25_scores(query, docs, low, runs) == BM25(docs).scores(query)


def test_real_question_over_table_rows():
    rows = [f"import time: {k * 37 % 900:>6} | {k * 91 % 5000:>7} | pkg.mod_{k}.sub" for k in range(300)]
    query = "Which module under pkg.mod_17 is the slowest import?"
    assert bm25_scores(query, rows) == BM25(rows).scores(query)
    assert max(bm25_scores(query, rows)) > 0


@settings(max_examples=200, deadline=None)
@given(query=_doc, docs=st.lists(_doc, min_size=1, max_size=15))
def test_same_floats_given_the_runs_sets(query, docs):
    import re
    low = [d.lower() for d in docs]
    runs = [re.findall(r"[a-z0-9]+", d) for d in low]
    assert bm25_scores(query, docs, low, runs, [frozenset(r) for r in runs]) == BM25(docs).scores(query)


_token_chars = st.lists(st.sampled_from(list("ab0_.-:/ x\n") + ["é", "--", "a.b", "_x", "x_"]), max_size=30).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=_token_chars)
def test_compound_tokens_counted_at_their_first_mark(text):
    from headroom.compressors.bm25_fast import _COMPOUND
    from headroom.relevance.bm25 import _TOKEN_RE
    tokens = _TOKEN_RE.findall(text)
    assert len(_COMPOUND.findall(text)) == sum(not t.isalnum() for t in tokens)


@settings(max_examples=500, deadline=None)
@given(texts=st.lists(st.text(max_size=40) | _doc, max_size=8))
def test_alnum_runs_are_the_regex_runs(texts):
    import re

    from headroom.compressors.bm25_fast import alnum_runs
    low = [t.lower() for t in texts]  # any characters: non-ASCII, surrogates, controls
    assert alnum_runs(low) == [re.findall(r"[a-z0-9]+", t) for t in low]


def test_alnum_runs_on_characters_that_are_no_run():
    from headroom.compressors.bm25_fast import alnum_runs
    assert alnum_runs(["k\u212a9\udcff z\x00é1", "", "ab-c_d", "\u0130x"]) == [["k", "9", "z", "1"], [], ["ab", "c", "d"], ["x"]]


def test_terms_found_as_whole_runs_across_document_edges():
    # Without the callers' run sets, a term's documents come from one scan of the joined
    # text: runs at a document's start and end, inside longer runs, and repeated.
    docs = ["alt", "altsvc alt", "svc\nalt-svc", "x alt", "alt.svc alt alt", "", "the altalt", "alt"]
    for query in ("alt", "alt svc", "alt-svc", "the alt", "alt.svc x"):
        assert bm25_scores(query, docs) == BM25(docs).scores(query)
