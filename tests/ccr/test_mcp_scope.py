"""``headroom mcp serve`` reads as a tenant: its keys' entries and untagged ones, or all with a logged override."""

from __future__ import annotations

import logging

import pytest

from headroom.ccr import CompressionStore
from headroom.ccr.scope import ScopedStore, tenant_tag
from headroom.cli import build_parser
from headroom.mcp_server import RetrieveError, TenantScope, retrieve_text


@pytest.fixture
def store():
    s = CompressionStore()
    yield s
    s.close()


def stored(store, header: tuple[str, str], text: str) -> str:
    return ScopedStore(store, tenant_tag([header])).store(text)


def test_a_key_reads_its_own_entries_however_the_proxy_saw_it_sent(store):
    by_bearer = stored(store, ("authorization", "Bearer sk-a"), "alpha\n" * 30)
    by_api_key = stored(store, ("x-api-key", "sk-a"), "beta\n" * 30)
    other = stored(store, ("authorization", "Bearer sk-b"), "gamma\n" * 30)
    untagged = store.store("delta\n" * 30)
    scope = TenantScope.from_credentials(["sk-a"], environ={})
    assert retrieve_text(store, by_bearer, scope=scope).startswith("alpha")
    assert retrieve_text(store, by_api_key, scope=scope).startswith("beta")
    assert retrieve_text(store, untagged, scope=scope).startswith("delta")
    with pytest.raises(RetrieveError, match="unknown or expired"):
        retrieve_text(store, other, scope=scope)
    with pytest.raises(RetrieveError):
        retrieve_text(store, other, scope=TenantScope.from_credentials([], environ={}))


def test_keys_in_the_environment_count(store):
    h = stored(store, ("x-api-key", "sk-ant-env"), "epsilon\n" * 30)
    scope = TenantScope.from_credentials([], environ={"ANTHROPIC_API_KEY": "sk-ant-env"})
    assert retrieve_text(store, h, scope=scope).startswith("epsilon")


def test_all_tenants_is_an_override_that_is_logged(store, caplog):
    h = stored(store, ("authorization", "Bearer sk-b"), "zeta\n" * 30)
    with caplog.at_level(logging.WARNING, logger="headroom.mcp"):
        text = retrieve_text(store, h, scope=TenantScope.from_credentials([], all_tenants=True, environ={}))
    assert text.startswith("zeta") and f"read hash={h} of another tenant" in caplog.text


def test_cli_flags():
    args = build_parser().parse_args(["mcp", "serve", "--api-key", "k1", "--api-key", "k2", "--all-tenants"])
    assert args.api_key == ["k1", "k2"] and args.all_tenants
