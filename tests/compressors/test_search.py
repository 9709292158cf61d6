"""SearchCompressor: grouped per file, capped, relevant and anchored hits kept."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.compressors.base import CompressInput
from headroom.compressors.search import SearchCompressor, parse_search
from headroom.config import HeadroomConfig, RouterConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import count_tokens, counter_for

PLANTED = "    raise PaymentDeclined(code='CARD_EXPIRED_4417')  # compute_total path"


def rg_output(files: int = 40, per_file: int = 12, line_numbers: bool = True) -> str:
    """rg over a repo: ``files`` files with ``per_file`` hits each; one planted line in file 23."""
    out = []
    for f in range(files):
        path = f"src/pkg{f % 5}/module_{f}.py"
        for k in range(per_file):
            content = PLANTED if (f == 23 and k == 9) else f"    total = compute_total(items_{k}, discount={k})"
            out.append(f"{path}:{10 + k * 7}:{content}" if line_numbers else f"{path}:{content}")
    return "\n".join(out)


def compress(text: str, query: str = "", config: HeadroomConfig | None = None, aggressiveness: float = 0.5):
    return SearchCompressor().compress(
        CompressInput(text=text, config=config or HeadroomConfig(), counter=counter_for("gpt-4o"),
                      query=query, anchors=extract_anchors(query), aggressiveness=aggressiveness)
    )


def hit_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if re.match(r"^src/\S+\.py:", ln)]


def test_rg_over_40_files_keeps_anchor_hit_and_caps() -> None:
    text = rg_output()
    out = compress(text, query="where is CARD_EXPIRED_4417 raised?")
    assert out is not None and out.lossy
    assert f"src/pkg3/module_23.py:73:{PLANTED}" in out.text
    hits = hit_lines(out.text)
    assert len(hits) == out.items_after <= 40
    assert out.items_before == 480
    assert count_tokens(out.text) < count_tokens(text) * 0.3


def test_per_file_cap_and_dropped_counts() -> None:
    text = rg_output(files=5, per_file=12)
    out = compress(text)
    for f in range(5):
        path = f"src/pkg{f % 5}/module_{f}.py"
        assert sum(1 for ln in hit_lines(out.text) if ln.startswith(path + ":")) == 5
    for f in range(5):  # the rest of each file: one line with its count and line range (issue 33)
        assert f"… src/pkg{f % 5}/module_{f}.py: 7 more hits (lines 45-87)" in out.text
    # Without a question the earliest hits of each file are kept, in order.
    first = hit_lines(out.text)[:5]
    assert [int(ln.split(":")[1]) for ln in first] == [10, 17, 24, 31, 38]


def test_relevance_to_the_question_picks_the_hits() -> None:
    lines = []
    for k in range(30):
        body = "    retry_budget = load_retry_budget(cfg)" if k == 21 else f"    value_{k} = helper_{k}(x)"
        lines.append(f"app/settings.py:{k + 1}:{body}")
    out = compress("\n".join(lines), query="how is the retry budget loaded")
    assert "app/settings.py:22:    retry_budget = load_retry_budget(cfg)" in out.text


def test_total_cap_lists_dropped_files() -> None:
    text = rg_output(files=60, per_file=3)
    cfg = HeadroomConfig(router=RouterConfig(search_max_total=10, search_max_per_file=2))
    out = compress(text, config=cfg)
    assert out.items_after == 10
    # Files with nothing in view: one line each with their count and line range (issue 33).
    # Past 40 such files, the rest are counted per directory.
    unseen = re.findall(r"^… (src/\S+\.py): (\d+) hits \(lines 10-24\)$", out.text, re.MULTILINE)
    dirs = re.findall(r"^… (src/pkg\d/): (\d+) hits in (\d+) more files$", out.text, re.MULTILINE)
    assert len(unseen) == 40 and sum(int(m) for *_, m in dirs) == 10
    assert sum(int(n) for _, n in unseen) + sum(int(n) for _, n, _ in dirs) == 150


def test_without_line_numbers_and_heading_mode() -> None:
    no_numbers = compress(rg_output(files=4, per_file=10, line_numbers=False))
    assert no_numbers is not None
    assert "src/pkg0/module_0.py:    total = compute_total(items_0, discount=0)" in no_numbers.text
    heading = "\n".join(
        f"src/mod{i}/file{i}.py\n" + "\n".join(f"{k * 4 + 1}:    x = compute_total({k})" for k in range(9)) + "\n"
        for i in range(6)
    )
    files, other = parse_search(heading)
    assert len(files) == 6 and other == 0 and all(len(f.hits) == 9 for f in files)
    out = compress(heading)
    # Heading mode stays heading mode: the path line, then the file's own "12:text" lines.
    assert "src/mod2/file2.py\n1:    x = compute_total(0)\n" in out.text
    assert out.items_before == 54 and out.items_after == 30


def test_context_lines_are_not_items_and_follow_their_match() -> None:
    text = "\n".join(
        f"lib/a.py:{k}-    context before {k + 1}\nlib/a.py:{k + 1}:    match {k + 1}\n"
        f"lib/a.py:{k + 2}-    context after {k + 1}\n--" for k in range(1, 60, 4)
    )
    files, _ = parse_search(text)
    assert sum(1 for h in files[0].hits if h.context) == 2 * sum(1 for h in files[0].hits if not h.context)
    out = compress(text, query="what is match 22")
    assert out.items_before == 15 and out.items_after == 5
    assert "lib/a.py:21-    context before 22\nlib/a.py:22:    match 22\nlib/a.py:23-    context after 22" in out.text
    kept_matches = re.findall(r"^lib/a.py:(\d+):", out.text, re.MULTILINE)
    kept_context = re.findall(r"^lib/a.py:(\d+)-", out.text, re.MULTILINE)
    assert len(kept_context) == 2 * len(kept_matches)  # only the context of kept matches


def test_small_results_are_left_alone() -> None:
    assert compress(rg_output(files=2, per_file=3)) is None


def test_deterministic() -> None:
    text = rg_output()
    assert compress(text, query="compute_total discount").text == compress(text, query="compute_total discount").text


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=2000))
def test_odd_input_never_raises(text: str) -> None:
    out = compress(text)
    assert out is None or out.items_after < out.items_before


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a.py", "b/c.go", "d e.txt", ":x", "f.rs"]), st.integers(0, 99),
                          st.sampled_from([":", "-"]), st.text(max_size=30)), min_size=1, max_size=200))
def test_hit_shaped_noise_never_raises(rows) -> None:
    out = compress("\n".join(f"{p}:{n}{sep}{t}" for p, n, sep, t in rows))
    assert out is None or out.items_after <= out.items_before


def test_end_to_end_marker_retrieves_exact_original() -> None:
    text = rg_output(files=40, per_file=12)
    messages = [
        {"role": "user", "content": "Find where CARD_EXPIRED_4417 is raised."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_s", "type": "function", "function": {"name": "ripgrep", "arguments": '{"pattern": "compute_total"}'}}]},
        {"role": "tool", "tool_call_id": "call_s", "content": text},
    ]
    result = headroom.compress(messages, model="gpt-4o")
    compressed = result.messages[2]["content"]
    assert PLANTED in compressed
    m = MARKER_RE.search(compressed)
    assert m
    got = headroom.retrieve(m.group("hash"))
    assert got is not None and got.content == text


# (file, a definition of fetch_rows in its language, a use of it)
LANGS = [("src/a.py", "def fetch_rows(x):", "    rows = fetch_rows(q)"),
         ("lib/b.js", "function fetch_rows (q) {", "  return fetch_rows(a, b);"),
         ("c.rs", "pub fn fetch_rows() {", "    let r = fetch_rows();"),
         ("include/d.h", "#define fetch_rows(x) x", "    n = fetch_rows(3);"),
         ("completions/tool", "fetch_rows() {", "    fetch_rows \"$@\"")]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(LANGS) - 1), st.integers(1, 900), st.booleans()), min_size=3,
                max_size=120),
       st.booleans())
def test_kept_lines_are_original_lines_and_definitions_stay(rows, heading: bool) -> None:
    """Issue 33: every output line is an original line, an rg heading, or a "… " summary;
    every definition line of the searched symbol is among the kept ones."""
    hits = [(LANGS[k][0], n, LANGS[k][1] if is_def else LANGS[k][2]) for k, n, is_def in rows]
    if heading:
        by_file: dict[str, list[str]] = {}
        for p, n, t in hits:
            by_file.setdefault(p, []).append(f"{n}:{t}")
        text = "\n\n".join(p + "\n" + "\n".join(lines) for p, lines in by_file.items())
    else:
        text = "\n".join(f"{p}:{n}:{t}" for p, n, t in hits)
    out = SearchCompressor().compress(CompressInput(
        text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query="where is it defined?",
        tool_arguments='{"command": "rg -n fetch_rows"}'))
    if out is None:
        return
    original = set(text.splitlines())
    kept = out.text.splitlines()
    for ln in kept:
        assert ln in original or ln.startswith("… ") or not ln, ln
    if sum(1 for *_, is_def in rows if is_def) > 40:
        return  # past the cap of definition lines (a name defined in 40+ places is a method name)
    for (p, n, t), (_, _, is_def) in zip(hits, rows):
        if is_def:
            assert (f"{n}:{t}" if heading else f"{p}:{n}:{t}") in kept


def test_scoped_npm_paths_are_search_hits() -> None:
    """Issue 33: grep over an npm tree prints ``node_modules/@scope/...`` paths; those read as
    search hits, not as a log (file names are npm's own; the hit texts are paraphrases)."""
    from headroom.compressors.detect import ContentType, detect

    files = ("build-ideal-tree.js", "reify.js", "load-actual.js", "node.js", "edge.js")
    plain = "\n".join(f"node_modules/@npmcli/arborist/lib/{f}:{10 * k + 3}:    const depth = node.depth + {k}"
                      for k in range(30) for f in files[k % 5:k % 5 + 1])
    assert detect(plain).type is ContentType.SEARCH
    heading = "\n\n".join(f"node_modules/@npmcli/arborist/lib/{f}\n" + "\n".join(
        f"{10 * k + 3}:    const depth = node.depth + {k}" for k in range(6)) for f in files)
    assert detect(heading).type is ContentType.SEARCH


def test_vimgrep_columns_are_split_off_and_kept() -> None:
    """``rg --vimgrep`` prints ``path:line:column:text``: the definition is still found, and
    the kept line is printed exactly as rg printed it."""
    lines = [f"src/m{k}.py:{k + 3}:9:    total = fetch_rows(q{k})" for k in range(60)]
    lines.insert(55, "src/db.py:41:5:def fetch_rows(query):")  # past the 40 files filler reaches
    text = "\n".join(lines)
    files, _ = parse_search(text)
    assert all(h.column and h.render() in text for f in files for h in f.hits)
    out = SearchCompressor().compress(CompressInput(
        text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query="",
        tool_arguments='{"command": "rg --vimgrep fetch_rows"}'))
    assert "src/db.py:41:5:def fetch_rows(query):" in out.text.splitlines()
