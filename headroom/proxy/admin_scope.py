"""Tenant scope on the admin retrieve routes (``GET/POST /v1/retrieve``).

Being allowed on the admin routes (loopback, or the admin token) is not being every
tenant: an original stored by a proxy request is read back through ``/v1/retrieve`` only
with the same upstream credential that stored it (``Authorization``/``x-api-key``, as the
LLM routes carry it; the admin token itself is not a credential), or with an explicit
override, ``x-headroom-all-tenants: true``, which is logged at WARNING with the hash and
the caller's address. Untagged entries (from ``/v1/compress``, the library, the MCP
server) stay readable by any admin caller. A refused hash reads like an unknown one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from starlette.requests import Request

from ..ccr.scope import owned_by, owner, tenant_tag
from .config import ProxyConfig
from .security import presented_admin_token

log = logging.getLogger("headroom.proxy")

OVERRIDE_HEADER = "x-headroom-all-tenants"


@dataclass(frozen=True)
class RetrieveScope:
    tenant: str | None  # the caller's credential tag, or None when it sent none
    override: bool
    client: str

    def may_read(self, store: object, hash: str) -> bool:
        entry_owner = owner(store, hash)
        if owned_by(entry_owner, [self.tenant] if self.tenant else []):
            return True
        if self.override:
            log.warning("admin override (%s): %s read hash=%s of another tenant", OVERRIDE_HEADER, self.client, hash)
            return True
        return False


def retrieve_scope(request: Request, config: ProxyConfig) -> RetrieveScope:
    headers = list(request.headers.items())
    if config.admin_token and presented_admin_token(request.scope) == config.admin_token:
        # The bearer token that opened the admin route is not a tenant's credential.
        headers = [(k, v) for k, v in headers if k.lower() != "authorization"]
    override = (request.headers.get(OVERRIDE_HEADER) or "").strip().lower() in ("1", "true", "yes")
    client = request.client.host if request.client else "?"
    return RetrieveScope(tenant_tag(headers), override, client)
