"""headroom.report.savings and headroom.report.inspect over metrics rows: the prompt-cache
discount, grouping by day, model and agent, the JSON shape, and databases written before
the columns they read existed."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st

from headroom.metrics import MetricsStore, RequestMetrics
from headroom.providers.prices import ModelPrice
from headroom.report.inspect import EXPIRED, LOSSLESS, inspect_requests, render_text
from headroom.report.savings import day_of, row_saving, savings, summarize_savings
from headroom.report.savings import render_text as savings_text

PRICE = ModelPrice("m", 200_000, input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)
NO_CACHE_PRICE = ModelPrice("n", 128_000, input=2.0, output=8.0)
DAY = 86_400
NOW = 20_000 * DAY + 3_600  # 01:00 UTC on some day


def row(saved=1000, cached=0, repeat=0, model="m", agent="claude-cli", ts=NOW, mode="optimize", output=20, **kw):
    return RequestMetrics(timestamp=ts, model=model, agent=agent, mode=mode, tokens_before=saved * 3,
                          tokens_after=saved * 2, tokens_saved=saved, cached_tokens=cached, repeat_saved=repeat,
                          output_tokens=output, **kw)


def prices(model):
    return {"m": PRICE, "n": NO_CACHE_PRICE}.get(model)


def test_without_cache_reads_every_saved_token_is_priced_as_input():
    s = row_saving(row(saved=1000, cached=0, repeat=800), PRICE)
    assert (s.at_cache_price, s.at_input_price) == (0, 1000)
    assert s.usd == pytest.approx(1000 * 3.0 / 1e6)


def test_repeated_blocks_save_only_the_cache_read_price_when_the_request_hit_the_cache():
    s = row_saving(row(saved=1000, cached=5000, repeat=800), PRICE)
    assert (s.at_cache_price, s.at_input_price) == (800, 200)
    assert s.usd == pytest.approx((200 * 3.0 + 800 * 0.3) / 1e6)


def test_a_response_whose_usage_was_not_read_is_assumed_cached():
    s = row_saving(row(saved=1000, cached=0, repeat=600, output=0), PRICE)
    assert (s.at_cache_price, s.at_input_price) == (600, 400)


def test_an_old_row_with_cache_reads_claims_only_the_cache_price():
    s = row_saving(row(saved=1000, cached=10, repeat=None), PRICE)
    assert s.at_cache_price == 1000 and s.usd == pytest.approx(1000 * 0.3 / 1e6)


def test_a_model_without_a_cache_price_and_an_unpriced_model():
    assert row_saving(row(saved=500, cached=9, repeat=500), NO_CACHE_PRICE).usd == pytest.approx(500 * 2.0 / 1e6)
    assert row_saving(row(saved=500), None).usd is None


@given(saved=st.integers(0, 10**7), cached=st.integers(0, 10**7), repeat=st.one_of(st.none(), st.integers(-5, 10**7)))
def test_savings_lie_between_the_cache_price_and_the_input_price(saved, cached, repeat):
    s = row_saving(row(saved=saved, cached=cached, repeat=repeat), PRICE)
    assert s.at_cache_price + s.at_input_price == saved
    assert saved * 0.3 / 1e6 - 1e-12 <= s.usd <= saved * 3.0 / 1e6 + 1e-12
    if cached == 0:  # and the usage was read (output tokens recorded)
        assert s.usd == pytest.approx(saved * 3.0 / 1e6)


def test_grouped_by_day_model_and_agent():
    rows = [row(ts=NOW), row(ts=NOW - DAY, agent="codex_exec"), row(model="n", ts=NOW),
            row(model="unknown-model", ts=NOW), row(mode="audit", ts=NOW)]
    s = summarize_savings(rows, prices=prices)
    assert s["totals"]["requests"] == 4 and s["not_optimize_requests"] == 1
    today, yesterday = day_of(NOW), day_of(NOW - DAY)
    assert list(s["by_day"]) == [yesterday, today]
    assert set(s["by_agent"]) == {"claude-cli", "codex_exec"}
    assert s["by_model"]["unknown-model"]["unpriced_tokens_saved"] == 1000
    assert s["totals"]["usd_saved"] == pytest.approx((2 * 3000 + 2000) / 1e6)
    assert {(r["day"], r["model"], r["agent"]) for r in s["rows"]} == {
        (today, "m", "claude-cli"), (yesterday, "m", "codex_exec"),
        (today, "n", "claude-cli"), (today, "unknown-model", "claude-cli")}
    text = savings_text(s)
    assert "codex_exec" in text and "not in USD" in text and "audit/simulate/passthrough" in text


def test_days_window_and_json_shape(tmp_path):
    db = tmp_path / "m.db"
    with MetricsStore(db) as m:
        m.record_many([row(ts=NOW), row(ts=NOW - DAY), row(ts=NOW - 3 * DAY)])
    with MetricsStore(db, read_only=True) as m:
        one, three = savings(m, days=1, now=NOW, prices=prices), savings(m, days=3, now=NOW, prices=prices)
    assert one["totals"]["requests"] == 1 and three["totals"]["requests"] == 2
    assert set(three) == {"totals", "not_optimize_requests", "by_day", "by_model", "by_agent", "rows", "days", "since"}
    assert set(three["totals"]) >= {"requests", "tokens_before", "tokens_saved", "saved_at_cache_price",
                                    "saved_at_input_price", "usd_saved", "unpriced_tokens_saved", "savings_pct"}
    with pytest.raises(ValueError):
        savings(MetricsStore(":memory:"), days=0)


# The columns of a metrics table written before tenant, agent, cache writes, blocks,
# repeat savings and retrieve calls were recorded.
OLD_COLUMNS = ("timestamp REAL, request_id TEXT, provider TEXT, model TEXT, mode TEXT, tokens_before INTEGER, "
               "tokens_after INTEGER, tokens_saved INTEGER, transforms_applied TEXT, transform_savings TEXT, "
               "tool_savings TEXT, tool_names TEXT, cached_tokens INTEGER, output_tokens INTEGER, latency_ms REAL, "
               "compression_ms REAL, stream INTEGER, status_code INTEGER, ccr_hashes TEXT, retrievals INTEGER, "
               "cost_saved_usd REAL, error TEXT")


def old_database(path):
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE TABLE requests (id INTEGER PRIMARY KEY AUTOINCREMENT, {OLD_COLUMNS})")
    conn.execute("INSERT INTO requests (timestamp, request_id, provider, model, mode, tokens_before, tokens_after, "
                 "tokens_saved, transforms_applied, transform_savings, tool_savings, tool_names, cached_tokens, "
                 "output_tokens, latency_ms, compression_ms, stream, status_code, ccr_hashes, retrievals, "
                 "cost_saved_usd, error) VALUES (?, 'r1', 'openai', 'm', 'optimize', 3000, 1000, 2000, '[]', '{}', "
                 "'{}', '[]', 100, 5, 1.0, 1.0, 0, 200, ?, 1, NULL, NULL)", (NOW, '["' + "a" * 24 + '"]'))
    conn.commit()
    conn.close()


def test_an_older_database_reads_read_only_without_being_changed(tmp_path):
    db = tmp_path / "old.db"
    old_database(db)
    before = db.read_bytes()
    with MetricsStore(db, read_only=True) as m:
        [r] = m.query(tenants=frozenset({"x"}))  # untagged: visible to anyone
        s = savings(m, days=1, now=NOW, prices=prices)
        [view] = inspect_requests(m, None, tenants=frozenset())
        with pytest.raises(PermissionError):
            m.record(row())
    assert db.read_bytes() == before  # no migration by a reader
    assert r.agent == "" and r.blocks == [] and r.repeat_saved is None and r.cache_write_tokens == 0
    assert s["totals"]["saved_at_cache_price"] == 2000  # cache reads, no split known: the cheap price
    assert [b.hash for b in view.blocks] == ["a" * 24] and view.blocks[0].status == LOSSLESS
    assert view.retrievals_asked == view.retrievals_answered == 1
    # A writer migrates it, and the old row still reads.
    with MetricsStore(db) as m:
        m.record(row())
        assert m.query()[0].request_id == "r1"


def test_a_missing_database_is_an_error_not_a_new_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        MetricsStore(tmp_path / "none.db", read_only=True)
    assert not (tmp_path / "none.db").exists()


def test_inspect_text_when_the_original_expired(tmp_path):
    from headroom.ccr.backends import MemoryBackend

    r = row(blocks=[{"message": 2, "block": 0, "role": "tool", "tool": "sh", "transform": "content_router",
                     "action": "compressed", "strategy": "logs:x", "content_type": "log", "before": 900,
                     "after": 100, "hash": "b" * 24, "repeat": False}])
    db = tmp_path / "m.db"
    with MetricsStore(db) as m:
        m.record(r)
    with MetricsStore(db, read_only=True) as m:
        [view] = inspect_requests(m, MemoryBackend(), tenants=None)
    assert view.blocks[0].status == EXPIRED
    text = render_text([view])
    assert "messages[2]" in text and "900 -> 100" in text and EXPIRED in text
    assert render_text([]).startswith("no requests")


def test_long_runs_fold_in_the_terminal_view_and_stay_whole_in_json():
    from headroom.report.inspect import STORED, BlockView

    original = "\n".join(f"line {i}" for i in range(100))
    sent = "\n".join([*original.splitlines()[:3], "# [97 items compressed to 3.]"])
    b = BlockView(2, 0, "user", None, "content_router", "logs:x", "log", 500, 20, "c" * 24, False, STORED,
                  original=original, compressed=sent)
    whole, folded = b.diff().splitlines(), b.diff(max_run=8).splitlines()
    assert sum(ln.startswith("-") for ln in whole[2:]) == 97
    assert len(folded) < 20 and any(f"{97 - 2 * 4} more lines removed" in ln for ln in folded)
    assert folded[:2] == whole[:2] and folded[-1] == whole[-1]
    # Every line the folded view shows is a line of the whole diff, or the count.
    assert all(ln in whole or "more lines" in ln for ln in folded)


@pytest.mark.parametrize(("header", "agent"), [
    ("claude-cli/2.1.328 (external, cli)", "claude-cli"),
    ("codex_exec/0.169.0 (Ubuntu 24.4.0; x86_64) xterm-256color (codex_exec; 0.169.0)", "codex_exec"),
    ("OpenAI/Python 1.109.1", "openai-python"),
    ("Anthropic/Python 0.69.0", "anthropic-python"),
    ("aider/v0.86.1", "aider"),
    ("python-httpx/0.28.1", "python-httpx"),
    ("", ""), (None, ""), ("(no product)", ""),
])
def test_agent_from_the_user_agent(header, agent):
    from headroom.metrics.agent import agent_name

    assert agent_name(header) == agent


@given(st.text(max_size=400))
def test_agent_name_is_short_lowercase_and_never_fails(header):
    from headroom.metrics.agent import MAX_AGENT_CHARS, agent_name

    name = agent_name(header)
    assert len(name) <= MAX_AGENT_CHARS and name == name.lower() and " " not in name


def test_jsonl_metrics_are_scoped_by_tenant_too(tmp_path):
    path = tmp_path / "m.jsonl"
    with MetricsStore(path) as m:
        m.record_many([row(tenant="a"), row(tenant="b"), row(tenant=None)])
    with MetricsStore(path, read_only=True) as m:
        assert sorted(str(r.tenant) for r in m.query(tenants={"a"})) == ["None", "a"]
        assert len(m.query()) == 3
