"""Admin /v1/retrieve honours tenant scope: the storing credential, or a logged override."""

from __future__ import annotations

import json
import logging

import httpx
from test_e2e_sdk import chat_messages

from headroom.ccr.markers import find_hashes

CHAT = "/v1/chat/completions"


def stored_by(url: str, fake, headers: dict) -> str:
    r = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": chat_messages("mine")}, headers=headers, timeout=20)
    assert r.status_code == 200
    (h,) = find_hashes(json.dumps(fake.rec.bodies()[-1]))
    return h


def test_retrieve_reads_only_the_callers_own_tenant(fake, start_proxy, caplog):
    url, _ = start_proxy()
    h = stored_by(url, fake, {"authorization": "Bearer sk-tenant-a"})
    own = httpx.get(f"{url}/v1/retrieve/{h}", headers={"authorization": "Bearer sk-tenant-a"})
    assert own.status_code == 200 and "processed batch" in own.json()["original_content"]
    for headers in ({}, {"authorization": "Bearer sk-tenant-b"}, {"x-api-key": "sk-tenant-a"}):
        got = httpx.get(f"{url}/v1/retrieve/{h}", headers=headers)
        assert got.status_code == 404 and "processed batch" not in got.text, headers  # reads like an unknown hash
        post = httpx.post(f"{url}/v1/retrieve", json={"hash": h, "query": "batch 3"}, headers=headers)
        assert post.status_code == 404
    with caplog.at_level(logging.WARNING, logger="headroom.proxy"):
        over = httpx.post(f"{url}/v1/retrieve", json={"hash": h}, headers={"x-headroom-all-tenants": "true"})
    assert over.status_code == 200 and "processed batch" in over.json()["original_content"]
    assert f"read hash={h} of another tenant" in caplog.text and "127.0.0.1" in caplog.text
    assert "sk-tenant" not in caplog.text


def test_untagged_entries_stay_readable_by_any_admin_caller(fake, start_proxy):
    url, _ = start_proxy()
    h = stored_by(url, fake, {})  # no credential: an untagged entry
    assert httpx.get(f"{url}/v1/retrieve/{h}").status_code == 200
    assert httpx.get(f"{url}/v1/retrieve/{h}", headers={"authorization": "Bearer sk-x"}).status_code == 200


def test_the_admin_token_is_not_a_tenant_credential(fake, start_proxy):
    url, _ = start_proxy(admin_token="admin-secret")
    h = stored_by(url, fake, {"x-api-key": "sk-ant-a", "anthropic-version": "x"})
    admin = {"authorization": "Bearer admin-secret"}
    assert httpx.get(f"{url}/v1/retrieve/{h}", headers=admin).status_code == 404
    assert httpx.get(f"{url}/v1/retrieve/{h}", headers={**admin, "x-api-key": "sk-ant-a"}).status_code == 200
    with_token_header = {"x-headroom-admin-token": "admin-secret", "x-api-key": "sk-ant-a"}
    assert httpx.get(f"{url}/v1/retrieve/{h}", headers=with_token_header).status_code == 200
