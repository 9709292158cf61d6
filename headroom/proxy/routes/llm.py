"""The provider APIs headroom compresses, one route per path an adapter declares
(``PROXY_ROUTES`` in ``formats/``): each request runs the pipeline, the CCR loop and the
live relay (``proxy/forward.py``); the route only names the format and the upstream.
A provider is served once its adapter is registered (``formats.register``) before the
app is built: nothing here names one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from ...formats import ADAPTERS
from ...formats.adapter import ProxyRoute
from ..forward import handle_llm, handle_passthrough
from ..state import CurrentState


def _endpoint(fmt: str, provider: str, default_url: str | None,
              route: ProxyRoute) -> Callable[..., Awaitable[Response]]:
    async def endpoint(request: Request, state: CurrentState) -> Response:
        base_url = state.config.upstream_for(provider, default_url)
        if route.call is None:
            return await handle_llm(request, state, fmt, base_url)
        found = route.call(dict(request.path_params))
        if found is None:  # another action of the same API: not a call to compress
            return await handle_passthrough(request, state, base_url, fmt)
        model, stream = found
        return await handle_llm(request, state, fmt, base_url, model=model, stream=stream)

    endpoint.__name__ = f"{fmt}_{route.path.strip('/').replace('/', '_')}"  # FastAPI's operation id
    return endpoint


def llm_router(adapters: dict[str, Any] | None = None) -> APIRouter:
    """Routes for every registered adapter that declares ``PROXY_ROUTES``."""
    router = APIRouter()
    for fmt, a in (adapters if adapters is not None else ADAPTERS).items():
        for route in getattr(a, "PROXY_ROUTES", ()):
            router.add_api_route(route.path, _endpoint(fmt, a.PROVIDER, getattr(a, "UPSTREAM_URL", None), route),
                                 methods=["POST"])
    return router
