"""Providers: price table lookups, context limits, token counts, cost estimates."""

from __future__ import annotations

import json

import pytest

from headroom import AnthropicProvider, GoogleProvider, OpenAIProvider
from headroom.providers import lookup, price_table, provider_of_model, reset_prices, update_prices
from headroom.tokens import count_tokens


@pytest.fixture(autouse=True)
def fresh_prices(monkeypatch):
    monkeypatch.delenv("HEADROOM_PRICES_FILE", raising=False)
    reset_prices()
    yield
    reset_prices()


def test_longest_prefix_match_finds_dated_snapshots():
    assert lookup("openai", "gpt-4o-2024-08-06").model == "gpt-4o"
    assert lookup("openai", "gpt-4o-mini-2024-07-18").model == "gpt-4o-mini"
    assert lookup("openai", "openai/gpt-4.1-mini").model == "gpt-4.1-mini"
    assert lookup("anthropic", "claude-sonnet-4-5-20250929").model == "claude-sonnet-4"
    assert lookup("anthropic", "claude-opus-4-5").model == "claude-opus-4-5"
    assert lookup("google", "gemini-2.5-flash-lite").model == "gemini-2.5-flash-lite"
    assert lookup("openai", "my-finetune") is None and lookup("openai", None) is None


def test_context_limits_with_defaults_for_unknown_models():
    assert OpenAIProvider().context_limit("gpt-4o") == 128_000
    assert OpenAIProvider().context_limit("gpt-4.1") == 1_047_576
    assert AnthropicProvider().context_limit("claude-3-5-haiku-latest") == 200_000
    assert GoogleProvider().context_limit("gemini-1.5-pro") == 2_097_152
    assert OpenAIProvider().context_limit("unknown-model") == 128_000
    assert AnthropicProvider().supports("claude-haiku-4-5") and not OpenAIProvider().supports("claude-haiku-4-5")


def test_cost_estimates_bill_cached_and_cache_write_tokens():
    o = OpenAIProvider()
    est = o.estimate_cost("gpt-4o", 1_000_000, 100_000)
    assert (est.input_usd, est.output_usd, est.total_usd) == (2.5, 1.0, 3.5)
    cached = o.estimate_cost("gpt-4o", 1_000_000, 0, cached_tokens=400_000)
    assert cached.input_usd == pytest.approx(0.6 * 2.5 + 0.4 * 1.25)
    a = AnthropicProvider().estimate_cost("claude-sonnet-4", 1_000_000, 0, cached_tokens=500_000, cache_write_tokens=100_000)
    assert a.input_usd == pytest.approx(0.4 * 3.0 + 0.5 * 0.30 + 0.1 * 3.75)
    assert o.estimate_cost("nope", 10).total_usd is None
    assert o.savings_usd("gpt-4o-mini", 2_000_000) == pytest.approx(0.30)


def test_prices_are_updatable_at_run_time_and_from_a_file(tmp_path, monkeypatch):
    update_prices({"openai": {"gpt-4o": {"input": 9.0}, "my-model": {"context": 4096, "input": 1, "output": 2}}})
    assert lookup("openai", "gpt-4o").input == 9.0 and lookup("openai", "gpt-4o").output == 10.0
    assert OpenAIProvider().context_limit("my-model-v2") == 4096
    reset_prices()
    assert lookup("openai", "gpt-4o").input == 2.5
    f = tmp_path / "prices.json"
    f.write_text(json.dumps({"_comment": "mine", "google": {"gemini-9": {"context": 10, "input": 0.1, "output": 0.2}}}))
    monkeypatch.setenv("HEADROOM_PRICES_FILE", str(f))
    reset_prices()
    assert GoogleProvider().context_limit("gemini-9-pro") == 10
    assert "gpt-4o" in price_table()["openai"]  # merged over the shipped table
    with pytest.raises(ValueError, match="lacks"):
        update_prices({"openai": {"half": {"input": 1.0}}})
        lookup("openai", "half")


def test_shipped_table_is_complete():
    for provider, models in price_table().items():
        for name, e in models.items():
            assert e["context"] > 0 and e["input"] >= 0 and e["output"] >= 0, f"{provider}/{name}"


def test_token_counts_and_provider_choice():
    text = "The quick brown fox jumps over the lazy dog. " * 20
    assert OpenAIProvider().count_tokens(text, "gpt-4o") == count_tokens(text, "gpt-4o") > 100
    # Claude counts are cl100k estimates scaled up slightly
    assert AnthropicProvider().count_tokens(text, "claude-sonnet-4") > count_tokens(text, "gpt-4")
    assert isinstance(provider_of_model("claude-3-opus"), AnthropicProvider)
    assert isinstance(provider_of_model("gemini-2.5-pro"), GoogleProvider)
    assert isinstance(provider_of_model("gpt-4o"), OpenAIProvider)


def test_a_models_provider_comes_from_the_price_table_then_the_adapters():
    from headroom.providers import context_window, provider_of_model

    # Listed models: the table says whose they are, whatever the wire format.
    assert provider_of_model("gemini-2.5-pro", "openai_chat").name == "google"
    assert provider_of_model("claude-3-opus", "openai_chat").name == "anthropic"
    # Unlisted: the adapter whose MODEL_PREFIXES claim the name (LiteLLM's path form too),
    # else the provider of the format it is sent in, else OpenAI.
    assert provider_of_model("claude-9-unlisted").name == "anthropic"
    assert provider_of_model("anthropic/claude-9-unlisted").name == "anthropic"
    assert provider_of_model("house-model", "gemini").name == "google"
    assert provider_of_model("house-model").name == "openai"
    assert context_window("house-model", "anthropic") == 200_000
    assert context_window("house-model", "gemini") == 1_048_576
    assert context_window("house-model") == 128_000
    assert context_window("gemini-1.5-pro", "openai_chat") == 2_097_152


def test_a_providers_tokenizer_correction_is_its_adapters():
    from headroom.formats import anthropic
    from headroom.token_accounting import model_counter

    assert model_counter("claude-sonnet-4").factor == anthropic.TOKEN_FACTOR == 1.1
    assert model_counter("anthropic/claude-x").factor == 1.1
    assert model_counter("gpt-4o").factor == model_counter("gemini-2.5-pro").factor == model_counter(None).factor == 1.0
    assert model_counter("gpt-4o") is model_counter("gpt-4o")  # shared: its cache outlives a request


def test_client_provider_comes_from_its_sdk():
    from anthropic import Anthropic
    from openai import OpenAI

    from headroom import HeadroomClient

    # Constructing the SDK clients sends nothing.
    oai = HeadroomClient(original_client=OpenAI(api_key="k", base_url="http://127.0.0.1:9"))
    anth = HeadroomClient(original_client=Anthropic(api_key="k", base_url="http://127.0.0.1:9"))
    assert isinstance(oai.provider, OpenAIProvider) and isinstance(anth.provider, AnthropicProvider)
