"""ListingCompressor: two-column listings keep named rows, extremes, first/last."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType, detect_content_type
from headroom.compressors.listing import ListingCompressor
from headroom.config import HeadroomConfig
from headroom.eval.corpus import load_cases
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for


def compress(text: str, query: str = ""):
    return ListingCompressor().compress(CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"),
                                                      query=query, anchors=extract_anchors(query)))


def dev_content(case_id: str) -> str:
    return next(c.content for c in load_cases("dev") if c.id == case_id)


def body_rows(out_text: str) -> list[str]:
    return [ln for ln in out_text.splitlines() if not ln.startswith(("[listing:", "… "))]


def test_pip_list_keeps_header_and_the_package_the_question_names() -> None:
    text = dev_content("pip_list/version_0_text")  # a real `pip list`
    assert detect_content_type(text) == ContentType.LISTING
    lines = text.splitlines()
    for name in ("click", "numpy", "fastapi"):
        row = next(ln for ln in lines if ln.split()[0] == name)
        out = compress(text, f"Which version of {name} is installed?")
        assert row in out.text.splitlines()
        assert out.text.splitlines()[1:3] == lines[:2]  # header and ruler
        assert lines[2] in out.text and lines[-1] in out.text  # first and last rows
    assert all(ln in lines for ln in body_rows(out.text))


def test_du_tree_keeps_largest_directories_per_depth_and_largest_files() -> None:
    text = dev_content("du_tree/largest_file_text")  # a real `du -ak`, sorted by path
    assert detect_content_type(text) == ContentType.LISTING
    rows = [ln.split("\t") for ln in text.splitlines()]
    paths = {p for _, p in rows}
    parents = {p.rsplit("/", 1)[0] for p in paths if "/" in p}
    files = [(int(s), p) for s, p in rows if p not in parents]
    top_level = [(int(s), p) for s, p in rows if p.count("/") == 1]
    out = compress(text, "Which file takes the most space?")
    kept = out.text.splitlines()
    assert f"{max(files)[0]}\t{max(files)[1]}" in kept
    assert f"{max(top_level)[0]}\t{max(top_level)[1]}" in kept
    omitted = sum(int(ln.split()[1]) for ln in kept if ln.startswith("… "))
    assert omitted + len(body_rows(out.text)) == len(rows)
    assert len(out.text) < 0.05 * len(text)


def test_lookalikes_are_not_listings() -> None:
    js_map = "{\n" + "\n".join(f"  '1.{i}.0': '2024-01-{i % 28 + 1:02d}T00:00:00Z'," for i in range(30)) + "\n}"
    yaml = "\n".join(f"key_{i}: value {i}" for i in range(30))
    csv = "\n".join(f"{i},{i * 2},name{i}" for i in range(30))
    prose = "\n".join(["The service restarted after the deploy finished and the cache warmed up again."] * 20)
    for text in (js_map, yaml, csv, prose):
        assert detect_content_type(text) != ContentType.LISTING, text[:40]
    assert detect_content_type("\n".join(f"pkg{i}  1.{i}" for i in range(5))) != ContentType.LISTING  # too short


_NAME = st.from_regex(r"[a-z][a-z0-9_-]{1,10}", fullmatch=True)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(_NAME, st.integers(0, 10**6)), min_size=12, max_size=120, unique_by=lambda r: r[0]),
       st.booleans())
def test_kept_rows_are_input_rows_and_extremes_first_last_survive(rows, tab: bool) -> None:
    sep = "\t" if tab else "    "
    lines = [f"{n}{sep}{v}" for n, v in rows]
    text = "\n".join(lines)
    out = compress(text)
    if out is None:
        return  # nothing worth dropping
    kept = body_rows(out.text)
    assert all(ln in lines for ln in kept)
    assert lines[0] in kept and lines[-1] in kept
    biggest = max(range(len(rows)), key=lambda k: (rows[k][1], -k))
    assert lines[biggest] in kept
    omitted = sum(int(ln.split()[1]) for ln in out.text.splitlines() if ln.startswith("… "))
    assert omitted + len(kept) == len(lines) == out.items_before


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=1500))
def test_odd_input_never_raises(text: str) -> None:
    compress(text)


def test_a_counter_listing_keeps_the_counter_the_question_spells_out():
    """``cat /proc/vmstat``: "name value" rows; "the dirty background threshold" names
    ``nr_dirty_background_threshold`` by its words only."""
    import random

    from .tool_rounds import tool_round

    rng = random.Random(4)
    names = [f"nr_{a}_{b}" for a in ("free", "zone", "inactive", "active", "isolated", "file", "anon", "shmem",
                                      "writeback", "unstable", "bounce", "vmscan")
             for b in ("pages", "anon", "file", "write", "read", "immediate", "hugepages")]
    names.insert(40, "nr_dirty_background_threshold")
    names.insert(60, "nr_dirty_threshold")
    text = "\n".join(f"{n} {rng.randrange(0, 10**7)}" for n in names) + "\n"
    got = tool_round("cat /proc/vmstat", text, "What is the dirty background threshold, in pages?")
    assert "nr_dirty_background_threshold " in got
    assert len(got) < 0.4 * len(text)
