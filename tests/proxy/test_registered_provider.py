"""A provider is one adapter module: registered before the app is built, the made-up
"Acme" (tests/core/adapters/acme.py, which passes the contract suite) is served by the
proxy at the route its module declares, compressed, with the retrieve loop, and
forwarded to its module's upstream URL (or the one the config names for it)."""

from __future__ import annotations

import copy
import json

import httpx
import pytest
from fastapi.testclient import TestClient

from headroom import formats
from headroom.ccr.markers import find_hashes
from headroom.config import HeadroomConfig
from headroom.formats import ADAPTERS
from headroom.proxy.app import create_app
from headroom.proxy.config import ProxyConfig
from tests.core.adapters import acme
from tests.core.adapters.acme_fixtures import ACME


@pytest.fixture
def acme_registered():
    formats.register(acme)
    yield
    ADAPTERS.pop(acme.FORMAT, None)


def _serve(handler, **config):
    cfg = ProxyConfig(allowed_hosts=("testserver",), **config)
    return TestClient(create_app(cfg, HeadroomConfig(), transport=httpx.MockTransport(handler)))


@pytest.mark.parametrize("configured", [False, True])
def test_a_registered_provider_is_served_with_the_retrieve_loop(acme_registered, configured):
    sent: list[tuple[str, dict]] = []

    def upstream(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append((str(request.url), body))
        if len(sent) == 1:  # the model asks for the original behind the marker
            (h,) = find_hashes(json.dumps(body))
            return httpx.Response(200, json={"out": [{"speaker": "bot", "invoke": {
                "ref": "r1", "tool": "headroom_retrieve", "args": {"hash": h}}}], "meter": {"in": 10, "out": 2}})
        return httpx.Response(200, json={"out": [{"speaker": "bot", "say": "done"}], "meter": {"in": 20, "out": 1}})

    urls = {"upstream_urls": {"acme": "http://acme.test"}} if configured else {}
    request = copy.deepcopy(ACME["request"])
    with _serve(upstream, **urls) as client:
        r = client.post("/acme/v1/talk", json=request)
    assert r.status_code == 200, r.text
    assert r.json()["out"] == [{"speaker": "bot", "say": "done"}]  # the retrieve round stayed inside
    base = "http://acme.test" if configured else acme.UPSTREAM_URL
    assert [url for url, _ in sent] == [f"{base}/acme/v1/talk"] * 2
    first, second = sent[0][1], sent[1][1]
    original = request["turns"][-1]["answer"]["output"]
    assert len(json.dumps(first)) < len(json.dumps(request))  # compressed on the way
    answers = [(t.get("answer") or {}).get("output") or "" for t in second["turns"]]
    assert any(original in a for a in answers[len(request["turns"]):])  # the retrieve answer: the original


def test_without_the_adapter_there_is_no_route():
    with _serve(lambda request: httpx.Response(500)) as client:
        r = client.post("/acme/v1/talk", json=ACME["request"])
    assert r.status_code == 404 and r.json()["error"]["type"] == "not_found"


def test_the_not_found_hint_lists_a_registered_providers_route(acme_registered):
    with _serve(lambda request: httpx.Response(500)) as client:
        r = client.post("/v2/talk", json={})
    assert r.status_code == 404 and "/acme/v1/talk" in r.json()["error"]["message"]


def test_the_cli_names_the_adapter_module_and_its_upstream():
    import argparse

    from headroom.cli.cmd_proxy import build_configs, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["proxy", "--adapter", "tests.core.adapters.acme", "--upstream", "acme=http://acme.test"])
    proxy, _ = build_configs(args)
    assert proxy.adapter_modules == ("tests.core.adapters.acme",)
    assert proxy.upstream_urls == {"acme": "http://acme.test"}
    try:  # the app registers the module itself (each worker builds its own app)
        with _serve(lambda request: httpx.Response(200, json={"out": [], "meter": {}}),
                    adapter_modules=proxy.adapter_modules, upstream_urls=proxy.upstream_urls) as client:
            assert client.post("/acme/v1/talk", json=ACME["request"]).status_code == 200
    finally:
        ADAPTERS.pop(acme.FORMAT, None)


def test_an_adapter_module_that_cannot_load_stops_the_start():
    from headroom.proxy.startup import StartupError, _check_adapters

    with pytest.raises(StartupError, match="--adapter: No module named"):
        _check_adapters(ProxyConfig(adapter_modules=("no_such_adapter_module",)))
