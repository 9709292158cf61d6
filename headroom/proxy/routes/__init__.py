"""The proxy's routes, one router per concern, each reading the app's ``ProxyState``
through ``Depends(current_state)``: ``llm`` (the provider APIs headroom compresses),
``admin`` (headroom's own API: compress, retrieve, feedback, TOIN, stats, metrics),
``health``, and ``passthrough`` (everything else under ``/v1``, forwarded untouched; it
goes last, its catch-all would shadow the others)."""

from __future__ import annotations

from .admin import router as admin
from .health import router as health
from .llm import router as llm
from .passthrough import router as passthrough

# In the order the app includes them: the first route that matches serves a request.
ROUTERS = (llm, admin, health, passthrough)
