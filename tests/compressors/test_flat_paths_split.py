"""A dotted path without index brackets is split at its dots alone (``flat_paths._paths``):
the same pieces as the split at dots and brackets, checked against that split."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors import flat_paths

_KEY = st.text("ab_$-0", min_size=1, max_size=4).filter(lambda k: k[0] in "ab_$")
_STEP = st.one_of(st.text("ab_$-09", min_size=1, max_size=4).map(lambda k: f".{k}"),
                  st.integers(0, 12).map(lambda i: f"[{i}]"))
_PATH_LINE = st.builds(lambda k, steps, v: f"{k}{''.join(steps)} = {v}", _KEY, st.lists(_STEP, min_size=1, max_size=5),
                       st.integers(0, 999))
_OTHER = st.sampled_from(["plain words", "", "x = 1"])


def _reference(lines: list[str]) -> list[tuple[str, ...] | None]:
    out: list[tuple[str, ...] | None] = []
    for ln in lines:
        m = flat_paths._DOTTED.match(ln)
        out.append(tuple(p for p in re.split(r"[.\[\]]", m.group(1)) if p) if m else None)
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(_PATH_LINE, min_size=8, max_size=30), st.lists(st.tuples(st.integers(0, 30), _OTHER), max_size=2))
def test_paths_split_as_before(paths: list[str], others: list[tuple[int, str]]) -> None:
    lines = list(paths)
    for at, line in others:  # a few lines of no path among them (a document's is then None)
        lines.insert(at, line)
    got = flat_paths._paths(lines)
    assert got is not None or others
    if got is not None:
        assert got == _reference(lines)


def test_a_document_of_dotted_paths_is_read() -> None:
    lines = [f"services.{i}.limits.cpu_millis = {i}" for i in range(9)] + ["services[9].name = x"]
    assert flat_paths._paths(lines) == _reference(lines)
