"""The proxy's routes, one router per concern, each reading the app's ``ProxyState``
through ``state: CurrentState``: ``llm`` (the provider APIs headroom compresses, from the
adapters' ``PROXY_ROUTES``),
``admin`` (headroom's own API: compress, retrieve, feedback, TOIN, stats, metrics),
``health``, and ``passthrough`` (everything else under ``/v1``, forwarded untouched; it
goes last, its catch-all would shadow the others)."""

from __future__ import annotations

from fastapi import APIRouter

from .admin import router as admin
from .health import router as health
from .llm import llm_router
from .passthrough import router as passthrough


def routers() -> tuple[APIRouter, ...]:
    """In the order the app includes them (the first route that matches serves a
    request); the LLM routes are built now, from the adapters registered so far."""
    return (llm_router(), admin, health, passthrough)
