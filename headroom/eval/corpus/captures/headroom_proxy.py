"""headroom's own proxy (``python -m headroom proxy``, this checkout) in front of a
loopback stand-in for the provider, under a seeded loop of agent requests whose tool
outputs are real data (dpkg log slices, scikit-learn's wine rows): ordinary traffic, a
slow upstream answer, the upstream going away and coming back, an oversized body, a
malformed body, an Anthropic request, and a short compression timeout on large outputs."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..cases import LogLine, fact, log_cases, make_case
from ..facts import json_safe
from ..questions import choose
from ._run import free_port, wait_for

SOURCE = "headroom_proxy"
UPSTREAM = '''
import asyncio
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

def _usage(body):
    n = sum(len(str(m.get("content") or "")) for m in body.get("messages", [])) // 4
    return n

async def chat(request):
    body = await request.json()
    last = str(body["messages"][-1].get("content") or "")
    if "take your time" in str(body["messages"]):
        await asyncio.sleep(0.6)
    return JSONResponse({"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": "Noted."}}],
                         "usage": {"prompt_tokens": _usage(body), "completion_tokens": 2,
                                   "total_tokens": _usage(body) + 2}})

async def messages(request):
    body = await request.json()
    return JSONResponse({"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                         "content": [{"type": "text", "text": "Noted."}], "stop_reason": "end_turn",
                         "usage": {"input_tokens": _usage(body), "output_tokens": 2}})

app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                        Route("/v1/messages", messages, methods=["POST"])])
'''
_TS = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}) (DEBUG|INFO|WARNING|ERROR|CRITICAL) ([\w.]+): (.*)$")
_UV = re.compile(r"^(INFO|WARNING|ERROR):\s+(.*)$")
_MS = re.compile(r" ([\d.]+) ms")
# The proxy logs a failed request at INFO with its status and an error= field.
_ERROR_FIELD = re.compile(r"status=5\d\d .*(error=.*)$")


def parse(text: str) -> list[LogLine]:
    out: list[LogLine] = []
    for raw in text.splitlines():
        if m := _TS.match(raw):
            out.append(LogLine(raw, m.group(1), m.group(2), m.group(3), m.group(4)))
        elif m := _UV.match(raw):
            out.append(LogLine(raw, "", m.group(1), "uvicorn", m.group(2)))
        elif out and raw.strip():  # a traceback under an error line
            prev = out[-1]
            out[-1] = LogLine(f"{prev.raw}\n{raw}", prev.ts, prev.level, prev.component, prev.message,
                              f"{prev.detail}\n{raw}" if prev.detail else raw)
    return out


def _serve(cmd: list[str], cwd: Path, log_path: Path) -> subprocess.Popen:
    with open(log_path, "a") as log:
        return subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=log)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def _outputs(rng: random.Random) -> list[str]:
    """Tool outputs cut from real data: dpkg log slices and wine rows as JSON."""
    from sklearn.datasets import load_wine

    dpkg = Path("/var/log/dpkg.log").read_text().splitlines()
    wine = load_wine()
    rows = [{**{str(k): round(float(v), 4) for k, v in zip(wine.feature_names, r)}, "label": int(t)}
            for r, t in zip(wine.data, wine.target)]
    outs = []
    for _ in range(40):
        a = rng.randrange(len(dpkg) - 200)
        outs.append("\n".join(dpkg[a: a + rng.randint(30, 200)]))
        b = rng.randrange(len(rows) - 60)
        outs.append(json.dumps(rows[b: b + rng.randint(10, 60)]))
    return outs


def _chat(output: str, question: str) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": [
        {"role": "user", "content": question},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": output}]}


def _capture(work: Path, n: int) -> str:
    import httpx

    (work / "fake_provider.py").write_text(UPSTREAM)
    up_port, port = free_port(), free_port()
    log_path = work / "proxy.log"
    upstream_cmd = [sys.executable, "-m", "uvicorn", "fake_provider:app", "--port", str(up_port), "--log-level",
                    "warning"]
    upstream = _serve(upstream_cmd, work, work / "upstream.log")
    proxy = _serve([sys.executable, "-m", "headroom", "proxy", "--port", str(port), "--openai-api-url",
                    f"http://127.0.0.1:{up_port}/v1", "--anthropic-api-url", f"http://127.0.0.1:{up_port}",
                    "--ccr-backend", "memory", "--no-metrics", "--max-body-mb", "1", "--compression-timeout", "0.25",
                    "--log-level", "info"], work, log_path)
    rng = random.Random(11)
    outputs = _outputs(rng)
    questions = ("Which packages were configured?", "Summarise this.", "What is the highest alcohol value?",
                 "Anything unusual here?")
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: httpx.get(f"{base}/health", timeout=1).status_code == 200, timeout=60)
        wait_for(lambda: httpx.post(f"http://127.0.0.1:{up_port}/v1/messages", json={"model": "m"},
                                    timeout=1).status_code == 200)
        with httpx.Client(base_url=base, timeout=30) as client:
            for k in range(n):
                body = _chat(rng.choice(outputs), rng.choice(questions))
                if k == n // 7:
                    body["messages"][0]["content"] = "Please take your time with this one."
                if k == n // 5:
                    client.post("/v1/chat/completions", content=b'{"model": "gpt-4o", "messages": [',
                                headers={"content-type": "application/json"})
                if k == n // 4:
                    client.post("/v1/chat/completions", json=_chat("x" * 1_500_000, "Summarise this."))
                if k == n // 3:
                    client.post("/v1/messages", json={"model": "claude-sonnet-4-5", "max_tokens": 64,
                                                      "messages": [{"role": "user", "content": "hello"}]})
                if k == n // 2:
                    _stop(upstream)
                    for _ in range(3):
                        client.post("/v1/chat/completions", json=body)
                    upstream = _serve(upstream_cmd, work, work / "upstream.log")
                    wait_for(lambda: httpx.post(f"http://127.0.0.1:{up_port}/v1/messages", json={"model": "m"},
                                                timeout=1).status_code == 200)
                if k == 2 * n // 3:
                    big = "\n".join(Path("/var/log/dpkg.log").read_text().splitlines()[:5000])
                    client.post("/v1/chat/completions", json=_chat(big, "Which packages were configured?"))
                client.post("/v1/chat/completions", json=body)
    finally:
        _stop(proxy)
        _stop(upstream)
    return log_path.read_text()


def build(work: Path) -> list[dict[str, Any]]:
    lines = parse(_capture(work, 700))
    out = log_cases(SOURCE, "proxy", lines, what="proxy log", tool_name="bash",
                    text_args={"command": "journalctl -u headroom-proxy --no-pager -o cat"}, json_tool="http_get",
                    json_args={"url": "http://logs.internal/api/v1/services/headroom-proxy/lines?format=json"},
                    error_levels={"ERROR", "CRITICAL"}, warning_levels={"WARNING"},
                    intents=("one_off", "errors", "last"), json_intents=("one_off", "errors"),
                    error_part=lambda ln: m.group(1) if (m := _ERROR_FIELD.search(ln.message)) else None)
    timed = [(float(m.group(1)), ln) for ln in lines if (m := _MS.search(ln.message))]
    if timed:
        ms, ln = max(timed, key=lambda t: t[0])
        text = json_safe(ln.message)
        content = "".join(f"{x.raw}\n" for x in lines)
        if text and content.count(text) == 1:
            q = choose(f"{SOURCE}/proxy_text_slowest", ("Which request through the proxy took longest?",
                                                        "Find the slowest proxied call and how long it took."))
            out.append(make_case(SOURCE, "proxy_text_slowest", "text", "bash",
                                 {"command": "journalctl -u headroom-proxy --no-pager -o cat"}, "extreme", q, content,
                                 [fact(text, "extreme", f"request line with the largest duration ({ms} ms)")]))
    return out
