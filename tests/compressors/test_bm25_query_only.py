"""BM25.scores_from_counts (idf for the query's terms only, issue 34) gives the very floats
of the full index's scores_for_tokens."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.relevance.bm25 import BM25

_terms = st.sampled_from(["parse", "arg", "pipe", "name", "read", "write", "x", "y", "z", "open", "close"])
_docs = st.lists(st.builds(Counter, st.lists(_terms, max_size=30)), max_size=25)


@settings(max_examples=300, deadline=None)
@given(docs=_docs, query=st.lists(st.one_of(_terms, st.just("absent")), max_size=8))
def test_same_floats_as_the_full_index(docs, query):
    assert BM25.scores_from_counts(docs, query) == BM25.from_counts(docs).scores_for_tokens(query)


def test_no_documents():
    assert BM25.scores_from_counts([], ["a"]) == []
