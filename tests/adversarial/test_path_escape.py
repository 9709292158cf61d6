"""Row F4 of issue 12: a client path can never leave the configured upstream base."""

from __future__ import annotations

import pytest

from headroom.proxy.paths import UnsafePath, upstream_url
from tests.adversarial.hostile import raw_request

ESCAPES = [
    "/v1/%2e%2e/%2e%2e/%2e%2e/tenantB/secret",
    "/v1/%2E%2E/%2E%2E/%2E%2E/tenantB/secret",
    "/v1/..%2f..%2f..%2ftenantB/secret",
    "/v1/../../etc/passwd",
    "/v1/./../../tenantB/secret",
    "/v1/.%2e/.%2e/.%2e/tenantB/secret",
    "/v1/%2e./%2e./tenantB",
    "/v1/..\\..\\tenantB",
    "/v1/%5c..%5c..%5ctenantB",
]


@pytest.mark.parametrize("path", ESCAPES)
def test_f4_dot_segments_and_encoded_separators_are_refused(fake, start_proxy, path):
    url, _ = start_proxy(openai_api_url=f"{fake.url}/tenantA/openai/v1")
    for method in ("GET", "POST"):
        status, data = raw_request(url, method, path, b"{}" if method == "POST" else None,
                                   headers={"authorization": "Bearer sk-tenant-a"})
        assert status == 400, (method, path, status, data)
        assert isinstance(data, dict) and data["error"]["type"] == "invalid_path"
    assert fake.rec.requests == []  # nothing reached the upstream, under the base or outside it


def test_f4_ordinary_paths_still_reach_the_base(fake, start_proxy):
    url, _ = start_proxy(openai_api_url=f"{fake.url}/tenantA/openai/v1")
    status, _ = raw_request(url, "GET", "/v1/files/file-abc123/content?limit=2")
    assert status == 404  # the fake knows no such route, but it was asked under the base
    assert [r["path"] for r in fake.rec.requests] == ["/tenantA/openai/v1/files/file-abc123/content"]


def test_f4_upstream_url_never_leaves_its_base():
    base = "http://up.example/tenantA/openai/v1"
    assert upstream_url(base, "/v1/models", "a=1") == "http://up.example/tenantA/openai/v1/models?a=1"
    for path in ESCAPES + ["/v1/a%00b", "v1/models", "/v1/x y", "/v1/%0a"]:
        with pytest.raises(UnsafePath):
            upstream_url(base, path)
