"""``GET /health``: answered from state only (no system call: ``proxy/health.py`` checks
the store's files and the OCR process off the event loop), so it answers at once even
while compression holds the GIL and occupies every thread."""

from __future__ import annotations

import os

from fastapi import APIRouter
from starlette.responses import JSONResponse, Response

from ...pipeline import UNAVAILABLE
from ...version import __version__
from ..state import CurrentState

router = APIRouter()


@router.get("/health")
async def health(state: CurrentState) -> Response:
    if state.drain.draining:  # a balancer or orchestrator stops sending here (proxy/drain.py)
        return JSONResponse({"status": "draining", "version": __version__, "worker": os.getpid()}, status_code=503)
    failed = {k: v for k, v in state.warm_up.items() if v != "ok" and not v.startswith(UNAVAILABLE)}
    unavailable = {k: v for k, v in state.warm_up.items() if v.startswith(UNAVAILABLE)}
    store_problem = state.health.current_store_problem()
    if state.health.ocr is not None:  # the shared OCR process cannot serve
        kind, why = state.health.ocr
        (failed if kind == "degraded" else unavailable)["ocr"] = why
    return JSONResponse({"status": "degraded" if failed or store_problem else "ok", "version": __version__,
                         "mode": state.config.mode, "worker": os.getpid(),
                         **({"warm_up_failed": failed} if failed else {}),
                         **({"unavailable": unavailable} if unavailable else {}),
                         **({"ccr_store": store_problem} if store_problem else {})})
