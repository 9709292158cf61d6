"""Learning from observations: hints appear only with confidence, outcomes move them."""

from __future__ import annotations

import json

import pytest

from headroom.ccr import Entry
from headroom.config import ToinConfig
from headroom.toin import MemoryToinBackend, SQLiteToinBackend, Toin
from headroom.toin.learner import fields_named, names_field, query_words

from .test_signature import rows


def make(backend=None, **cfg) -> Toin:
    return Toin(backend or MemoryToinBackend(), ToinConfig(flush_seconds=0, refresh_seconds=0, **cfg))


def entry(h: str, original: str, sig: str, retrievals: int = 0) -> Entry:
    return Entry(h, original, 0, 1e12, 0, "orders", None, 0, 0, 0, retrievals,
                 {"toin": sig, "memo": {"strategy": "smart_crusher:generic"}})


def compress_n(t: Toin, n: int, query: str = "", start: int = 0):
    prof = None
    for i in range(start, start + n):
        prof = t.profile(rows(100, offset=i * 100), "json_array", "orders")
        t.observe_compression(prof, strategy="smart_crusher:generic", items_before=100, items_after=15,
                              lossy=True, ccr_hash=f"h{i}", query=query)
    return prof


def test_names_field():
    words = query_words("What is the latency of ORD-7 createdAt?")
    assert names_field("latency_ms", words)
    assert not names_field("latency_ms", query_words("how slow"))
    assert names_field("createdAt", query_words("when was it created at"))
    assert "ord-7" in words


def test_no_hints_below_the_observation_threshold():
    t = make(min_observations=5)
    prof = compress_n(t, 4, query="which status is lost?")
    assert t.hints(prof) is None
    compress_n(t, 1, query="which status is lost?", start=4)
    h = t.hints(prof)
    assert h is not None and "status" in h.preserve and h.anomaly_fields == ("status",)
    assert "preserve status(error_indicator)" in h.reason()


def test_unnamed_fields_are_not_preserved():
    t = make()
    prof = compress_n(t, 8, query="summarise the orders")
    assert t.hints(prof) is None


def test_retrievals_raise_the_budget_and_name_fields():
    t = make()
    prof = compress_n(t, 10)
    for i in range(6):
        original = json.dumps(rows(100, offset=i * 100))
        t.observe_retrieval(entry(f"h{i}", original, prof.signature), f"amount of ORD-{i * 100 + 7}", False, 1)
    p = t.pattern(prof.signature, fresh=True)
    assert p.retrieved == 6 and p.retrievals_query == 6 and p.retrieval_rate == pytest.approx(0.6)
    assert p.strategies["smart_crusher:generic"] == {"compressed": 10, "retrieved": 6, "retrieval_rate": 0.6}
    amount, ident = prof.fields["amount"].hash, prof.fields["id"].hash
    assert p.fields[amount].named == 6 and p.fields[ident].named == 6  # by name and by value
    h = t.hints(prof)
    assert h.budget == 24  # 15 kept, grown by the 60 % retrieval rate
    assert set(h.preserve) == {"amount", "id"}


def test_whole_retrievals_make_it_skip():
    t = make()
    prof = compress_n(t, 10)
    for i in range(10):
        t.observe_retrieval(entry(f"h{i}", "[]", prof.signature), None, True)
        t.observe_retrieval(entry(f"h{i}", "[]", prof.signature, retrievals=1), None, True)  # repeat: once
    p = t.pattern(prof.signature, fresh=True)
    assert p.whole == 10 and p.retrieved == 10 and p.retrievals_full == 20
    assert t.hints(prof).skip


def test_question_on_a_memo_hit_counts_once_per_question():
    t = make()
    prof = compress_n(t, 1)
    t.observe_question("h0", "which one has the biggest amount")
    t.observe_question("h0", "which one has the biggest amount")
    t.observe_question("unknown", "amount")
    p = t.pattern(prof.signature, fresh=True)
    assert p.fields[prof.fields["amount"].hash].named == 1


def test_fields_named_by_rare_value():
    prof = make().profile(rows(100), "json_array", "orders")
    named, rare = fields_named(prof, "anything lost?")
    assert named == rare == {prof.fields["status"].hash}


def test_persists_across_restart_and_exports(tmp_path):
    path = tmp_path / "toin.sqlite3"
    t = make(SQLiteToinBackend(path))
    prof = compress_n(t, 6, query="status lost")
    t.close()
    again = make(SQLiteToinBackend(path))
    assert again.profile(rows(10), "json_array", "orders").signature == prof.signature
    assert again.hints(prof) is not None
    data = again.export()
    fresh = make()
    assert fresh.import_(json.loads(json.dumps(data))) == 1
    assert fresh.hints(fresh.profile(rows(100), "json_array", "orders")).preserve == {"status": "error_indicator"}
    other = make()
    compress_n(other, 1)
    with pytest.raises(ValueError, match="another key"):
        other.import_(data)
    with pytest.raises(ValueError, match="not a TOIN export"):
        other.import_({"format": "x"})
    again.close()


def test_buffered_counts_follow_the_clock_and_survive_close(tmp_path):
    now = [0.0]
    path = tmp_path / "toin.sqlite3"
    t = Toin(SQLiteToinBackend(path), ToinConfig(flush_seconds=1, refresh_seconds=2), clock=lambda: now[0])
    prof = None
    seen = []
    for i in range(40):
        prof = t.profile(rows(100, offset=i * 100), "json_array", "orders")
        seen.append(t.pattern(prof.signature).compressed)  # cached between refreshes
        t.observe_compression(prof, strategy="s", items_before=100, items_after=15, lossy=True, ccr_hash=f"h{i}")
        now[0] += 0.5
    assert seen[:6] == [0, 0, 0, 0, 4, 4]  # re-read every 2 s of the scripted clock
    assert t.backend.counts(prof.signature)["compressed"] < 40  # the last ones still buffered
    t.close()  # writes what is still buffered
    again = Toin(SQLiteToinBackend(path), ToinConfig())
    assert again.pattern(prof.signature).compressed == 40
    again.close()


def test_a_failed_write_keeps_its_counts_for_the_next_flush():
    class Flaky(MemoryToinBackend):
        fail = True

        def add(self, deltas, meta, tools=None, recent=None):
            if self.fail:
                self.fail = False
                raise ConnectionError("redis away")
            super().add(deltas, meta, tools, recent)

    t = make(Flaky())
    prof = compress_n(t, 3)  # flush_seconds=0: each observation is written at once; the first write fails
    assert t.pattern(prof.signature, fresh=True).compressed == 3  # still counted (buffered)
    t.flush()
    assert t.backend.counts(prof.signature)["compressed"] == 3
    assert t.backend.tool_counts(0)["orders"]["stored"] == 3  # per-tool counts are kept too
