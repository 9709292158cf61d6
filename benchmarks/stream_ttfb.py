"""Time to first streamed text byte through the proxy, with and without markers (issue 13, bug 6).

A request whose tool output gets compressed carries a CCR marker, so the proxy injects
``headroom_retrieve`` and must watch the streamed turn for a retrieve call. Before the fix
it held the whole turn back; now text deltas go live and only tool-call events wait.
Target: the first text byte reaches the client in the same time with or without markers.

The upstream is an in-process fake (the proxy's transport seam) that paces its answer:
``--tokens`` text deltas, ``--gap-ms`` apart, after ``--first-ms``. The proxy runs under
uvicorn on loopback; the client is httpx. Per request we record the time from sending
to the first byte of the first text delta, and to the end of the stream. The best of
``--rounds`` rounds (each ``--n`` requests per arm) is reported, since other processes
share the CPU here.

    PYTHONPATH=. .venv/bin/python benchmarks/stream_ttfb.py --api anthropic
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "proxy"))

from tests.proxy.conftest import make_pipeline  # noqa: E402
from tests.proxy.proxy_fakes import anthropic_stream, chat_stream  # noqa: E402
from tests.servers import ServerThread  # noqa: E402

from headroom.proxy import ProxyConfig, create_app  # noqa: E402

BIG = "\n".join(f"2026-11-22T04:00:{i % 60:02d} INFO worker-{i % 7} processed batch {i} in {i % 13} ms"
                for i in range(400))
APIS = {
    "anthropic": ("/v1/messages", anthropic_stream),
    "chat": ("/v1/chat/completions", chat_stream),
}


def body_for(api: str, with_markers: bool, i: int) -> dict:
    tool_output = f"{BIG}\nrun {i}" if with_markers else f"ok {i}"  # short outputs are never compressed
    if api == "anthropic":
        return {"model": "claude-x", "max_tokens": 50, "stream": True, "messages": [
            {"role": "user", "content": "what failed?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_logs", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": tool_output}]}]}
    return {"model": "gpt-4o", "stream": True, "messages": [
        {"role": "user", "content": "what failed?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_logs", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": tool_output}]}


class PacedUpstream(httpx.AsyncBaseTransport):
    def __init__(self, builder, tokens: int, first_s: float, gap_s: float):
        self.builder, self.tokens, self.first_s, self.gap_s = builder, tokens, first_s, gap_s

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        events = self.builder("m", [f"tok{k} " for k in range(self.tokens)], [])

        async def stream():
            await asyncio.sleep(self.first_s)
            for e in events:
                yield e
                if b"tok" in e:
                    await asyncio.sleep(self.gap_s)

        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stream())


def measure(url: str, path: str, body: dict) -> tuple[float, float]:
    t0 = time.perf_counter()
    first = None
    seen = b""
    with httpx.stream("POST", url + path, json=body, timeout=60, headers={"anthropic-version": "2023-06-01"}) as r:
        for chunk in r.iter_raw():
            seen += chunk
            if first is None and b"tok0" in seen:
                first = time.perf_counter() - t0
    assert first is not None, "no text arrived"
    return first * 1000, (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--api", choices=sorted(APIS), default="anthropic")
    ap.add_argument("--n", type=int, default=20, help="requests per arm per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=40)
    ap.add_argument("--first-ms", type=float, default=50.0)
    ap.add_argument("--gap-ms", type=float, default=20.0)
    args = ap.parse_args()
    path, builder = APIS[args.api]
    upstream = PacedUpstream(builder, args.tokens, args.first_ms / 1000, args.gap_ms / 1000)
    app = create_app(ProxyConfig(metrics_db=None, openai_api_url="http://up", anthropic_api_url="http://up"),
                     transport=upstream, pipeline=make_pipeline())
    best: dict[bool, tuple[float, float]] = {}
    with ServerThread(app) as server:
        measure(server.url, path, body_for(args.api, True, -1))  # warm-up
        for _ in range(args.rounds):
            for with_markers in (False, True):
                runs = [measure(server.url, path, body_for(args.api, with_markers, i)) for i in range(args.n)]
                ttfb = statistics.median(r[0] for r in runs)
                total = statistics.median(r[1] for r in runs)
                if with_markers not in best or ttfb < best[with_markers][0]:
                    best[with_markers] = (ttfb, total)
    stream_ms = args.first_ms + args.tokens * args.gap_ms
    print(f"api={args.api} upstream: first token after {args.first_ms:g} ms, {args.tokens} tokens "
          f"{args.gap_ms:g} ms apart (~{stream_ms:g} ms); n={args.n} per arm, best median of {args.rounds} rounds")
    print(f"{'request':<22}{'first text byte ms':>20}{'whole stream ms':>18}")
    for with_markers in (False, True):
        ttfb, total = best[with_markers]
        label = "with markers (CCR)" if with_markers else "without markers"
        print(f"{label:<22}{ttfb:>20.1f}{total:>18.1f}")
    print(json.dumps({"api": args.api, "ttfb_ms": {"without": round(best[False][0], 1), "with": round(best[True][0], 1)},
                      "total_ms": {"without": round(best[False][1], 1), "with": round(best[True][1], 1)}}))


if __name__ == "__main__":
    main()
