"""Tenant-scoped retrieval: an original is read back only by whoever could have sent it.

With one store shared by many clients (a Redis behind several proxy replicas, or one
proxy for a team), anyone who knows or guesses a hash could otherwise read another
client's original through ``headroom_retrieve``. So every entry the proxy stores records
a *tenant tag*, a keyed hash of the upstream credential the request carried (the raw
credential is never stored), and a retrieve call is answered only when

- the entry's tag equals the tag of the asking request's credential, or
- the asking conversation itself carries the entry's marker (what the proxy put there:
  the model learned the hash from its own context), or
- the entry has no tag (stored by the library or ``headroom mcp serve``, not by a
  proxy request with a credential).

The tag key is ``HEADROOM_CCR_TENANT_KEY`` (set the same value on every replica that
shares a store); without it a built-in key is used, which still never stores the
credential itself but lets someone holding the store test guesses of a credential.
See docs/ccr.md, "Who can read an original".
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable, Iterable
from typing import Any

from .markers import find_hashes

TENANT_META_KEY = "tenant"
_DEFAULT_KEY = b"headroom-ccr-tenant-v1"
# Credentials, in the order providers read them.
_CREDENTIAL_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key")


def tenant_tag(headers: Iterable[tuple[str, str]], key: bytes | None = None) -> str | None:
    """The keyed hash of the request's upstream credential, or None when it carries none."""
    found = {k.lower(): v for k, v in headers if k.lower() in _CREDENTIAL_HEADERS}
    credential = next((found[h] for h in _CREDENTIAL_HEADERS if found.get(h)), None)
    if not credential:
        return None
    secret = key if key is not None else os.environ.get("HEADROOM_CCR_TENANT_KEY", "").encode() or _DEFAULT_KEY
    return hmac.new(secret, credential.strip().encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:32]


def tagged(meta: dict[str, Any] | None, tenant: str | None) -> dict[str, Any] | None:
    """An entry's metadata with its tenant recorded: the one place an original is tagged
    (``TransformContext.keep_original``, and ``ScopedStore`` for callers outside a pipeline)."""
    return meta if tenant is None else {**(meta or {}), TENANT_META_KEY: tenant}


class ScopedStore:
    """The store as one caller sees it: whatever it stores is tagged with its tenant."""

    def __init__(self, store: Any, tenant: str):
        self._store, self.tenant = store, tenant

    def store(self, original: str, *, meta: dict[str, Any] | None = None, **kwargs: Any) -> str:
        return self._store.store(original, meta=tagged(meta, self.tenant), **kwargs)

    def refresh(self, original: str, *, meta: dict[str, Any] | None = None, **kwargs: Any) -> str:
        return self._store.refresh(original, meta=tagged(meta, self.tenant), **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def credential_tags(credential: str, key: bytes | None = None) -> set[str]:
    """The tags a request carrying ``credential`` gets, however it sends it (``x-api-key:
    KEY`` or ``Authorization: Bearer KEY``): what a reader outside a request (the MCP
    server) compares entries against."""
    credential = credential.strip()
    return {t for t in (tenant_tag([("x-api-key", credential)], key),
                        tenant_tag([("authorization", f"Bearer {credential}")], key)) if t}


def owner(store: Any, hash: str) -> str | None:
    """The tenant tag ``hash`` was stored under; None for an untagged or unknown entry."""
    entry = store.get(hash)
    return None if entry is None else (entry.meta or {}).get(TENANT_META_KEY)


def owned_by(entry_owner: str | None, tenants: Iterable[str]) -> bool:
    """Whether an entry of ``entry_owner`` is readable by a caller holding ``tenants``."""
    return entry_owner is None or any(hmac.compare_digest(entry_owner, t) for t in tenants)


def may_read(store: Any, hash: str, tenant: str | None, conversation: Callable[[], str]) -> bool:
    """Whether a request with ``tenant`` may read ``hash``; ``conversation()`` gives the
    request's text (built only when the tenant alone does not decide)."""
    entry = store.get(hash)
    if entry is None:
        return True  # nothing to leak: the caller reports unknown or expired
    owner = (entry.meta or {}).get(TENANT_META_KEY)
    if owner is None or (tenant is not None and hmac.compare_digest(owner, tenant)):
        return True
    return hash in find_hashes(conversation())

