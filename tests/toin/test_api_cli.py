"""`GET /v1/toin/*` (admin-gated like /stats) and `headroom toin ...`."""

from __future__ import annotations

import asyncio
import json

import httpx

from headroom.ccr.store import CompressionStore
from headroom.cli import main
from headroom.config import CCRConfig, HeadroomConfig, ToinConfig
from headroom.pipeline import Pipeline
from headroom.proxy import ProxyConfig, create_app
from headroom.toin import SQLiteToinBackend, Toin

from .test_steering import orders
from .test_wiring import body


def call(app, path: str, client_ip: str = "127.0.0.1", headers: dict | None = None, method: str = "GET",
         payload: dict | None = None) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(client_ip, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8787") as c:
            return await c.request(method, path, headers=headers or {}, json=payload)

    return asyncio.run(go())


def learned_sqlite(path, n: int = 6) -> Pipeline:
    cfg = HeadroomConfig(toin=ToinConfig(flush_seconds=0, refresh_seconds=0))
    p = Pipeline(cfg, store=CompressionStore(), toin=Toin(SQLiteToinBackend(path), cfg.toin))
    for k in range(n):
        r = p.compress_body(body(json.dumps(orders(200, offset=1000 * k), indent=1), "which amount is largest?"),
                            "openai_chat")
        p.store.retrieve(r.ccr_hashes[0], f"ORD-{1000 * k + 5}")
    return p


def test_toin_routes_are_admin_gated_and_report_patterns(tmp_path):
    p = learned_sqlite(tmp_path / "t.sqlite3")
    app = create_app(ProxyConfig(metrics_db=None, admin_token="tok"), pipeline=p)
    stats = call(app, "/v1/toin/stats").json()
    assert stats["signatures"] == 1 and stats["compressed"] == 6 and stats["retrieval_rate"] == 1.0
    sig = stats["patterns"][0]["signature"]
    pats = call(app, "/v1/toin/patterns").json()["patterns"]
    assert [x["signature"] for x in pats] == [sig] and pats[0]["retrievals_query"] == 6
    assert call(app, f"/v1/toin/patterns/{sig[:6]}").json()["signature"] == sig
    assert call(app, "/v1/toin/patterns/ffffffff").status_code == 404
    for path in ("/v1/toin/stats", "/v1/toin/patterns", f"/v1/toin/patterns/{sig}"):
        assert call(app, path, "10.0.0.9").status_code == 403
        assert call(app, path, "10.0.0.9", {"authorization": "Bearer tok"}).status_code == 200


def test_toin_routes_when_disabled():
    cfg = HeadroomConfig(toin=ToinConfig(enabled=False))
    app = create_app(ProxyConfig(metrics_db=None), pipeline=Pipeline(cfg, store=CompressionStore()))
    assert call(app, "/v1/toin/stats").status_code == 501


def test_feedback_routes_answer_from_toin_and_501_with_the_reason_when_it_is_off(tmp_path):
    fast = ToinConfig(flush_seconds=0, refresh_seconds=0)
    hc = HeadroomConfig(ccr=CCRConfig(backend="sqlite", sqlite_path=str(tmp_path / "ccr.sqlite3")), toin=fast)
    app = create_app(ProxyConfig(metrics_db=None), hc)
    state = app.state.headroom
    assert state.pipeline._hints == state.feedback.hints and state.feedback.toin is state.pipeline.toin
    r = call(app, "/v1/compress", method="POST", payload=body(json.dumps(orders(200), indent=1), "largest?"))
    (h,) = r.json()["ccr_hashes"]
    assert call(app, f"/v1/retrieve/{h}").status_code == 200
    tool = call(app, "/v1/feedback/list_orders").json()
    assert (tool["stored"], tool["retrieved"], tool["retrieval_events"]) == (1, 1, 1) and tool["aggressiveness"] < 0.5
    assert call(app, "/v1/feedback").json()["totals"]["tools"] == 1
    assert call(app, "/v1/feedback/other").status_code == 404
    assert call(app, "/v1/feedback", "10.0.0.9").status_code == 403  # admin-gated
    state.pipeline.toin.close()
    state.store.close()

    for cfg, why in [(HeadroomConfig(toin=ToinConfig(enabled=False)), "TOIN is disabled"),
                     (HeadroomConfig(ccr=CCRConfig(feedback_enabled=False), toin=fast), "ccr.feedback_enabled"),
                     (HeadroomConfig(ccr=CCRConfig(enabled=False), toin=fast), "CCR is disabled")]:
        off = create_app(ProxyConfig(metrics_db=None), cfg)
        assert off.state.headroom.pipeline._hints is None  # no hints either
        for path in ("/v1/feedback", "/v1/feedback/list_orders"):
            r = call(off, path)
            assert r.status_code == 501 and why in r.text


def test_cli_stats_show_export_import(tmp_path, capsys):
    src = tmp_path / "a.sqlite3"
    learned_sqlite(src).toin.close()
    assert main(["toin", "stats", "--toin-path", str(src)]) == 0
    out = capsys.readouterr().out
    assert "1 signatures, 6 compressions, 6 retrieved (100.0%); 1 confident enough to steer" in out
    sig = out.split("\n")[1].split()[0]
    assert main(["toin", "show", sig[:5], "--toin-path", str(src)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["signature"] == sig and shown["retrieval_rate"] == 1.0
    dump = tmp_path / "patterns.json"
    assert main(["toin", "export", str(dump), "--toin-path", str(src)]) == 0
    dst = tmp_path / "b.sqlite3"
    assert main(["toin", "import", str(dump), "--toin-path", str(dst)]) == 0
    capsys.readouterr()
    assert main(["toin", "stats", "--json", "--toin-path", str(dst)]) == 0
    assert json.loads(capsys.readouterr().out)["compressed"] == 6
    assert main(["toin", "show", "--toin-path", str(dst)]) == 2  # needs a signature


def test_cli_defaults_to_the_file_next_to_the_ccr_store(tmp_path, capsys):
    ccr = tmp_path / "ccr.sqlite3"
    learned_sqlite(tmp_path / "ccr.toin.sqlite3", n=2).toin.close()
    assert main(["toin", "stats", "--ccr-path", str(ccr)]) == 0
    assert "2 compressions" in capsys.readouterr().out
    # The proxy's default config writes to that same file.
    cfg = HeadroomConfig(ccr=CCRConfig(backend="sqlite", sqlite_path=str(ccr)))
    p = Pipeline(cfg)
    assert p.toin.backend.path == str(tmp_path / "ccr.toin.sqlite3")
    p.toin.close()


def test_proxy_flag_turns_toin_off():
    from headroom.cli import build_parser
    from headroom.cli.cmd_proxy import build_configs

    _, on = build_configs(build_parser().parse_args(["proxy"]))
    _, off = build_configs(build_parser().parse_args(["proxy", "--no-toin"]))
    assert on.toin.enabled and not off.toin.enabled
