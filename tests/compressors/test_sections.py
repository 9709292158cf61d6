"""Outputs made of parts of different kinds (compressors/sections.py): the real
``python -m cProfile -m pip list`` capture (a package table, summary lines, a profile
table), the plan's invariants, and texts that must stay whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import headroom
from headroom import HeadroomConfig, Pipeline
from headroom.ccr.store import CompressionStore
from headroom.compressors.base import Compressed, CompressInput
from headroom.compressors.detect import ContentType
from headroom.compressors.sections import MIN_LINES, SectionsCompressor, plan
from headroom.eval.corpus import load_cases
from headroom.tokens import counter_for
from headroom.transforms.router import CompressionMemo
from tests.eval.bench_scripts import load_bench

COUNTER = counter_for("gpt-4o")


def _profile_cases():
    return load_cases(sources=["python_cprofile"])


def test_profile_capture_splits_into_the_package_table_and_the_profile():
    text = _profile_cases()[0].content
    parts = plan(text)
    assert parts is not None and len(parts) == 2
    head, profile = parts
    assert text[head.start:head.end].startswith("Package")
    assert text[profile.start:profile.end].lstrip().startswith("ncalls")
    assert profile.detected is not None and profile.detected.type == ContentType.TABLE


def test_every_part_goes_to_its_compressor_and_facts_stay_in_view():
    bench = load_bench("real_corpus_bench")
    for c in _profile_cases():
        pipeline = Pipeline(HeadroomConfig(), store=CompressionStore(max_entries=100))
        pipeline.memo = CompressionMemo(read_store=False)
        result = headroom.compress(bench.case_messages(c), model="gpt-4o", pipeline=pipeline)
        view = bench.tool_texts(result.messages)
        assert all(f.text in view for f in c.facts), c.id
        assert COUNTER.count(view) < 0.05 * COUNTER.count(c.content), c.id
        # The summary lines between the two tables are kept as they were.
        assert "function calls" in view and "Ordered by:" in view
        router = [d for d in result.decisions if d.transform == "content_router"]
        assert router
        assert router[0].strategy.startswith("sections:"), router[0].strategy


def test_untouched_parts_and_separators_are_byte_identical():
    first = "name      size\n" + "".join(f"file{i:03d}   {i * 7}\n" for i in range(40))
    second = "pid   user   command\n" + "\n".join(f"{100 + i:<5} root   worker-{i}" for i in range(30))
    text = f"{first}\n  \n{second}\n"

    class Upper:
        name = "upper"

        def compress(self, inp: CompressInput) -> Compressed:
            return Compressed(inp.text.upper(), 1, 1, "upper")

    parts = plan(text)
    assert parts is not None and len(parts) == 2 and all(p.detected for p in parts)  # each its own part
    every = {t: Upper() for t in ContentType}
    out = SectionsCompressor(every).compress(
        CompressInput(text=text, config=HeadroomConfig(), counter=COUNTER), parts)
    assert out is not None and out.text == text.upper() and out.strategy == "sections:upper+upper"
    assert "\n  \n" in out.text  # the separator exactly as it was

    class Nothing:
        name = "nothing"

        def compress(self, inp: CompressInput) -> None:
            return None

    none = SectionsCompressor({t: Nothing() for t in ContentType}).compress(
        CompressInput(text=text, config=HeadroomConfig(), counter=COUNTER), parts)
    assert none is None  # nothing changed: the router keeps the original


def test_prose_and_single_blocks_stay_whole():
    paragraphs = "\n\n".join(" ".join([f"Paragraph {k} says something about the system and its parts."] * 6)
                             for k in range(12))
    assert plan(paragraphs) is None
    assert plan("\n".join(f"line {i}" for i in range(500))) is None
    assert plan("") is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 2 * MIN_LINES), st.sampled_from(["table", "log", "prose"]),
                          st.sampled_from(["\n\n", "\n \n", "\n\n\n"])), min_size=1, max_size=6))
def test_plan_parts_are_ordered_disjoint_and_cover_every_block(blocks):
    """Invariant: parts are in order, do not overlap, and every non-blank line of the text
    lies inside exactly one part (nothing is lost between them)."""
    chunks = []
    for n, kind, sep in blocks:
        if kind == "table":
            body = "id    value\n" + "\n".join(f"{i:<5} {i * 3}" for i in range(n))
        elif kind == "log":
            body = "\n".join(f"2026-01-01 00:00:{i % 60:02d} INFO worker {i} done" for i in range(n))
        else:
            body = "\n".join("A sentence about the service and what it did today." for _ in range(n))
        chunks.append(body + sep)
    text = "".join(chunks)
    parts = plan(text)
    if parts is None:
        return
    assert len(parts) >= 2
    assert all(a.end <= b.start for a, b in zip(parts, parts[1:]))
    covered = [False] * len(text)
    for p in parts:
        for k in range(p.start, p.end):
            covered[k] = True
    assert all(covered[k] or text[k] in " \t\n" for k in range(len(text)))
