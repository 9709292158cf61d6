"""Detection hands the aligned layout it read to the table compressor when the text's
lines are all its sample (issue 34: the compressor read the same lines again): the layout
is the one the compressor would read, and the compressor's result is the same with it
as without it."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.base import CompressInput
from headroom.compressors.detect import detect
from headroom.compressors.tables.aligned import LayoutOf, infer
from headroom.compressors.tables.csv_compressor import TableCompressor
from headroom.config import HeadroomConfig

_NAMES = ["NAME", "STATE", "PID", "RECV-Q", "LOCAL", "PEER", "SIZE", "OWNER"]
_cell = st.one_of(st.integers(0, 99999).map(str), st.sampled_from(["LISTEN", "ESTAB", "root", "x", "a-b", "-"]))


@st.composite
def _tables(draw) -> str:
    k = draw(st.integers(3, 6))
    rows = draw(st.lists(st.lists(_cell, min_size=k, max_size=k), min_size=12, max_size=40))
    header = _NAMES[:k] if draw(st.booleans()) else None
    body = ([header] if header else []) + rows
    widths = [max(len(r[j]) for r in body) + draw(st.integers(2, 3)) for j in range(k)]
    lines = ["".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in body]
    if draw(st.booleans()):
        lines.insert(0, "total 1234")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n", "\n  \n"]))


def _inp(text: str, hint) -> CompressInput:
    return CompressInput(deadline=None, text=text, config=HeadroomConfig(), counter=None, query="", anchors=None,
                         hint=hint)


@settings(max_examples=150, deadline=None)
@given(text=_tables(), query=st.sampled_from(["", "which PID listens", "largest SIZE"]))
def test_the_layout_handed_on_is_the_one_read_again(text: str, query: str) -> None:
    found = detect(text)
    if isinstance(found.hint, LayoutOf):
        assert found.hint.text == text
        assert found.hint.layout == infer(text.split("\n"))
    with_hint = replace(_inp(text, found.hint), query=query)
    assert TableCompressor().compress(with_hint) == TableCompressor().compress(replace(with_hint, hint=None))


def test_a_small_aligned_table_hands_its_layout_on() -> None:
    rows = [f"{'tcp':<6}{'LISTEN':<9}{n:<8}{f'0.0.0.0:{8000 + n}':<16}{'*':<4}" for n in range(20)]
    text = "\n".join([f"{'Netid':<6}{'State':<9}{'Recv-Q':<8}{'Local':<16}{'Peer':<4}", *rows]) + "\n"
    found = detect(text)
    assert isinstance(found.hint, LayoutOf)
    assert found.hint.layout == infer(text.split("\n"))


def test_a_layout_read_off_another_text_is_not_taken() -> None:
    rows = [f"{'tcp':<6}{'LISTEN':<9}{n:<8}{f'0.0.0.0:{8000 + n}':<16}{'*':<4}" for n in range(20)]
    text = "\n".join([f"{'Netid':<6}{'State':<9}{'Recv-Q':<8}{'Local':<16}{'Peer':<4}", *rows])
    other = text.replace("Netid ", "Net   ", 1) + "\nudp   UNCONN   1       0.0.0.0:53      *"
    stale = detect(text).hint
    assert isinstance(stale, LayoutOf)
    assert TableCompressor().compress(_inp(other, stale)) == TableCompressor().compress(_inp(other, None))
