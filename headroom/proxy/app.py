"""``create_app()``: the FastAPI app behind ``headroom proxy``.

Routes (one router per concern, ``proxy/routes/``)
  llm          every registered adapter's PROXY_ROUTES: POST /v1/chat/completions, /v1/responses,
               /v1/messages, /v1beta/models/{model}:generateContent|:streamGenerateContent
               (compressed, CCR loop, streaming)
  admin        POST /v1/compress                                        compress a body, return it
               POST /v1/retrieve, GET /v1/retrieve/{hash}, GET /v1/retrieve/stats
               GET  /v1/feedback, /v1/feedback/{tool}, /v1/toin/stats, /v1/toin/patterns[/{signature}],
                    /stats, /metrics
  health       GET  /health
  passthrough  POST /v1/messages/count_tokens, any other /v1/*          forwarded untouched
The state they share is built by ``proxy/wiring.py``.
"""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from ..config import HeadroomConfig
from ..pipeline import Pipeline
from ..version import __version__
from .config import ProxyConfig
from .drain import DrainMiddleware
from .not_found import register as register_not_found
from .routes import routers
from .security import SecurityMiddleware
from .wiring import build_state, default_headroom_config, lifespan

__all__ = ["create_app", "default_headroom_config"]


def create_app(
    proxy_config: ProxyConfig | None = None,
    headroom_config: HeadroomConfig | None = None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    pipeline: Pipeline | None = None,
    metrics_store: Any = None,
) -> FastAPI:
    """Build the proxy app.

    ``transport`` replaces the network under the upstream client (tests aim it at a fake);
    ``pipeline`` and ``metrics_store`` replace the ones built from the configs.
    """
    state = build_state(proxy_config, headroom_config, transport=transport, pipeline=pipeline,
                        metrics_store=metrics_store)
    app = FastAPI(title="headroom proxy", version=__version__, lifespan=lifespan(state),
                  docs_url=None, redoc_url=None, openapi_url=None)
    app.state.headroom = state
    app.add_middleware(SecurityMiddleware, config=state.config)
    app.add_middleware(DrainMiddleware, drain=state.drain)  # outermost: every answer, refusals included
    register_not_found(app)  # unknown paths: a JSON 404 naming the likely fix (not_found.py)
    for router in routers():
        app.include_router(router)
    return app
