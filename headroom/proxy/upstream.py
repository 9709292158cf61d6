"""The one seam to the providers: a pooled ``httpx.AsyncClient`` and header hygiene.

Tests pass their own ``httpx.AsyncBaseTransport`` (a MockTransport, or a real transport
aimed at a loopback fake), so nothing here is patched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import httpx

from .config import ProxyConfig

# Connection-level headers (RFC 9110 §7.6.1) and ones httpx recomputes itself.
_HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
    "transfer-encoding", "upgrade", "host", "content-length",
})
# We decode upstream bodies (to read JSON and SSE), so encodings are negotiated per hop.
_REQUEST_DROP = _HOP_BY_HOP | {"accept-encoding"}
_RESPONSE_DROP = _HOP_BY_HOP | {"content-encoding"}


def make_client(config: ProxyConfig, transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    timeout = httpx.Timeout(
        connect=config.upstream_connect_timeout_s,
        read=config.upstream_read_timeout_s,
        write=60.0,
        pool=60.0,
    )
    limits = httpx.Limits(
        max_connections=config.upstream_max_connections,
        max_keepalive_connections=min(100, config.upstream_max_connections),
    )
    return httpx.AsyncClient(transport=transport, timeout=timeout, limits=limits, follow_redirects=False)


def request_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Client headers to send upstream: auth and provider headers unchanged, ours removed."""
    return [
        (k, v) for k, v in headers
        if k.lower() not in _REQUEST_DROP and not k.lower().startswith("x-headroom-")
    ]


def response_headers(headers: Mapping[str, str] | httpx.Headers, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Upstream headers for the client, minus hop-by-hop and CORS headers (the proxy sends none)."""
    out: dict[str, str] = {}
    items = headers.multi_items() if isinstance(headers, httpx.Headers) else headers.items()
    for k, v in items:
        lk = k.lower()
        if lk in _RESPONSE_DROP or lk.startswith("access-control-"):
            continue
        if lk == "set-cookie" and lk in out:
            continue  # keep the first; cookies are not something LLM APIs rely on
        out[lk] = v
    if extra:
        out.update(extra)
    return out
