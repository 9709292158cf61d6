"""The one seam to the providers: a pooled ``httpx.AsyncClient`` and header hygiene.

The client is shared by every caller of the proxy, so it must hold nothing per caller:
no cookie jar (an upstream ``set-cookie`` is relayed to the client that got it and never
sent again by us), no default auth, no ``.netrc`` credentials, HTTP/1.1 only
(a pooled connection carries no headers from one request to the next). Everything a
request needs upstream comes from that request's own headers.

Tests pass their own ``httpx.AsyncBaseTransport`` (a MockTransport, or a real transport
aimed at a loopback fake), so nothing here is patched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from http.cookiejar import CookieJar, CookiePolicy

import httpx
from starlette.datastructures import Headers

from .config import ProxyConfig

# Connection-level headers (RFC 9110 §7.6.1) and ones httpx recomputes itself.
_HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
    "transfer-encoding", "upgrade", "host", "content-length",
})
# We decode upstream bodies (to read JSON and SSE), so encodings are negotiated per hop.
_REQUEST_DROP = _HOP_BY_HOP | {"accept-encoding"}
_RESPONSE_DROP = _HOP_BY_HOP | {"content-encoding"}


class _RefuseAll(CookiePolicy):
    """Accept no cookie and send none: the jar of a client shared by every tenant stays empty."""

    netscape = True
    rfc2965 = False
    hide_cookie2 = True

    # http.cookiejar's signatures (untyped there).
    def set_ok(self, cookie, request) -> bool:
        return False

    def return_ok(self, cookie, request) -> bool:
        return False

    def domain_return_ok(self, domain, request) -> bool:
        return False

    def path_return_ok(self, path, request) -> bool:
        return False


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
    # trust_env stays on: HTTPS_PROXY / SSL_CERT_FILE are the operator's egress settings, the
    # same for every tenant (corporate proxies and CAs need them); httpx >= 0.24 reads no
    # .netrc, so no host credential is attached to a request (tested). http2 stays off so no
    # connection-level state spans requests.
    return httpx.AsyncClient(transport=transport, timeout=timeout, limits=limits, follow_redirects=False,
                             cookies=CookieJar(policy=_RefuseAll()), http2=False)


def request_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Client headers to send upstream: auth and provider headers unchanged, ours removed."""
    return [
        (k, v) for k, v in headers
        if k.lower() not in _REQUEST_DROP and not k.lower().startswith("x-headroom-")
    ]


def response_headers(headers: Mapping[str, str] | httpx.Headers, extra: Mapping[str, str] | None = None) -> Headers:
    """Upstream headers for the client, minus hop-by-hop and CORS headers (the proxy sends none).

    Repeated headers stay repeated: every ``set-cookie`` goes to this client, the one the
    upstream meant it for (the proxy keeps none of them).
    """
    out: list[tuple[bytes, bytes]] = []
    items = headers.multi_items() if isinstance(headers, httpx.Headers) else headers.items()
    for k, v in items:
        lk = k.lower()
        if lk in _RESPONSE_DROP or lk.startswith("access-control-") or (extra and lk in extra):
            continue
        out.append((lk.encode("latin-1"), v.encode("latin-1")))
    for k, v in (extra or {}).items():
        out.append((k.lower().encode("latin-1"), v.encode("latin-1")))
    return Headers(raw=out)
