"""The CCR retrieval loop's view of a provider *response*, format-neutral.

When the model's turn calls only ``headroom_retrieve``, whoever sent the request (the
proxy, HeadroomClient, the eval runner) answers those calls from the store and sends the
next request itself, so the client only ever sees the final answer. The wire shapes live
in the adapters (:mod:`headroom.formats`); this module decides:

- :func:`retrieve_calls` — the retrieve calls of a turn, or None when the turn made no
  tool call or also called other tools (those go back to the client);
- :func:`answer` — what the tool returns for one call;
- :func:`continue_body` — the next request: the assistant turn plus the tool results.

A streamed turn is rebuilt by :class:`headroom.exchange.stream.StreamAccumulator`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..formats import adapter, is_retrieve_tool
from ..formats.wire import ToolCall, parse_arguments
from .store import CompressionStore, StoreError


@dataclass(frozen=True)
class RetrieveCall:
    id: str  # the provider's call id (chat tool_call id, Responses call_id, Anthropic tool_use id)
    name: str
    hash: str
    query: str | None = None


def _retrieve_call(call: ToolCall) -> RetrieveCall:
    args = parse_arguments(call.arguments)
    h, q = args.get("hash"), args.get("query")
    return RetrieveCall(
        id=call.id,
        name=str(call.name),
        hash=h.strip() if isinstance(h, str) else "",
        query=q if isinstance(q, str) and q.strip() else None,
    )


def retrieve_calls(response: dict[str, Any], fmt: str) -> list[RetrieveCall] | None:
    """The ``headroom_retrieve`` calls of the model's turn when it calls nothing else.

    None when the turn made no tool call, or mixed retrieve calls with other tools
    (mixed turns go back to the client untouched).
    """
    if not isinstance(response, dict):
        return None
    calls = adapter(fmt).tool_calls(response)
    if not calls or not all(is_retrieve_tool(c.name if isinstance(c.name, str) else None) for c in calls):
        return None
    return [_retrieve_call(c) for c in calls]


def unknown_hash_message(hash: str) -> str:
    return (f"headroom_retrieve: unknown or expired hash={hash}. The original is no longer stored; continue "
            "with the compressed content, or re-run the tool that produced it.")


def answer(store: CompressionStore | None, call: RetrieveCall) -> str:
    """The tool result for one retrieve call: the original, the query's matches, or why not."""
    if not call.hash:
        return "headroom_retrieve error: missing 'hash' argument (copy it from the marker: hash=<24 hex digits>)."
    if store is None:
        return f"headroom_retrieve error: no compression store is configured, so hash={call.hash} cannot be retrieved."
    try:
        found = store.retrieve(call.hash, call.query)
    except StoreError as exc:
        # The request still completes: the model reads why and carries on (issue 12, F5).
        return (f"headroom_retrieve error: the compression store failed ({exc}), so hash={call.hash} cannot be "
                "retrieved right now. Continue with the compressed content.")
    if found is None:
        return unknown_hash_message(call.hash)
    return found.content


def continue_body(body: dict[str, Any], response: dict[str, Any], fmt: str, answers: dict[str, str]) -> dict[str, Any]:
    """The next request body: ``body`` plus the model's turn and one tool result per answer."""
    return adapter(fmt).continue_body(body, response, answers)


__all__ = [
    "RetrieveCall",
    "answer",
    "continue_body",
    "retrieve_calls",
]
