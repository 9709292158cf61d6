"""Everything else under ``/v1``, forwarded untouched to the provider it belongs to."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from ...formats import ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES
from ..forward import handle_passthrough
from ..state import CurrentState

router = APIRouter()

_ANTHROPIC_HEADERS = ("anthropic-version", "x-api-key", "anthropic-beta")


def _openai_format(path: str) -> str:
    """The OpenAI API a pass-through path under ``/v1/`` belongs to: a stored response's
    routes (``responses/{id}``, streamed again with ``?stream=true``) are the Responses
    API's; the others that stream (legacy completions) send Chat-shaped events."""
    return OPENAI_RESPONSES if path.split("/", 1)[0] == "responses" else OPENAI_CHAT


@router.post("/v1/messages/count_tokens")
async def count_tokens(request: Request, state: CurrentState) -> Response:
    return await handle_passthrough(request, state, state.config.anthropic_api_url, ANTHROPIC)


@router.api_route("/v1/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
async def other_v1(request: Request, path: str, state: CurrentState) -> Response:
    if any(h in request.headers for h in _ANTHROPIC_HEADERS):
        return await handle_passthrough(request, state, state.config.anthropic_api_url, ANTHROPIC)
    return await handle_passthrough(request, state, state.config.openai_api_url, _openai_format(path))
