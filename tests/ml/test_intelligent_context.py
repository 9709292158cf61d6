import json
import sys
from pathlib import Path

import pytest

from headroom.ccr.backends import SQLiteBackend
from headroom.ccr.markers import find_hashes
from headroom.ccr.store import CompressionStore
from headroom.config import ContextConfig, HeadroomConfig, RollingWindowConfig, ToinConfig
from headroom.formats import parse
from headroom.pipeline import Pipeline
from headroom.toin import SQLiteToinBackend, Toin
from headroom.tokens import counter_for
from headroom.transforms.base import TransformContext
from headroom.transforms.context_units import group_units
from headroom.transforms.intelligent_context import (
    IntelligentContext,
    RetrievalImportance,
    salient_lines,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import ml_context

FILLER = "\n".join(f"2024-05-01T10:{i:02d}:00Z INFO worker: batch {i} processed and flushed to the queue"
                   for i in range(30))


def _session(results: list[tuple[str, str]], final: str = "What should we do next?") -> list[dict]:
    msgs = [{"role": "system", "content": "You are an agent."}]
    for k, (tool, text) in enumerate(results):
        msgs.append({"role": "user", "content": f"Step {k}: run {tool}."})
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{k}", "type": "function", "function": {"name": tool, "arguments": json.dumps({"k": k})}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{k}", "content": text})
        msgs.append({"role": "assistant", "content": f"Done with step {k}."})
    msgs.append({"role": "user", "content": final})
    return msgs


def _ctx(msgs, store=None, max_tokens=10**6, toin=None):
    cfg = HeadroomConfig(context=ContextConfig(strategy="intelligent", max_tokens=max_tokens,
                                               rolling_window=RollingWindowConfig(keep_last_turns=1)))
    conv = parse({"model": "gpt-4o", "messages": msgs}, "openai_chat")
    ctx = TransformContext(config=cfg, counter=counter_for("gpt-4o"), store=store or CompressionStore(),
                           model="gpt-4o", query=conv.latest_user_text(turns=2), toin=toin)
    return conv, ctx


def _scores(msgs, store=None, toin=None):
    conv, ctx = _ctx(msgs, store, toin=toin)
    views = IntelligentContext(RetrievalImportance(refresh_s=0)).score(conv, ctx, group_units(conv, ctx))
    return {conv.messages[v.unit.indices[0]].blocks[0].tool_call_id: v for v in views if v.unit.kind == "tool"}, ctx


def _run(msgs, budget, store=None):
    store = store or CompressionStore()
    cfg = HeadroomConfig(context=ContextConfig(strategy="intelligent", max_tokens=budget,
                                               rolling_window=RollingWindowConfig(keep_last_turns=1)))
    pipe = Pipeline(cfg, store=store, transforms=[IntelligentContext(RetrievalImportance(refresh_s=0))])
    return pipe.compress_body({"model": "gpt-4o", "messages": msgs}), store


def test_within_budget_is_untouched(minilm):
    msgs = _session([("get_logs", FILLER)] * 2)
    res, _ = _run(msgs, 10**6)
    assert res.body["messages"] == msgs
    assert any(d.action == "kept" and "within budget" in d.reason for d in res.decisions)


def test_error_and_forward_reference_and_semantics_raise_scores(minilm):
    err = FILLER + "\n2024-05-01T11:00:00Z ERROR worker: payment batch 991 failed: card declined"
    ref = FILLER + "\nsee config/limits/prod_rate.toml for the throttling values"
    topic = FILLER + "\nthe nightly archive is copied to bucket acme-archive-eu"
    msgs = _session([("get_logs", FILLER), ("get_logs", err), ("get_logs", FILLER), ("read_file", ref),
                     ("get_logs", FILLER), ("get_logs", topic), ("get_logs", FILLER)],
                    final="Check prod_rate.toml again. Where does the backup copy of the night go?")
    views, ctx = _scores(msgs)
    f = {k: v.features for k, v in views.items()}
    assert f["c1"]["error"] == 1.0 and f["c0"]["error"] == 0.0
    assert f["c3"]["forward_refs"] > 0 and f["c2"]["forward_refs"] == 0
    assert f["c5"]["semantic"] == max(x["semantic"] for x in f.values())
    assert views["c1"].score > views["c2"].score and views["c3"].score > views["c2"].score
    assert any("semantic signal: minilm" in d.reason for d in ctx.decisions)


def _toin(path):
    return Toin(SQLiteToinBackend(path), ToinConfig())


def test_learned_importance_is_read_from_toin_and_persists(tmp_path, minilm):
    # TOIN hears every retrieval through the store's listener and keeps per-tool counts in
    # its own backend; the CCR store keeps no log of its own.
    store, toin = CompressionStore(SQLiteBackend(tmp_path / "ccr.sqlite3")), _toin(tmp_path / "toin.sqlite3")
    store.retrieval_listeners.append(toin.on_retrieval)
    for i in range(3):
        h = store.store(f"{FILLER}\nrun {i}", tool_name="get_logs")
        store.retrieve(h)
    store.close()
    toin.close()
    reopened = CompressionStore(SQLiteBackend(tmp_path / "ccr.sqlite3"))  # a restarted proxy
    msgs = _session([("get_logs", FILLER), ("query_db", FILLER.replace("INFO", "ROW"))])
    views, _ = _scores(msgs, reopened, toin=_toin(tmp_path / "toin.sqlite3"))
    assert views["c0"].features["importance"] == pytest.approx(3 / 6)
    assert views["c1"].features["importance"] == 0.0
    views, _ = _scores(msgs, reopened)  # without TOIN nothing is learned
    assert views["c0"].features["importance"] == 0.0


def test_missing_embeddings_fall_back_to_bm25_and_say_so(monkeypatch):
    import headroom.ml.embeddings as emb

    def broken(*a, **k):
        raise RuntimeError("no model here")

    monkeypatch.setattr(emb, "embed", broken)
    views, ctx = _scores(_session([("get_logs", FILLER), ("get_logs", FILLER + "\nacme archive")], "acme archive?"))
    assert any("bm25 (embeddings unavailable: RuntimeError: no model here)" in d.reason for d in ctx.decisions)
    assert views["c1"].features["semantic"] > views["c0"].features["semantic"]


def test_salient_lines_pick_the_odd_ones_out():
    text = FILLER + "\nERROR vault: secret rotation for db-primary failed"
    (lines,) = salient_lines([text, FILLER], 1)[:1]
    assert lines == ["ERROR vault: secret rotation for db-primary failed"]


def test_compress_first_then_drop_keeps_provider_validity_and_ccr(minilm):
    msgs = _session([("get_logs", FILLER + f"\nunique fact {k}: value {k * 7}") for k in range(8)])
    full = Pipeline(HeadroomConfig(), transforms=[]).compress_body({"model": "gpt-4o", "messages": msgs}).tokens_before
    # Slightly over budget: squeezing alone is enough, nothing is dropped.
    res, store = _run(msgs, int(full * 0.9))
    actions = {(d.action, d.strategy) for d in res.decisions}
    assert ("compressed", "squeeze") in actions and not any(d.action == "dropped" for d in res.decisions)
    assert res.tokens_after <= int(full * 0.9)
    squeezed = next(d for d in res.decisions if d.strategy == "squeeze")
    assert store.retrieve(squeezed.ccr_hash).content.startswith("2024-05-01T10:00:00Z INFO")
    # Far over budget: whole units go, atomically, behind one marker.
    res, store = _run(msgs, int(full * 0.3))
    assert res.tokens_after <= int(full * 0.3) + 120  # + the marker message
    out = res.body["messages"]
    calls = {c["id"] for m in out if m.get("tool_calls") for c in m["tool_calls"]}
    results = {m["tool_call_id"] for m in out if m["role"] == "tool"}
    assert calls == results
    assert out[0] == msgs[0] and out[-1] == msgs[-1]
    hashes = [h for m in out if isinstance(m.get("content"), str) for h in find_hashes(m["content"])]
    assert hashes and all(store.retrieve(h) is not None for h in hashes)


@pytest.mark.slow
def test_keeps_more_planted_facts_than_rolling_window(minilm):
    messages, planted = ml_context.make_scenario(seed=1, turns=16)
    full = Pipeline(HeadroomConfig(), transforms=[]).compress_body({"model": "gpt-4o", "messages": messages}).tokens_before
    budget = int(full * 0.5)
    kept = {}
    for strategy in ("rolling_window", "intelligent"):
        out, _ = ml_context.run(strategy, messages, budget)
        assert out["after"] <= budget + 150
        text = ml_context.prompt_text(out["body"])
        kept[strategy] = sum(f in text for facts in planted.values() for f in facts)
    assert kept["intelligent"] > kept["rolling_window"]
    assert kept["intelligent"] >= 7  # of 10


def test_pipeline_uses_it_for_the_intelligent_strategy():
    cfg = HeadroomConfig(context=ContextConfig(strategy="intelligent"))
    try:
        names = [t.name for t in Pipeline(cfg).transforms]
    except ImportError as exc:  # another engineer's compressor module not landed yet
        pytest.skip(f"default pipeline incomplete: {exc}")
    assert names[-1] == "intelligent_context"


def test_squeeze_keeps_errors_and_asked_lines_not_stopword_prose():
    lines = [f"2024-05-01T10:{i:02d}:00Z INFO worker: batch {i} processed" for i in range(10)]
    lines[2] = "replica zebra quokka axolotl narwhal"
    lines[5] = "it is what it is and the rest is the same as before"
    lines[7] = "ERROR worker: disk quota exceeded on /data"
    _, ctx = _ctx(_session([("get_logs", "\n".join(lines))]))
    squeeze = IntelligentContext._squeezed_text
    # Two slots: the error, then the line the question names; the prose line shares only
    # "what is the it" with the question, which earns nothing.
    text, kept, total = squeeze("\n".join(lines), "what is the replica doing, is it up?", ctx)
    assert (kept, total) == (2, 10)
    assert text.split("\n") == [lines[2], lines[7]]
