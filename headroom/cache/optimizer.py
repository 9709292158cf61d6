"""One entry point for provider cache optimisation, used by HeadroomClient and the proxy.

- Anthropic: ``cache_control`` breakpoints (see :mod:`.anthropic`).
- OpenAI and Gemini cache automatically on an identical prefix of 1024+ tokens; the
  pipeline already keeps that prefix stable (no reordering; CacheAligner moves dynamic
  system-prompt values; compressed history is memoised byte for byte), so the optimiser
  only observes it. With ``openai_prompt_cache_key=True`` it also sets
  ``prompt_cache_key`` to the session hash when the client did not, which routes a
  session's requests to the same cache shard.
- Every request is fed to a :class:`~.stability.PrefixTracker` for the stability report.
"""

from __future__ import annotations

from typing import Any

from ..formats import PrefixView, adapter
from .anthropic import DEFAULT_MIN_TOKENS, AnthropicCacheOptimizer
from .stability import PrefixTracker


class CacheOptimizer:
    def __init__(self, *, min_tokens: int = DEFAULT_MIN_TOKENS, openai_prompt_cache_key: bool = False):
        self.anthropic = AnthropicCacheOptimizer(min_tokens=min_tokens)
        self.tracker = PrefixTracker()
        self.openai_prompt_cache_key = openai_prompt_cache_key

    def apply(self, body: dict[str, Any], fmt: str, session_id: str | None = None) -> dict[str, Any]:
        """The body to send; also records its prefix stability under the session."""
        wire = adapter(fmt)
        session = session_id or AnthropicCacheOptimizer.session_key(_as_messages(wire.prefix_view(body)))
        if wire.CACHE_BREAKPOINTS:
            body = self.anthropic.apply(body, session_id=session)
        elif self.openai_prompt_cache_key and wire.PROMPT_CACHE_KEY and wire.PROMPT_CACHE_KEY not in body:
            body = {**body, wire.PROMPT_CACHE_KEY: f"headroom-{session}"}
        self.tracker.observe(body, session, fmt)
        return body

    def report(self) -> dict[str, list[dict[str, Any]]]:
        return self.tracker.report()


def _as_messages(view: PrefixView) -> dict[str, Any]:
    """Any format's prefix as the Messages-shaped body the session key reads (history in
    ``input`` or ``contents``, system in ``instructions`` or ``systemInstruction``)."""
    return {"model": view.model, "tools": view.tools, "system": view.system, "messages": view.items}
