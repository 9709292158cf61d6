"""The provider APIs headroom compresses: each request runs the pipeline, the CCR loop and
the live relay (``proxy/forward.py``); the route only names the format and the upstream."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.requests import Request
from starlette.responses import Response

from ...formats import GEMINI
from ..forward import handle_llm, handle_passthrough
from ..state import ProxyState, current_state

router = APIRouter()


@router.post("/v1/chat/completions")
async def chat_completions(request: Request, state: ProxyState = Depends(current_state)) -> Response:
    return await handle_llm(request, state, "openai_chat", state.config.openai_api_url)


@router.post("/v1/responses")
async def responses(request: Request, state: ProxyState = Depends(current_state)) -> Response:
    return await handle_llm(request, state, "openai_responses", state.config.openai_api_url)


@router.post("/v1/messages")
async def messages(request: Request, state: ProxyState = Depends(current_state)) -> Response:
    return await handle_llm(request, state, "anthropic", state.config.anthropic_api_url)


@router.post("/v1beta/models/{target}")
async def gemini(request: Request, target: str, state: ProxyState = Depends(current_state)) -> Response:
    # generateContent / streamGenerateContent: the model and the stream flag are in the URL.
    model, _, action = target.partition(":")
    if action not in ("generateContent", "streamGenerateContent"):
        return await handle_passthrough(request, state, state.config.gemini_api_url, GEMINI)
    return await handle_llm(request, state, "gemini", state.config.gemini_api_url, model=model,
                            stream=action == "streamGenerateContent")
