"""Upstream URLs that can never leave the configured base.

The upstream URL is the configured base plus the client's path. A client that can put
``..`` into that path, plain or percent-encoded, walks out of the base: with
``--openai-api-url http://host/tenantA/openai/v1``, ``/v1/%2e%2e/%2e%2e/%2e%2e/tenantB``
once reached ``/tenantB`` upstream *with the client's credentials* (issue 12, F4). And a
NUL or a control character in a path made the URL library raise (a 500, F10).

So the path is checked as the client sent it (``raw_path``, still percent-encoded), and
refused with 400 when it holds a dot segment, an encoded dot, slash or backslash, a
backslash, or a control character, plain or encoded. No provider API has such paths. What
passes is appended to the base unchanged, and the result is checked once more to start
with the base.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx

# %2e '.', %2f '/', %5c '\', and every encoded control character (%00-%1f, %7f).
_ENCODED_FORBIDDEN = re.compile(r"%(?:2[eEfF]|5[cC]|[01][0-9a-fA-F]|7[fF])")
_CONTROL = re.compile(r"[\x00-\x20\x7f-\uffff\\]")


class UnsafePath(ValueError):
    """The path could leave the upstream base, or cannot be sent; the message says why."""


def raw_path(scope: dict[str, Any]) -> str:
    """The request path as the client sent it (percent-encoded), without the query."""
    raw = scope.get("raw_path")
    if raw:
        return raw.decode("latin-1").split("?", 1)[0]
    return quote(scope.get("path", "/"), safe="/:@!$&'()*+,;=-._~")


def path_problem(path: str) -> str | None:
    """Why ``path`` (percent-encoded) is refused, or None when it is safe to forward."""
    if not path.startswith("/"):
        return "the path must start with '/'"
    if _CONTROL.search(path):
        return "the path holds a control character, a space, a backslash or a non-ASCII byte"
    if _ENCODED_FORBIDDEN.search(path):
        return "the path holds an encoded '.', '/', '\\' or control character"
    if any(seg in (".", "..") for seg in path.split("/")):
        return "the path holds a '.' or '..' segment"
    return None


def upstream_url(base: str, path: str, query: str = "") -> str:
    """``base`` + ``path`` (``/v1/...``, percent-encoded); a base ending in ``/v1`` is accepted.

    Raises :class:`UnsafePath` when the path is refused or the URL would leave ``base``.
    """
    problem = path_problem(path)
    if problem is not None:
        raise UnsafePath(problem)
    base = base.rstrip("/")
    if base.endswith("/v1") and path.startswith("/v1/"):
        base = base[:-3]
    url = f"{base}{path}" + (f"?{query}" if query else "")
    # The URL library may still normalise; what it will send must stay under the base.
    sent, root = httpx.URL(url), httpx.URL(base + "/")
    if (sent.scheme, sent.host, sent.port) != (root.scheme, root.host, root.port) or \
            not sent.raw_path.startswith(root.raw_path.split(b"?")[0]):
        raise UnsafePath("the path would leave the configured upstream base")
    return url
