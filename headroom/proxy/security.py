"""Security as ASGI middleware, so no route can forget it.

- Host header allowlist (DNS rebinding: a web page on evil.example resolving to
  127.0.0.1 must not reach the proxy with the user's browser).
- Admin routes (stored originals, stats, metrics, feedback, learned patterns) answer loopback clients only,
  unless an admin token is configured and presented.
- Paths that could leave the upstream base (``..``, encoded dots or slashes, NULs) are
  refused with 400 before any route sees them (headroom.proxy.paths).
- Request bodies over the limit are refused with 413 (by Content-Length up front, and by
  counting when the body arrives chunked).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import Any

from .config import ProxyConfig
from .paths import path_problem, raw_path

ADMIN_PREFIXES = ("/v1/retrieve", "/v1/feedback", "/v1/toin", "/stats", "/metrics")


class _BodyTooLarge(Exception):
    pass


def is_admin_path(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in ADMIN_PREFIXES)


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def host_without_port(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8787
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for k, v in scope.get("headers") or []:
        if k.lower() == name:
            return v.decode("latin-1")
    return None


def presented_admin_token(scope: dict[str, Any]) -> str | None:
    token = _header(scope, b"x-headroom-admin-token")
    if token:
        return token.strip()
    auth = _header(scope, b"authorization") or ""
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return None


async def _send_error(send: Any, status: int, message: str, kind: str) -> None:
    body = json.dumps({"error": {"type": kind, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class SecurityMiddleware:
    def __init__(self, app: Any, config: ProxyConfig):
        self.app = app
        self.config = config

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = host_without_port(_header(scope, b"host") or "")
        if not self.config.host_allowed(host):
            await _send_error(send, 400, f"Host header {host!r} is not allowed (DNS-rebinding protection); "
                              "add it with --allowed-host", "invalid_host")
            return
        problem = path_problem(raw_path(scope))
        if problem is not None:
            await _send_error(send, 400, f"refused path: {problem}", "invalid_path")
            return
        if is_admin_path(scope.get("path", "")) and not self._admin_allowed(scope):
            await _send_error(send, 403, "admin routes answer loopback clients only, or clients presenting "
                              "the admin token (Authorization: Bearer or x-headroom-admin-token)", "forbidden")
            return
        limit = self.config.max_body_bytes
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _send_error(send, 413, f"request body of {declared} bytes exceeds the {limit}-byte limit "
                              "(--max-body-mb)", "request_too_large")
            return
        await self._guard_body(scope, receive, send, limit)

    def _admin_allowed(self, scope: dict[str, Any]) -> bool:
        client = scope.get("client")
        if is_loopback(client[0] if client else None):
            return True
        token = self.config.admin_token
        presented = presented_admin_token(scope)
        return bool(token) and presented is not None and hmac.compare_digest(presented.encode(), token.encode())

    async def _guard_body(self, scope: dict[str, Any], receive: Any, send: Any, limit: int) -> None:
        seen = 0
        started = False

        async def counting_receive() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _BodyTooLarge
            return message

        async def tracking_send(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _BodyTooLarge:
            if not started:
                await _send_error(send, 413, f"request body exceeds the {limit}-byte limit (--max-body-mb)",
                                  "request_too_large")
