"""CacheAligner: dynamic values leave the system prompt prefix; user text untouched."""

from __future__ import annotations

from headroom.formats import parse
from headroom.transforms.cache_aligner import CacheAligner, align_text


def test_align_text_moves_values_to_trailer():
    text = "You help ACME. Today is 2026-11-22T03:55:41Z. Session 123e4567-e89b-12d3-a456-426614174000."
    new, found = align_text(text, ("datetime", "uuid"), "[Dynamic context]")
    assert new.startswith("You help ACME. Today is [datetime]. Session [uuid].")
    assert new.endswith("[Dynamic context]\n[uuid]: 123e4567-e89b-12d3-a456-426614174000\n[datetime]: 2026-11-22T03:55:41Z")
    assert len(found) == 2
    assert align_text(new, ("datetime",), "[Dynamic context]") == (new, [])  # idempotent


RULES = " ".join(f"Rule {i}: always check the runbook before acting." for i in range(120))


def _body(date, rid):
    return {"model": "gpt-4o", "messages": [
        {"role": "system", "content": f"You are an agent. Date: {date}. Request: req_{rid}. Rules follow… {RULES}"},
        {"role": "user", "content": f"Is {date} a holiday? ref req_{rid}"}]}


def test_stable_prefix_across_requests(fresh_pipeline):
    p = fresh_pipeline(transforms=[CacheAligner()])
    r1 = p.compress_body(_body("2026-11-22", "aaaaaaa1"))
    r2 = p.compress_body(_body("2026-11-23", "bbbbbbb2"))
    s1, s2 = r1.body["messages"][0]["content"], r2.body["messages"][0]["content"]
    head = "You are an agent. Date: [date]. Request: [request_id]. Rules follow…"
    assert s1.startswith(head) and s2.startswith(head)
    h1 = next(d.extra["stable_prefix_hash"] for d in r1.decisions if d.transform == "cache_aligner")
    h2 = next(d.extra["stable_prefix_hash"] for d in r2.decisions if d.transform == "cache_aligner")
    assert h1 == h2
    assert r1.body["messages"][1]["content"] == "Is 2026-11-22 a holiday? ref req_aaaaaaa1"  # user text untouched


def test_anthropic_system_and_no_system(fresh_pipeline):
    p = fresh_pipeline(transforms=[CacheAligner()])
    body = {"model": "claude-haiku-4-5", "max_tokens": 10, "system": "Now: 2026-11-22 10:00 UTC. Be brief. " + RULES,
            "messages": [{"role": "user", "content": "hi"}]}
    r = p.compress_body(body)
    assert r.body["system"].startswith("Now: [datetime] UTC. Be brief.")
    r = p.compress_body({"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": "hi"}]})
    assert any(d.reason == "no system prompt" for d in r.decisions)
    conv = parse(body)
    assert conv.system[0].text == body["system"]


def test_small_requests_are_left_alone(fresh_pipeline):
    body = {"model": "gpt-4o", "messages": [{"role": "system", "content": "Date: 2026-11-22."},
                                            {"role": "user", "content": "hi"}]}
    r = fresh_pipeline(transforms=[CacheAligner()]).compress_body(body)
    assert r.body == body
    assert any("provider caches do not apply" in d.reason for d in r.decisions)
