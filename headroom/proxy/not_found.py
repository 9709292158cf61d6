"""A JSON 404 for a path the proxy does not serve, saying what was probably meant.

The usual cause is a client base URL without ``/v1`` (``http://127.0.0.1:8787`` for an
OpenAI SDK, so it posts ``/chat/completions``), or a path of another provider's API. A
bare ``{"detail": "Not Found"}`` says neither; this answer names the route it would
have matched and the base URL to set.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..formats import ADAPTERS

# Paths a client sends when its base URL lacks /v1 -> the URL to configure.
_MISSING_V1 = {
    "chat/completions": "OPENAI_BASE_URL=http://HOST:PORT/v1",
    "responses": "OPENAI_BASE_URL=http://HOST:PORT/v1",
    "completions": "OPENAI_BASE_URL=http://HOST:PORT/v1",
    "embeddings": "OPENAI_BASE_URL=http://HOST:PORT/v1",
    "models": "OPENAI_BASE_URL=http://HOST:PORT/v1",
    "messages": "ANTHROPIC_BASE_URL=http://HOST:PORT (the Anthropic SDK adds /v1 itself)",
    "messages/count_tokens": "ANTHROPIC_BASE_URL=http://HOST:PORT (the Anthropic SDK adds /v1 itself)",
}
# Besides the LLM routes every registered adapter declares (its PROXY_ROUTES).
_ALSO_SERVED = ("/v1/* (passed through)", "/health", "/stats", "/metrics")


def served() -> tuple[str, ...]:
    """Every route the proxy serves, as the hint lists them."""
    llm = [r.path for a in ADAPTERS.values() for r in getattr(a, "PROXY_ROUTES", ())]
    return (*llm, *_ALSO_SERVED)


def hint_for(path: str, host: str) -> str:
    """What to change so the request reaches a route the proxy serves."""
    bare = path.strip("/")
    for prefix in ("openai/v1/", "api/v1/", "openai/"):
        if bare.startswith(prefix):
            return (f"the path has an extra prefix: use /v1/{bare[len(prefix):]} (set the client's base URL to "
                    f"http://{host}/v1, once)")
    if bare in _MISSING_V1 or bare.split("/", 1)[0] in ("chat",):
        fix = _MISSING_V1.get(bare, "OPENAI_BASE_URL=http://HOST:PORT/v1").replace("HOST:PORT", host)
        return f"the base URL is missing /v1: this request should go to /v1/{bare}; set {fix}"
    if bare.startswith(("v1beta/", "models/")):
        return "Gemini requests go to /v1beta/models/MODEL:generateContent (or :streamGenerateContent)"
    return f"not a route of the headroom proxy; it serves {', '.join(served())}"


async def not_found(request: Request, exc: Exception) -> Response:
    detail = getattr(exc, "detail", None)
    if isinstance(exc, HTTPException) and detail not in (None, "Not Found"):
        # A route's own 404 keeps its message.
        return JSONResponse({"error": {"type": "not_found", "message": str(detail)}}, status_code=404)
    host = request.headers.get("host") or "127.0.0.1:8787"
    message = f"no route {request.method} {request.url.path}: {hint_for(request.url.path, host)}"
    return JSONResponse({"error": {"type": "not_found", "message": message, "path": request.url.path}},
                        status_code=404)


def register(app) -> None:
    app.add_exception_handler(404, not_found)
