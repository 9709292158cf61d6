"""Every adapter (a wire format and its provider) passes the same contract suite, the
shipped four and a made-up fifth one ("Acme", tests/core/adapters/acme.py) that exists
only as one adapter module plus its fixture: registering it is all headroom needs
(issue 28: a provider is one adapter)."""

from __future__ import annotations

import copy
import json
import types

import pytest

from headroom import formats
from headroom.cache import CacheOptimizer
from headroom.cache.stability import PrefixTracker
from headroom.config import HeadroomConfig, ImageConfig
from headroom.formats import (
    ADAPTERS,
    BlockKind,
    ImageRules,
    Role,
    adapter,
    detect_format,
    parse,
    render,
)
from headroom.formats.adapter import Adapter
from headroom.image.actions import image_tokens
from headroom.pipeline import Pipeline
from headroom.providers import context_window, provider_named
from headroom.token_accounting import model_counter
from headroom.transforms.base import TransformContext
from headroom.transforms.context_units import group_units

from .adapters import acme
from .adapters.acme_fixtures import ACME
from .adapters.fixtures import ARGS, FIXTURES, LOG, QUESTION, SYSTEM

ALL = {**FIXTURES, "acme": ACME}
CONTRACT = [n for n in dir(Adapter) if not n.startswith("_")] + list(Adapter.__annotations__)


@pytest.fixture(autouse=True)
def fifth_provider():
    """Acme is registered for each test and gone afterwards."""
    formats.register(acme)
    yield
    ADAPTERS.pop(acme.FORMAT, None)


def case(fmt: str) -> tuple[Adapter, dict]:
    return adapter(fmt), copy.deepcopy(ALL[fmt])


def test_every_shipped_adapter_has_a_fixture():
    assert sorted(FIXTURES) == sorted(f for f in ADAPTERS if f != acme.FORMAT)


def test_an_incomplete_adapter_is_refused():
    half = types.SimpleNamespace(**{n: getattr(acme, n) for n in ("FORMAT", "PROVIDER", "parse", "render")})
    with pytest.raises(TypeError, match="lacks .*prefix_view"):
        formats.register(half)


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_declares_the_whole_contract(fmt):
    a, _ = case(fmt)
    assert [n for n in CONTRACT if not hasattr(a, n)] == []
    assert a.FORMAT == fmt and isinstance(a.PROVIDER, str) and isinstance(a.MESSAGES_KEY, str)
    assert isinstance(a.MODEL_PREFIXES, tuple) and all(p == p.lower() and p for p in a.MODEL_PREFIXES)
    assert a.TOKEN_FACTOR > 0 and isinstance(a.DEFAULT_CONTEXT, int) and a.DEFAULT_CONTEXT > 0
    assert a.TEXT_PART_TYPE is None or isinstance(a.TEXT_PART_TYPE, str)
    assert isinstance(a.IMAGES, ImageRules)
    assert a.IMAGES.low_detail or a.IMAGES.downscale_field in ImageConfig.model_fields
    for flag in ("CACHE_BREAKPOINTS", "CALLS_SPAN_ITEMS", "ALTERNATING_ROLES"):
        assert isinstance(getattr(a, flag), bool), flag
    for cls, methods in ((a.StreamTurn, ("feed", "response")), (a.LiveRelay, ("hold", "sent", "next_round", "rewrite"))):
        assert all(callable(getattr(cls(), m)) for m in methods)


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_an_untouched_request_renders_byte_for_byte(fmt):
    _, fx = case(fmt)
    assert detect_format(fx["request"]) == fmt
    assert render(parse(fx["request"])) == ALL[fmt]["request"]


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_parse_finds_the_system_prompt_the_question_and_the_paired_tool_output(fmt):
    _, fx = case(fmt)
    conv = parse(fx["request"], fmt)
    system = [b.text for b in conv.system] + [m.text() for m in conv.messages if m.role is Role.SYSTEM]
    assert SYSTEM in system
    assert conv.latest_user_text() == QUESTION
    [(_, _, result)] = list(conv.tool_results())
    assert result.text == LOG and result.tool_name == "read_log" and json.loads(result.tool_arguments) == ARGS


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_the_pipeline_compresses_the_tool_output_reversibly(fmt):
    _, fx = case(fmt)
    pipe = Pipeline(HeadroomConfig())
    r = pipe.compress_body(fx["request"], fmt, model=fx["request"].get("model") or "gpt-4o")
    assert r.tokens_after < r.tokens_before and r.ccr_hashes
    [(_, _, out)] = list(parse(r.body, fmt).tool_results())
    assert out.tool_name == "read_log" and r.ccr_hashes[0] in out.text and "request 9999 failed" in out.text
    assert pipe.store.get(r.ccr_hashes[0]).original == LOG


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_the_tool_loop(fmt):
    a, fx = case(fmt)
    [call] = a.tool_calls(fx["response"])
    args = json.loads(call.arguments) if isinstance(call.arguments, str) else call.arguments  # as sent
    assert call.name == "grep" and args == {"q": "9999"}
    nxt = a.continue_body(fx["request"], fx["response"], {call.id: "found it"})
    results = list(parse(nxt, fmt).tool_results())
    assert (results[-1][2].text, results[-1][2].tool_name) == ("found it", "grep")
    assert a.forbid_tool_calls(nxt) != nxt
    assert "headroom_retrieve" in json.dumps(a.tool_definition("headroom_retrieve", "get it back", {"type": "object"}))
    assert a.usage(fx["response"]) == fx["usage"]
    raw = a.error_event("boom", "upstream_error", 502)
    assert raw.endswith(b"\n\n") and b"boom" in raw and a.is_error(json.loads(raw.split(b"data: ", 1)[1]))


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_the_prompt_cache_sees_every_item_and_the_next_turn_extends_it(fmt):
    a, fx = case(fmt)
    view = a.prefix_view(fx["request"])
    assert view.items == fx["request"][a.MESSAGES_KEY]
    assert SYSTEM in json.dumps([view.system, view.items])
    tracker = PrefixTracker()
    first = tracker.observe(fx["request"], "s", fmt)
    assert first.elements == len(view.items) + (view.system is not None) + len(view.tools or [])
    [call] = a.tool_calls(fx["response"])
    second = tracker.observe(a.continue_body(fx["request"], fx["response"], {call.id: "found it"}), "s", fmt)
    assert second.extends_previous and second.elements > first.elements


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_two_conversations_are_two_cache_sessions(fmt):
    """The session key reads the first item through the adapter (Gemini's ``contents``
    were unread, so every Gemini conversation with the same tools was one session)."""
    a, fx = case(fmt)
    other = copy.deepcopy(fx["request"])
    items = other[a.MESSAGES_KEY]
    items[0] = copy.deepcopy(items[1])
    opt = CacheOptimizer()
    opt.apply(fx["request"], fmt)
    opt.apply(other, fmt)
    assert len(opt.report()) == 2


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_the_provider_rules_come_from_the_adapter(fmt):
    a, _ = case(fmt)
    for prefix in a.MODEL_PREFIXES:
        assert model_counter(f"{prefix}unlisted-9").factor == a.TOKEN_FACTOR
    assert provider_named(a.PROVIDER).default_context == a.DEFAULT_CONTEXT
    assert context_window("zz-unlisted-model", fmt) == a.DEFAULT_CONTEXT
    assert 0 < image_tokens(a.PROVIDER, 300, 200) <= image_tokens(a.PROVIDER, 3000, 2000)


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_a_text_part_a_stage_writes_renders_in_the_format(fmt):
    """What the image stage does to a transcoded image: the block becomes a text part of
    the adapter's TEXT_PART_TYPE, and the format renders and parses it back."""
    a, fx = case(fmt)
    conv = parse(fx["request"], fmt)
    i, block = next((i, b) for i, m in enumerate(conv.messages) for b in m.blocks
                    if m.role is Role.USER and b.kind is BlockKind.TEXT)
    block.text = "[image: a chart, transcribed]"
    block.raw = {"type": a.TEXT_PART_TYPE} if a.TEXT_PART_TYPE else {}
    again = parse(render(conv), fmt)
    assert again.messages[i].text() == "[image: a chart, transcribed]"


@pytest.mark.parametrize("fmt", sorted(ALL))
def test_the_context_budget_keeps_a_call_with_its_output(fmt):
    _, fx = case(fmt)
    conv = parse(fx["request"], fmt)
    ctx = TransformContext(config=HeadroomConfig(), counter=model_counter("gpt-4o"), store=None)
    [(ri, _, result)] = list(conv.tool_results())
    ci = next(i for i, m in enumerate(conv.messages) if result.tool_call_id in m.tool_call_ids())
    assert any(ri in u.indices and ci in u.indices for u in group_units(conv, ctx))
