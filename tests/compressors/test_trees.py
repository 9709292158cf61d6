"""Recursive JSON trees (smart_crusher/tree.py) and box-drawn text trees (text_tree.py),
on generated trees and on the dev corpus source ``node_dep_tree`` (pnpm and yarn)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import headroom
from headroom import Pipeline
from headroom.ccr.store import CompressionStore
from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType, detect_content_type
from headroom.compressors.smart_crusher import SmartCrusher
from headroom.compressors.smart_crusher.tree import find_child_key, fold_tree, looks_like_tree
from headroom.compressors.text_tree import compress_text_tree, is_text_tree
from headroom.config import HeadroomConfig
from headroom.eval.corpus import load_cases
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for
from headroom.transforms.router import CompressionMemo
from tests.eval.bench_scripts import load_bench

COUNTER = counter_for("gpt-4o")


def _inp(text: str, q: str = "") -> CompressInput:
    return CompressInput(text=text, config=HeadroomConfig(), counter=COUNTER, query=q, anchors=extract_anchors(q))


def _dep_tree(depth: int, fan: int, shared: bool = True) -> dict:
    """A pnpm-like tree: every node a map entry with version/resolved/path and nested
    ``dependencies``; with ``shared`` the same subtree recurs under several parents."""
    def node(name: str, d: int) -> dict:
        out = {"from": name, "version": f"1.{d}.0",
               "resolved": f"https://registry.example.org/{name}/-/{name}-1.{d}.0.tgz",
               "path": f"/srv/app/node_modules/.pnpm/{name}@1.{d}.0/node_modules/{name}"}
        if d < depth:
            out["dependencies"] = {(f"lib-{d}-{k}" if shared else f"{name}-{k}"): node(
                f"lib-{d}-{k}" if shared else f"{name}-{k}", d + 1) for k in range(fan)}
        return out
    return {"name": "app", "version": "0.0.1", "dependencies": {f"top-{k}": node(f"top-{k}", 1) for k in range(fan)}}


def test_detects_recursive_child_key_only():
    tree = _dep_tree(4, 3)
    assert looks_like_tree(tree)
    assert find_child_key(tree) == "dependencies"
    flat = [{"id": i, "tags": {"a": 1}} for i in range(100)]
    assert not looks_like_tree(flat) and find_child_key(flat) is None
    nested_once = {"data": {"items": [{"id": i} for i in range(50)]}}
    assert find_child_key(nested_once) is None


def test_repeated_subtrees_once_and_named_nodes_whole():
    tree = _dep_tree(5, 3)
    res = fold_tree(tree, "which version of lib-3-1 do we have?")
    assert res is not None
    text = json.dumps(res.value)
    assert "= same as" in text  # repeated subtrees referenced
    assert "lib-3-1-1.4.0.tgz" in text  # the named node keeps its restating fields
    assert "lib-2-0-1.3.0.tgz" not in text  # other nodes lose them
    assert len(text) < 0.3 * len(json.dumps(tree))
    # deepest nodes stay whole
    assert "lib-4-0-1.5.0.tgz" in text


def test_multi_version_and_problem_nodes_whole():
    tree = _dep_tree(3, 4, shared=False)
    tree["dependencies"]["top-0"]["dependencies"]["top-0-1"]["version"] = "9.9.9"
    tree["dependencies"]["top-2"]["dependencies"]["top-2-3"]["missing"] = True
    tree["dependencies"]["top-3"]["dependencies"]["top-3-0"] = dict(tree["dependencies"]["top-3"]["dependencies"]
                                                                    ["top-3-0"], version="1.2.0")
    res = fold_tree(tree)
    text = json.dumps(res.value)
    assert '"missing": true' in text and "top-2-3-1.2.0.tgz" in text


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.text(max_size=8))


@st.composite
def trees(draw, depth=0):
    n = draw(st.integers(0, 4 if depth < 4 else 0))
    node = {"version": draw(st.sampled_from(["1.0.0", "2.0.0", "1.0.0"])), "note": draw(json_leaf)}
    if n:
        names = draw(st.lists(st.sampled_from(["a", "b", "c", "d", "e/f", "g"]), min_size=n, max_size=n, unique=True))
        kids = {nm: draw(trees(depth + 1)) for nm in names}
        node["dependencies"] = kids if draw(st.booleans()) else [dict(v, name=k) for k, v in kids.items()]
    return node


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(root=trees(), as_list=st.booleans(), q=st.sampled_from(["", "what about b?", "which e/f"]))
def test_fold_is_valid_json_and_keeps_every_name(root, as_list, q):
    data = [root] if as_list else root
    res = fold_tree(data, q)
    if res is None:
        return
    out = json.loads(json.dumps(res.value))  # plain JSON values only
    assert isinstance(out, type(data))
    # Every node shown keeps its name (map key) and version; nothing invented.
    assert res.shown <= res.nodes


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(depth=st.integers(3, 5), fan=st.integers(2, 4), shared=st.booleans())
def test_lossy_tree_results_are_recoverable_through_the_pipeline(depth, fan, shared):
    text = json.dumps(_dep_tree(depth, fan, shared), indent=2)
    msgs = [{"role": "user", "content": "what does top-1 depend on?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "pnpm", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": text}]
    result = headroom.compress(msgs, model="gpt-4o")
    out = result.messages[-1]["content"]
    if out == text:
        return
    hashes = re.findall(r"hash=([0-9a-f]+)", out)
    assert hashes, out[-300:]
    assert headroom.retrieve(hashes[-1]).content == text


def test_smart_crusher_routes_trees_to_the_fold():
    text = json.dumps(_dep_tree(5, 3), indent=2)
    out = SmartCrusher().compress(_inp(text, "which version of lib-2-1?"))
    assert out is not None and out.strategy == "tree" and out.lossy
    json.loads(out.text)


# -- text trees ---------------------------------------------------------------------


def _text_tree(depth: int, fan: int) -> str:
    lines = ["my-app@1.0.0 /srv/app"]

    def walk(prefix: str, d: int, name: str) -> None:
        for k in range(fan):
            last = k == fan - 1
            kid = f"{name}-{k}" if d else f"pkg-{k}"
            has = d + 1 < depth
            lines.append(f"{prefix}{'└' if last else '├'}─{'┬' if has else '─'} {kid}@{d}.{k}.0")
            if has:
                walk(prefix + ("  " if last else "│ "), d + 1, kid)
    walk("", 0, "")
    return "\n".join(lines) + "\n"


def test_text_tree_detected_and_folded_with_named_node_in_view():
    text = _text_tree(4, 4)
    assert is_text_tree([ln for ln in text.splitlines() if ln.strip()])
    assert detect_content_type(text) == ContentType.LISTING
    out = compress_text_tree(_inp(text, "which version of pkg-2-1-3 is installed?"))
    assert out is not None and out.lossy
    assert "pkg-2-1-3@2.3.0" in out.text
    assert COUNTER.count(out.text) < 0.5 * COUNTER.count(text)


def test_text_tree_lines_are_the_tools_own_or_markers():
    """Lines are kept or left out whole (issue 33): every line after the summary is a line
    of the drawing, verbatim and in its order, or a marker for a run of left-out lines."""
    text = _text_tree(3, 5)
    out = compress_text_tree(_inp(text))
    assert out is not None
    original = text.splitlines()
    kept = []
    for ln in out.text.splitlines()[1:]:
        if re.fullmatch(r"\s*… \d+ lines? omitted(?: \(a subtree shown above\))?", ln):
            continue
        assert ln in original, ln
        kept.append(original.index(ln))
    assert kept == sorted(kept) and len(kept) < len(original)


def test_plain_text_is_not_a_tree():
    prose = "\n".join(f"line {i} of a README with - dashes and │ bars" for i in range(40))
    assert not is_text_tree(prose.splitlines())


# -- the dev corpus source ----------------------------------------------------------


@pytest.fixture(scope="module")
def node_cases():
    return load_cases(sources=["node_dep_tree"])


def test_node_dep_tree_is_dev(node_cases):
    assert node_cases and all(c.split == "dev" for c in node_cases)


def test_node_dep_tree_facts_in_view(node_cases):
    bench = load_bench("real_corpus_bench")
    case_messages, tool_texts = bench.case_messages, bench.tool_texts
    for c in node_cases:  # a fresh pipeline per case: cases share outputs, the memo would too
        pipeline = Pipeline(HeadroomConfig(), store=CompressionStore(max_entries=100))
        pipeline.memo = CompressionMemo(read_store=False)
        result = headroom.compress(case_messages(c), model="gpt-4o", pipeline=pipeline)
        view = tool_texts(result.messages)
        missing = [f.text for f in c.facts if f.text not in view]
        assert not missing, (c.id, missing)
        assert COUNTER.count(view) < 0.35 * COUNTER.count(c.content), c.id


def test_skipping_the_count_of_a_clearly_too_long_rendering_changes_no_output(node_cases, monkeypatch):
    # A rendering estimated (from characters) at over twice the folding threshold is
    # folded further without being counted: on the real trees the outputs are the same
    # as counting every rendering.
    from headroom.compressors import text_tree

    cases = [c for c in node_cases if c.form == "text"]
    assert len(cases) >= 4
    for case in cases:
        inp = CompressInput(text=case.content, config=HeadroomConfig(), counter=counter_for("gpt-4o"),
                            query=case.question)
        fast = text_tree.compress_text_tree(inp)
        monkeypatch.setattr(text_tree, "_UNCOUNTED_ABOVE", float("inf"))
        slow = text_tree.compress_text_tree(inp)
        monkeypatch.undo()
        assert (fast is None) == (slow is None), case.id
        assert fast is None or fast.text == slow.text, case.id


_problem_piece = st.sampled_from(["error", "ERR", "ERR!", "!", "x", "_", " ", "-", "UNMET", "invalid", "é", "ſ", "1",
                                  "conflict", "missing"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(_problem_piece, max_size=8).map("".join), max_size=8))
def test_problem_labels_found_in_one_pass_are_the_ones_found_label_by_label(labels):
    """One search over the joined labels, with the word boundary checked per find
    (issue 34), flags exactly the labels the per-label search flags."""
    from headroom.compressors.text_tree import _PROBLEM, _problem_nodes

    assert _problem_nodes(labels) == {i for i, label in enumerate(labels) if _PROBLEM.search(label)}
