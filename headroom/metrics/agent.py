"""Which agent sent a request, from its User-Agent header: the product, without versions.

``claude-cli/2.1.328 (external, cli)`` → ``claude-cli``; ``codex_exec/0.169.0 (Linux; x86_64)``
→ ``codex_exec``; ``OpenAI/Python 1.109.1`` → ``openai-python``. The rule reads the
header's shape (RFC 9110 ``product/version`` tokens), not a list of known agents: the
first product token names the agent; when its "version" is a word rather than a number
(SDKs write ``Name/Language version``), that word is part of the name. A header with no
product token gives "" (unknown), and the result is bounded so that a hostile header
cannot bloat the metrics rows.
"""

from __future__ import annotations

import re

# product["/" version]; a product token is RFC 9110's tchar run.
_PRODUCT = re.compile(r"\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:/([!#$%&'*+.^_`|~0-9A-Za-z-]+))?")
_NUMERIC = re.compile(r"[vV]?\d")  # 1.2.3, v2
MAX_AGENT_CHARS = 48


def agent_name(user_agent: str | None) -> str:
    """The agent's product name in lower case ("" when the header names none)."""
    if not user_agent:
        return ""
    m = _PRODUCT.match(user_agent[:256])
    if m is None:
        return ""
    name, version = m.group(1), m.group(2)
    if version and not _NUMERIC.match(version):
        name = f"{name}-{version}"  # OpenAI/Python 1.x: the SDK and its language
    return name.lower()[:MAX_AGENT_CHARS]
