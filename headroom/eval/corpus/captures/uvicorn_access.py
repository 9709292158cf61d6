"""uvicorn (the shared venv's) serving a small Starlette app on loopback, with timestamped
access and error logging, under a bounded, seeded request loop from httpx: ordinary
traffic, 404s, a 403, redirects, and handlers that raise (uvicorn logs the traceback)."""

from __future__ import annotations

import contextlib
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..cases import LogLine, log_cases
from ._run import free_port, wait_for

SOURCE = "uvicorn_access"
APP = '''
import asyncio, json
from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse
from starlette.routing import Route

INVENTORY = {i: {"id": i, "stock": (i * 37) % 101} for i in range(1, 400)}

async def item(request):
    i = int(request.path_params["item_id"])
    if i not in INVENTORY:
        return JSONResponse({"detail": "not found"}, status_code=404)
    return JSONResponse(INVENTORY[i])

async def search(request):
    q = request.query_params.get("q", "")
    return JSONResponse([v for v in INVENTORY.values() if str(v["id"]).startswith(q)][:20])

async def health(request):
    return PlainTextResponse("ok")

async def admin(request):
    return PlainTextResponse("forbidden", status_code=403)

async def old(request):
    return RedirectResponse("/health", status_code=301)

async def report(request):
    rows = [INVENTORY[i]["stock"] for i in range(1, 50)]
    return JSONResponse({"mean": sum(rows) / (len(rows) - 49)})

async def export(request):
    return JSONResponse(json.loads(request.query_params["spec"]))

async def reserve(request):
    body = await request.json()
    INVENTORY[body["id"]]["stock"] -= body["qty"]
    return JSONResponse(INVENTORY[body["id"]])

app = Starlette(routes=[Route("/items/{item_id}", item), Route("/search", search), Route("/health", health),
                        Route("/admin", admin), Route("/old-health", old), Route("/report", report),
                        Route("/export", export), Route("/reserve", reserve, methods=["POST"])])
'''
LOG_CONFIG = {
    "version": 1, "disable_existing_loggers": False,
    "formatters": {
        "default": {"()": "uvicorn.logging.DefaultFormatter", "fmt": "%(asctime)s %(levelprefix)s %(message)s",
                    "use_colors": False},
        "access": {"()": "uvicorn.logging.AccessFormatter",
                   "fmt": '%(asctime)s %(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s',
                   "use_colors": False}},
    "handlers": {"default": {"formatter": "default", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"},
                 "access": {"formatter": "access", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"}},
    "loggers": {"uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
                "uvicorn.error": {"level": "INFO"},
                "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False}},
}
_LINE = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}) (DEBUG|INFO|WARNING|ERROR|CRITICAL):\s+(.*)$")


def parse(text: str) -> list[LogLine]:
    """Records with their continuation lines (tracebacks) folded into ``raw`` and ``detail``."""
    out: list[LogLine] = []
    for raw in text.splitlines():
        m = _LINE.match(raw)
        if m:
            comp = "uvicorn.access" if " - \"" in m.group(3) else "uvicorn.error"
            out.append(LogLine(raw, m.group(1), m.group(2), comp, m.group(3)))
        elif out:
            prev = out[-1]
            out[-1] = LogLine(f"{prev.raw}\n{raw}", prev.ts, prev.level, prev.component, prev.message,
                              f"{prev.detail}\n{raw}" if prev.detail else raw)
    return out


def _traffic(rng: random.Random, n: int) -> list[tuple[str, str, Any]]:
    reqs: list[tuple[str, str, Any]] = []
    for k in range(n):
        r = rng.random()
        if r < 0.55:
            reqs.append(("GET", f"/items/{rng.randint(1, 399)}", None))
        elif r < 0.75:
            reqs.append(("GET", f"/search?q={rng.randint(1, 39)}", None))
        elif r < 0.93:
            reqs.append(("GET", "/health", None))
        else:
            reqs.append(("POST", "/reserve", {"id": rng.randint(1, 399), "qty": rng.randint(1, 3)}))
    # The rare events, at fixed places in the run.
    for pos, req in ((n // 9, ("GET", "/items/9001", None)), (n // 5, ("GET", "/admin", None)),
                     (n // 4, ("GET", "/wp-login.php", None)), (n // 3, ("GET", "/report", None)),
                     (n // 2, ("GET", "/old-health", None)), (2 * n // 3, ("GET", "/export?spec={bad", None)),
                     (3 * n // 4, ("POST", "/reserve", {"id": 5000, "qty": 1})),
                     (5 * n // 6, ("DELETE", "/items/12", None))):
        reqs.insert(pos, req)
    return reqs


def capture(work: Path, n: int, log_config: dict[str, Any] = LOG_CONFIG, env: dict[str, str] | None = None) -> str:
    """What uvicorn logged while serving the app under ``n`` seeded requests (and the rare
    ones), with ``log_config`` (and ``env`` for the server process)."""
    import httpx

    (work / "inventory_app.py").write_text(APP)
    (work / "log.json").write_text(json.dumps(log_config))
    port = free_port()
    with open(work / "uvicorn.log", "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "inventory_app:app", "--host", "127.0.0.1",
                                 "--port", str(port), "--log-config", str(work / "log.json"), "--no-server-header"],
                                cwd=work, stderr=log, stdout=log, env=env)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_for(lambda: httpx.get(f"{base}/health", timeout=1).status_code == 200)
            with httpx.Client(base_url=base, timeout=10, follow_redirects=False) as client:
                for method, path, body in _traffic(random.Random(7), n):
                    # A handler that raises may reset the connection; the server log records it.
                    with contextlib.suppress(httpx.TransportError):
                        client.request(method, path, json=body)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    return (work / "uvicorn.log").read_text()


def build(work: Path) -> list[dict[str, Any]]:
    lines = parse(capture(work, 1900))
    return log_cases(SOURCE, "api", lines, what="web server log", tool_name="bash",
                     text_args={"command": "journalctl -u inventory-api --no-pager -o cat"}, json_tool="http_get",
                     json_args={"url": "http://logs.internal/api/v1/services/inventory-api/lines?format=json"},
                     error_levels={"ERROR", "CRITICAL"}, warning_levels={"WARNING"},
                     intents=("one_off", "errors", "last"), json_intents=("one_off", "errors"))
