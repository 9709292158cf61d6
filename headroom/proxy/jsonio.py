"""JSON at the proxy's edge: parsing hostile bodies and writing any text back out.

- A body nested deeper than Python's recursion limit makes ``json.loads`` raise
  ``RecursionError``; that is the client's error (400), not ours (500).
- A lone surrogate (an emoji cut in half, ``"\\ud83d"``) is valid JSON but not valid
  UTF-8: written with ``ensure_ascii=False`` it cannot be encoded. We then write the whole
  body with ``\\u`` escapes instead, which is what the client itself must have sent.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse


class BadJSON(ValueError):
    """The body is not a JSON document we accept; the message is for the client."""


def parse_json(raw: bytes | str) -> Any:
    try:
        return json.loads(raw)
    except RecursionError:
        raise BadJSON("request body is nested too deeply") from None
    except ValueError as exc:
        raise BadJSON(f"request body is not valid JSON: {exc}") from None


def dumps(body: Any) -> bytes:
    """Compact UTF-8 JSON; ``\\u`` escapes where the text holds lone surrogates."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body, separators=(",", ":")).encode("ascii")


class SafeJSONResponse(JSONResponse):
    """A JSONResponse that can carry lone surrogates (stored originals may hold them)."""

    def render(self, content: Any) -> bytes:
        return dumps(content)
