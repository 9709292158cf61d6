"""The fast paths behind the latency targets agree with plain reference implementations.

Each optimised routine (numpy statistics, the reused C JSON encoder, the literal error
prefilter, the BM25 tokenizer, the per-block token count) is checked against the
straightforward version it replaced, written here as the specification.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.relevance.bm25 import tokenize
from headroom.tokens import TokenCounter
from headroom.compressors.smart_crusher.compact import dumps, index_text
from headroom.compressors.smart_crusher.rows import RowIndex
from headroom.compressors.smart_crusher.signals import ERROR_TEXT, rows_with_error_text
from headroom.compressors.smart_crusher.stats import (
    _distinct_count,
    change_point_positions,
    field_stats,
    hashable,
    is_monotonic,
    mean_std,
    outlier_positions,
)

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
json_scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(max_size=12))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=25,
)


# -- statistics --------------------------------------------------------------------------

def reference_change_points(values: list[float], threshold: float) -> list[int]:
    """Every position scored directly from its two windows, strongest first, one per
    w-neighbourhood: what the vectorised version computes with prefix sums."""
    n = len(values)
    w = max(5, min(20, n // 50))
    if n < 2 * w:
        return []
    scale = max(abs(v) for v in values) or 1.0
    eps = 1e-9 * scale
    scored = []
    for i in range(w, n - w + 1):
        left, right = values[i - w:i], values[i:i + w]
        m1, m2 = sum(left) / w, sum(right) / w
        v1 = max(0.0, sum(v * v for v in left) / w - m1 * m1)
        v2 = max(0.0, sum(v * v for v in right) / w - m2 * m2)
        shift = abs(m2 - m1)
        score = 0.0 if shift <= eps else shift / (math.sqrt((v1 + v2) / 2) + eps)
        if score > threshold:
            scored.append((score, i))
    picked: list[int] = []
    for _, i in sorted(scored, key=lambda t: (-t[0], t[1])):
        if all(abs(i - j) >= w for j in picked):
            picked.append(i)
    return sorted(picked)


@st.composite
def level_series(draw):
    """Piecewise-constant levels plus small integer noise: clear shifts, exact arithmetic."""
    out: list[float] = []
    for _ in range(draw(st.integers(1, 5))):
        level = draw(st.integers(-50, 50)) * 10
        out += [float(level + draw(st.integers(-1, 1))) for _ in range(draw(st.integers(5, 80)))]
    return out


@settings(max_examples=200, deadline=None)
@given(values=level_series(), threshold=st.sampled_from([1.0, 2.0, 3.0]))
def test_change_points_match_the_direct_computation(values, threshold):
    assert change_point_positions(values, threshold) == reference_change_points(values, threshold)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(finite, max_size=300), threshold=st.sampled_from([2.0, 3.0]), cap=st.integers(1, 20))
def test_outliers_are_the_far_values_capped_most_extreme_first(values, threshold, cap):
    found = outlier_positions(values, threshold, cap)
    assert found == sorted(set(found)) and len(found) <= cap
    m, s = mean_std(values)
    if s <= 0:
        assert found == []
        return
    far = [i for i, v in enumerate(values) if abs(v - m) > threshold * s * (1 + 1e-9)]
    if len(far) <= cap:
        assert set(found) >= set(far)
    for i in found:  # never a value inside the band
        assert abs(values[i] - m) > threshold * s * (1 - 1e-9)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(finite, min_size=1, max_size=200))
def test_mean_std_match_exact_sums(values):
    m, s = mean_std(values)
    ref_m = math.fsum(values) / len(values)
    ref_s = math.sqrt(math.fsum((v - ref_m) ** 2 for v in values) / len(values))
    assert math.isclose(m, ref_m, rel_tol=1e-9, abs_tol=1e-6)
    assert math.isclose(s, ref_s, rel_tol=1e-6, abs_tol=1e-6)


def test_statistics_survive_overflow_and_huge_integers():
    assert mean_std([1.7e308, 1.7e308, -1.7e308]) == (0.0, 0.0)
    assert change_point_positions([1e200] * 20 + [-1e200] * 20, 2.0) == []
    items = [{"big": 10 ** 400, "x": i, "nan": float("nan"), "inf": float("inf")} for i in range(12)]
    stats = field_stats(items, 2.0, 5)
    assert stats["big"].numeric_count == 0 and stats["x"].numeric_count == 12
    assert stats["nan"].numeric_count == 0 and stats["inf"].numeric_count == 0


@settings(max_examples=100, deadline=None)
@given(values=st.lists(finite, max_size=50))
def test_monotonic_counts_steps(values):
    up = sum(b > a for a, b in zip(values, values[1:]))
    down = sum(b < a for a, b in zip(values, values[1:]))
    steps = len(values) - 1
    assert is_monotonic(values) == (len(values) >= 3 and (up >= 0.95 * steps or down >= 0.95 * steps))


def test_numeric_columns_keep_item_positions_when_values_are_missing():
    items = [{"v": 10.0 + (i % 3) * 0.01} for i in range(200)]
    for i in range(0, 200, 7):
        items[i] = {"v": None}
    items[150] = {"v": 500.0}
    fs = field_stats(items, 3.0, 10)["v"]
    assert fs.outliers == [150]
    assert fs.numeric_count == 200 - len(range(0, 200, 7))


# -- JSON text ---------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_dumps_is_compact_json_dumps(value):
    assert dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@settings(max_examples=300, deadline=None)
@given(a=json_values, b=json_values)
def test_hashable_is_equal_exactly_when_the_json_text_is(a, b):
    assert (hashable(a) == hashable(b)) == (dumps(a) == dumps(b))
    assert hashable(a) == hashable(json.loads(dumps(a)))


column_values = (st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-3, 3, allow_nan=False).map(lambda x: x + 0.0)
                 | st.text(max_size=2) | st.lists(st.integers(0, 2), max_size=2)
                 | st.dictionaries(st.sampled_from("ab"), st.integers(0, 1) | st.booleans(), max_size=2))


@settings(max_examples=300, deadline=None)
@given(col=st.lists(column_values, max_size=12) | st.lists(st.lists(st.integers(0, 2) | st.floats(0, 2), max_size=2),
                                                           max_size=8))
def test_distinct_counts_json_texts(col):
    """Fast paths of the distinct count agree with comparing JSON texts (-0.0 and NaN aside)."""
    assert _distinct_count(col, set(map(type, col))) == len({dumps(v) for v in col})


def test_long_nested_columns_stay_exact_about_constancy():
    same = [{"a": [1, 2]} for _ in range(5000)]
    assert _distinct_count(same, {dict}) == 1
    one_off = [{"a": [1, 2]} for _ in range(5000)]
    one_off[1234] = {"a": [1, 2.0]}  # off the sample grid, and equal to the others in Python
    assert _distinct_count(one_off, {dict}) == 2
    varied = [[i % 7] for i in range(5000)]
    assert _distinct_count(varied, {list}) == 7


@settings(max_examples=300, deadline=None)
@given(value=json_values)
def test_index_text_is_the_same_json_value(value):
    """The fast search text parses to the same value as the exact one (finite floats)."""
    assert json.loads(index_text(value)) == json.loads(dumps(value))
    assert "\n" not in index_text(value)  # rows are newline-separated in the index


def test_index_text_falls_back_where_orjson_cannot_encode():
    assert index_text([2 ** 70]) == "[1180591620717411303424]"
    assert index_text("\ud800") == dumps("\ud800")


# -- error prefilter ---------------------------------------------------------------------

row_text = st.lists(st.sampled_from(list('abE rxo:"{}İ') + ["Error", "Exception", "panic:", "FATAL", '"error":1',
                                                            '"error":null', "OOMKilled", "Traceback (", "ERROR"]),
                    max_size=12).map("".join)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(row_text, max_size=30))
def test_error_rows_are_the_rows_the_full_pattern_matches(rows):
    assert rows_with_error_text(RowIndex(rows)) == {i for i, r in enumerate(rows) if ERROR_TEXT.search(r)}


# -- BM25 tokenizer ----------------------------------------------------------------------

_WHOLE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-:/]*[A-Za-z0-9_]|[A-Za-z0-9_]")


def reference_tokenize(text: str) -> list[str]:
    out: list[str] = []
    for tok in _WHOLE.findall(text.lower()):
        out.append(tok)
        if any(c in tok for c in "_.-:/"):
            out.extend(t for t in re.split(r"[_.\-:/]+", tok) if t)
    return out


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(list("aZ09_.-:/ \"é\u0130K") + ["user_42", "10.0.0.1"]), max_size=20).map("".join))
def test_tokenize_gives_whole_tokens_and_their_parts(text):
    assert Counter(tokenize(text)) == Counter(reference_tokenize(text))


# -- token counting ----------------------------------------------------------------------

def test_a_large_tool_output_is_tokenized_once_per_request(monkeypatch):
    """Input total, router, context budget and output total share one count per block."""
    rows = [{"ts": f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z", "host": f"web-{i % 7}", "cpu": 20 + i % 9}
            for i in range(3000)]
    output = json.dumps(rows, indent=2)
    messages = [
        {"role": "user", "content": "Which host had the highest cpu?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "metrics", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": output},
    ]
    seen: Counter[int] = Counter()  # tokenizations
    hashed: Counter[int] = Counter()  # cache keys: a cached count still hashes the whole text
    raw, key = TokenCounter._raw, TokenCounter.cache_key

    def tokenizing(self, text):
        seen[len(text or "")] += 1
        return raw(self, text)

    def hashing(text):
        hashed[len(text)] += 1
        return key(text)

    monkeypatch.setattr(TokenCounter, "_raw", tokenizing)
    monkeypatch.setattr(TokenCounter, "cache_key", staticmethod(hashing))
    pipeline = Pipeline(HeadroomConfig(), store=CompressionStore())
    result = compress(messages, model="gpt-4o-2024-99-99", pipeline=pipeline)  # a fresh counter cache
    assert result.tokens_after < result.tokens_before
    assert seen[len(output)] == 1 and hashed[len(output)] == 1
    compressed = result.messages[-1]["content"]
    # The router's count of its output is lazy (issue 34): taken once, when the total is read.
    assert seen[len(compressed)] == 1 and hashed[len(compressed)] == 1


def test_sampled_token_estimates_stay_close_to_exact_counts():
    """The documented accuracy of both estimators, on the benchmark families' large outputs
    (pretty JSON, JSON rows, log lines, grep output, diffs)."""
    from headroom.eval.scenarios import FAMILIES

    counter = TokenCounter("gpt-4o")
    enc = counter.encoding
    for family, size in [("metrics", 2000), ("api_listing", 600), ("json_logs", 2000), ("text_logs", 3000),
                         ("code_search", 3000), ("git_diff", 300)]:
        s = FAMILIES[family](size, 3)
        text = s.openai_messages(s.probes[0])[-1]["content"]
        exact = len(enc.encode_ordinary(text))
        assert len(text) > 65_536, family
        assert abs(counter.count(text) - exact) <= 0.01 * exact, family
        assert abs(counter.quick_count(text) - exact) <= 0.025 * exact, family
        compact = text[:40_000]
        assert abs(counter.quick_count(compact) - len(enc.encode_ordinary(compact))) <= 0.025 * len(
            enc.encode_ordinary(compact)), family


def test_skipping_a_hopeless_lossless_render_changes_nothing(monkeypatch):
    """The sampled estimate only saves work: the result equals the full-render path's."""
    from headroom.config import HeadroomConfig
    from headroom.eval.scenarios import FAMILIES
    from headroom.tokens import counter_for
    from headroom.query.anchors import extract_anchors
    from headroom.compressors.base import CompressInput
    from headroom.compressors.smart_crusher import crusher

    def run(family: str, size: int):
        s = FAMILIES[family](size, 11)
        messages = s.openai_messages(s.probes[0])
        question = messages[0]["content"] if messages[0]["role"] == "user" else messages[1]["content"]
        inp = CompressInput(text=messages[-1]["content"], config=HeadroomConfig(), counter=counter_for("gpt-4o"),
                            query=question, anchors=extract_anchors(question))
        return crusher.SmartCrusher().compress(inp)

    cases = [("metrics", 800), ("json_logs", 800), ("db_rows", 800), ("api_listing", 300)]
    fast = [run(f, n) for f, n in cases]
    monkeypatch.setattr(crusher.SmartCrusher, "_lossless_clearly_misses", lambda *a: False)
    monkeypatch.setattr(crusher, "minified_estimate", lambda *a: None)
    full = [run(f, n) for f, n in cases]
    for (family, _), a, b in zip(cases, fast, full):
        assert a is not None and a.lossy, family
        assert (a.text, a.items_after, a.summary) == (b.text, b.items_after, b.summary), family


def test_table_estimate_is_close_on_regular_records():
    from headroom.eval.scenarios import FAMILIES
    from headroom.compressors.smart_crusher.table import estimate_table_tokens, plan_table, render_sections

    counter = TokenCounter("gpt-4o")
    for family in ("metrics", "json_logs", "db_rows"):
        s = FAMILIES[family](3000, 2)
        items = json.loads(s.openai_messages(s.probes[0])[-1]["content"])
        sections = plan_table(items)
        exact = len(counter.encoding.encode_ordinary(render_sections(items, sections).text))
        assert abs(estimate_table_tokens(items, sections, counter) - exact) <= 0.01 * exact, family
