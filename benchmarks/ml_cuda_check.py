"""LLMLingua-2 on an accelerator, through the public API: valid outputs, fp16, deadline, proxy.

    python benchmarks/ml_cuda_check.py [--device cuda] [--large DIR] [--proxy] [--json out.json]

Each check runs the repository's real code paths (``compress()``, ``LLMLinguaCompressor``,
``headroom proxy`` as a subprocess against a loopback stand-in upstream) on ``--device``
and compares with the same model on the CPU. Tiny checkpoints are built here
(``headroom.ml.testing``); ``--large`` adds a real-size checkpoint directory (e.g. the
random XLM-R-large one ``benchmarks/ml_llmlingua.py`` builds), which proves speed and
numerical sanity (finite fp16 logits), not what a trained model keeps. A failed check is
recorded with its error and the others still run; the exit status is 1 if any failed.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import stop_process  # noqa: E402

PROSE = (
    "The on-call engineer looked at the dashboards for quite a while and eventually decided that the "
    "most sensible thing to do was to roll back the latest change, because the error rate had climbed "
    "steadily during the whole afternoon and customers had started to notice slow pages. "
)
FACTS = "Rollback of release 4.2.1 finished at 17:05 after the error in /srv/app/config.yaml was found. "

RESULTS: dict[str, Any] = {}


def check(name: str):
    def wrap(fn):
        def run(*a, **kw):
            t0 = time.perf_counter()
            try:
                out = fn(*a, **kw)
                RESULTS[name] = {"ok": True, "seconds": round(time.perf_counter() - t0, 2), **(out or {})}
            except Exception as exc:  # noqa: BLE001 - a report, not a library
                RESULTS[name] = {"ok": False, "seconds": round(time.perf_counter() - t0, 2),
                                 "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-3000:]}
            print(f"[{'ok' if RESULTS[name]['ok'] else 'FAIL'}] {name}: "
                  f"{json.dumps({k: v for k, v in RESULTS[name].items() if k != 'traceback'})[:600]}", flush=True)
        return run
    return wrap


def _messages(tool_output: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Summarise what happened during the incident."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_notes", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": tool_output},
        {"role": "user", "content": "When did the rollback finish?"},
    ]


def _compressor(path: Path, device: str, **kw: Any):
    from headroom.compressors.llmlingua import LLMLinguaCompressor
    from headroom.config import LLMLinguaConfig

    return LLMLinguaCompressor(LLMLinguaConfig(enabled=True, device=device, model_path=str(path), min_tokens=20, **kw))


def _inp(text: str, router_ms: float = 10**7):
    from headroom.compressors.base import CompressInput
    from headroom.config import HeadroomConfig, RouterConfig
    from headroom.tokens import counter_for

    return CompressInput(text=text, config=HeadroomConfig(router=RouterConfig(timeout_ms=router_ms)),
                         counter=counter_for("gpt-4o"))


def _model_facts(comp) -> dict[str, Any]:
    model = comp._model().model
    p = next(model.parameters())
    return {"resolved_device": comp.device, "param_device": str(p.device), "param_dtype": str(p.dtype)}


@check("public_api_compress")
def public_api(path: Path, device: str) -> dict[str, Any]:
    """``compress()`` with ``HeadroomConfig(llmlingua=...)`` on the device, as a user would call it."""
    from headroom import compress
    from headroom.config import HeadroomConfig, LLMLinguaConfig, RouterConfig

    cfg = HeadroomConfig(llmlingua=LLMLinguaConfig(enabled=True, device=device, model_path=str(path)),
                         router=RouterConfig(timeout_ms=60_000))
    text = PROSE * 40 + FACTS
    result = compress(_messages(text), model="gpt-4o", config=cfg)
    strategies = [getattr(d, "strategy", None) or (d.get("strategy") if isinstance(d, dict) else None)
                  for d in getattr(result, "decisions", [])]
    out = json.dumps(result.body)
    assert result.tokens_saved > 0, "nothing saved"
    assert any((s or "").startswith("llmlingua2:") for s in strategies), strategies
    for fact in ("4.2.1", "17:05", "/srv/app/config.yaml"):
        assert fact in out, fact
    return {"tokens_before": result.tokens_before, "tokens_after": result.tokens_after,
            "tokens_saved": result.tokens_saved, "strategies": strategies}


@check("cpu_vs_device_agreement")
def agreement(path: Path, device: str, label: str = "tiny") -> dict[str, Any]:
    """Keep probabilities on the device (fp16 on CUDA) against fp32 on the CPU, and the words kept."""
    import math

    cpu, dev = _compressor(path, "cpu"), _compressor(path, device)
    words = (PROSE * 30 + FACTS).split()
    p_cpu, p_dev = cpu.keep_probabilities(words), dev.keep_probabilities(words)
    assert all(math.isfinite(p) and 0.0 <= p <= 1.0 for p in p_dev), "non-finite or out-of-range probability"
    diff = max(abs(a - b) for a, b in zip(p_cpu, p_dev))
    text = " ".join(words)
    kept_cpu = cpu.compress_text(text, 0.5)[0].split()
    kept_dev = dev.compress_text(text, 0.5)[0].split()
    # Words kept by both, as a multiset (positions shift after the first difference).
    from collections import Counter

    common = sum((Counter(kept_cpu) & Counter(kept_dev)).values())
    return {"model": label, "words": len(words), "max_abs_prob_diff": round(diff, 6),
            "kept_cpu": len(kept_cpu), "kept_device": len(kept_dev), "identical_output": kept_cpu == kept_dev,
            "kept_by_both": common, "kept_overlap": round(common / max(len(kept_cpu), len(kept_dev), 1), 4),
            **_model_facts(dev)}


@check("device_resolution_and_unload")
def device_resolution(path: Path, device: str) -> dict[str, Any]:
    """``auto`` picks the GPU, an index past the visible GPUs is DeviceUnavailable, unload frees memory."""
    import torch

    from headroom.ml.registry import DeviceUnavailable, loaded, resolve_device, unload

    out: dict[str, Any] = {"auto": resolve_device("auto")}
    if not device.startswith("cuda"):
        return out
    out["cuda:0"] = resolve_device("cuda:0")
    bad = f"cuda:{torch.cuda.device_count()}"
    try:
        resolve_device(bad)
        out[bad] = "accepted (bug: the load would fail later with 'invalid device ordinal')"
        raise AssertionError(out[bad])
    except DeviceUnavailable as exc:
        out[bad] = f"DeviceUnavailable: {exc}"
    comp = _compressor(path, device)
    comp.warm_up()
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    n = unload(comp.family)
    after = torch.cuda.memory_allocated()
    assert n >= 1 and not [k for k in loaded() if k[0] == comp.family and k[1].startswith("cuda")]
    assert after < before, (before, after)
    out.update(unloaded=n, cuda_mb_before_unload=round(before / 2**20, 1), cuda_mb_after_unload=round(after / 2**20, 1))
    return out


@check("json_stays_valid")
def json_valid(path: Path, device: str) -> dict[str, Any]:
    comp = _compressor(path, device)
    data = {"id": 7, "notes": [PROSE * 3, "short", PROSE * 2 + FACTS], "nested": {"text": PROSE * 2, "n": 3.5}}
    out = comp.compress(_inp(json.dumps(data)))
    assert out is not None, "JSON not compressed"
    back = json.loads(out.text)
    assert back["id"] == 7 and back["nested"]["n"] == 3.5 and back["notes"][1] == "short"
    return {"strategy": out.strategy, "words": [out.items_before, out.items_after]}


@check("deadline_fallback")
def deadline(path: Path, device: str) -> dict[str, Any]:
    """A 1 ms budget must end in the deterministic TextCrusher result, not an error or the model's."""
    comp = _compressor(path, device, timeout_ms=1)
    comp.warm_up()
    out = comp.compress(_inp(PROSE * 120 + FACTS))
    assert out is not None and out.strategy.startswith("fallback:"), out and out.strategy
    assert "deterministic fallback" in out.summary
    return {"strategy": out.strategy, "summary": out.summary[:160]}


@check("threads_share_one_model")
def threads(path: Path, device: str) -> dict[str, Any]:
    """Four threads compress at once through one cached model (the proxy's worker threads do this)."""
    comp = _compressor(path, device)
    text = PROSE * 30 + FACTS
    expected = comp.compress(_inp(text)).text
    outs: list[str] = []
    errors: list[str] = []

    def work() -> None:
        try:
            outs.append(comp.compress(_inp(text)).text)
        except Exception as exc:  # noqa: BLE001
            errors.append(repr(exc))

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    assert all(o == expected for o in outs), "threads disagree"
    return {"threads": len(outs)}


@check("large_fp16_vs_fp32")
def large(path: Path, device: str, repeats: int = 5) -> dict[str, Any]:
    """Real-size model: fp16 (what the compressor uses on CUDA) against fp32 on the same GPU, same words."""
    import math

    import torch

    comp = _compressor(path, device)
    m = comp._model()
    words = (PROSE * 25).split()  # about 1 000 tokens of prose

    def timed() -> tuple[float, list[float]]:
        comp.keep_probabilities(words)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            probs = comp.keep_probabilities(words)
            ts.append(time.perf_counter() - t0)
        ts.sort()
        return ts[len(ts) // 2], probs

    t16, p16 = timed()
    dtype16 = str(next(m.model.parameters()).dtype)
    m.model.float()
    try:
        t32, p32 = timed()
    finally:
        m.model.half() if device.startswith("cuda") else None
    assert all(math.isfinite(p) for p in p16), "non-finite fp16 probabilities"
    return {"words": len(words), "compressor_dtype": dtype16, "median_ms_compressor_dtype": round(t16 * 1000, 2),
            "median_ms_fp32": round(t32 * 1000, 2), "max_abs_prob_diff_fp16_fp32": round(max(
                abs(a - b) for a, b in zip(p16, p32)), 6),
            "gpu_mem_allocated_mb": round(torch.cuda.memory_allocated() / 2**20) if device.startswith("cuda") else None}


FIRST_CALL = """
import json, sys, time
from headroom.compressors.base import CompressInput
from headroom.compressors.llmlingua import LLMLinguaCompressor
from headroom.config import HeadroomConfig, LLMLinguaConfig
from headroom.tokens import counter_for
comp = LLMLinguaCompressor(LLMLinguaConfig(enabled=True, device=sys.argv[2], model_path=sys.argv[1], min_tokens=20))
t0 = time.perf_counter(); comp.warm_up(); load = time.perf_counter() - t0
inp = CompressInput(text=sys.argv[3], config=HeadroomConfig(), counter=counter_for("gpt-4o"))  # default 2 s router
inp.text_tokens()  # the o200k counter: loaded by the pipeline's own warm-up in the proxy, not by this compressor's
runs = []
for _ in range(3):
    t0 = time.perf_counter(); out = comp.compress(inp); runs.append((time.perf_counter() - t0, out.strategy))
print(json.dumps({"warm_up_s": round(load, 3), "calls": [[round(t * 1000, 1), s] for t, s in runs]}))
"""


@check("first_call_after_warm_up")
def first_call(path: Path, device: str, label: str) -> dict[str, Any]:
    """A fresh process: warm_up() (what the proxy does at start-up), then three compress() calls
    under the default router deadline; the first must not fall back."""
    r = subprocess.run([sys.executable, "-c", FIRST_CALL, str(path), device, PROSE * 25 + FACTS],
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert not out["calls"][0][1].startswith("fallback:"), out
    return {"model": label, **out}


# --- proxy ------------------------------------------------------------------------------

class _Upstream(BaseHTTPRequestHandler):
    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        _Upstream.received.append(body)
        reply = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model"),
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": "17:05"}}],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *a: Any) -> None:
        pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@check("proxy_cli")
def proxy(path: Path, device: str, workdir: Path) -> dict[str, Any]:
    """``headroom proxy --llmlingua --llmlingua-device DEVICE`` start-up, /health, one chat request."""
    import httpx

    upstream = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    port = _free_port()
    log = open(workdir / "proxy.log", "w")  # noqa: SIM115 - closed in the finally below
    cmd = [sys.executable, "-m", "headroom", "proxy", "--port", str(port), "--llmlingua", "--llmlingua-device", device,
           "--llmlingua-model-path", str(path), "--openai-api-url", f"http://127.0.0.1:{upstream.server_port}",
           "--ccr-backend", "memory", "--no-metrics", "--log-level", "info"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
    try:
        health: dict[str, Any] = {}
        while time.perf_counter() - t0 < 120:
            if proc.poll() is not None:
                raise RuntimeError(f"proxy exited {proc.returncode}: {(workdir / 'proxy.log').read_text()[-2000:]}")
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
                health = r.json()
                if r.status_code == 200:  # the app answers only after its lifespan warm-up
                    break
            except (httpx.HTTPError, ValueError):
                pass
            time.sleep(0.5)
        startup = time.perf_counter() - t0
        body = {"model": "gpt-4o", "messages": _messages(PROSE * 40 + FACTS)}
        t1 = time.perf_counter()
        r = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body, timeout=120,
                       headers={"authorization": "Bearer test"})
        request_s = time.perf_counter() - t1
        assert r.status_code == 200, (r.status_code, r.text[:500])
        assert _Upstream.received, "upstream saw nothing"
        sent = json.dumps(body["messages"])
        forwarded = json.dumps(_Upstream.received[-1]["messages"])
        first = {"compression_ms": r.headers.get("x-headroom-compression-ms"), "smaller": len(forwarded) < len(sent),
                 "llmlingua": "LLMLingua-2 kept" in forwarded, "fallback": "deterministic fallback" in forwarded}
        # Two more requests with new content (no memo hit), as sparse traffic would send them.
        later = []
        for i in (1, 2):
            time.sleep(1)
            body2 = {"model": "gpt-4o", "messages": _messages(f"Note {i}. " + PROSE * 40 + FACTS)}
            r2 = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body2, timeout=120,
                            headers={"authorization": "Bearer test"})
            fwd2 = json.dumps(_Upstream.received[-1]["messages"])
            later.append({"status": r2.status_code, "compression_ms": r2.headers.get("x-headroom-compression-ms"),
                          "llmlingua": "LLMLingua-2 kept" in fwd2, "fallback": "deterministic fallback" in fwd2})
        RESULTS["proxy_requests"] = {"first": first, "later": later,
                                     "log_tail": (workdir / "proxy.log").read_text()[-1500:]}
        for fact in ("4.2.1", "17:05", "/srv/app/config.yaml"):
            assert fact in forwarded, fact
        # The first request after start-up must get the model's result, not the deadline's fallback.
        assert first["smaller"] and first["llmlingua"] and not first["fallback"], first
        return {"startup_s": round(startup, 2), "health": health, "request_s": round(request_s, 3), "later": later,
                "chars_sent": len(sent), "chars_forwarded": len(forwarded),
                "llmlingua_summary_in_forwarded": "LLMLingua-2 kept" in forwarded,
                "fallback_in_forwarded": "deterministic fallback" in forwarded,
                "response_headers": {k: v for k, v in r.headers.items() if k.lower().startswith("x-headroom")}}
    finally:
        stop_process(proc, 15)
        upstream.shutdown()
        log.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--large", type=Path, help="a real-size checkpoint directory for the fp16/fp32 comparison")
    ap.add_argument("--proxy", action="store_true", help="also start `headroom proxy` against a stand-in upstream")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    import torch

    from headroom.ml.testing import build_bert, build_xlm_roberta

    RESULTS["machine"] = {"torch": torch.__version__, "cuda": torch.cuda.is_available(),
                          "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
                          "cpu_threads": torch.get_num_threads()}
    with tempfile.TemporaryDirectory() as tmp:
        xlm = build_xlm_roberta(Path(tmp) / "tiny-llmlingua-2-xlm-roberta-large")
        bert = build_bert(Path(tmp) / "tiny-llmlingua-2-bert-base-multilingual-cased")
        public_api(xlm, args.device)
        agreement(xlm, args.device, "tiny-xlm")
        RESULTS["cpu_vs_device_agreement_tiny_xlm"] = RESULTS.pop("cpu_vs_device_agreement")
        agreement(bert, args.device, "tiny-bert")
        RESULTS["cpu_vs_device_agreement_tiny_bert"] = RESULTS.pop("cpu_vs_device_agreement")
        first_call(xlm, args.device, "tiny-xlm")
        RESULTS["first_call_after_warm_up_tiny"] = RESULTS.pop("first_call_after_warm_up")
        json_valid(xlm, args.device)
        device_resolution(xlm, args.device)
        deadline(xlm, args.device)
        threads(xlm, args.device)
        if args.large:
            agreement(args.large, args.device, args.large.name)
            RESULTS["cpu_vs_device_agreement_large"] = RESULTS.pop("cpu_vs_device_agreement")
            large(args.large, args.device)
            first_call(args.large, args.device, args.large.name)
            RESULTS["first_call_after_warm_up_large"] = RESULTS.pop("first_call_after_warm_up")
            deadline(args.large, args.device)
            RESULTS["deadline_fallback_large"] = RESULTS.pop("deadline_fallback")
        if args.proxy:
            proxy(xlm, args.device, Path(tmp))
    failed = [k for k, v in RESULTS.items() if isinstance(v, dict) and v.get("ok") is False]
    RESULTS["failed"] = failed
    if args.json:
        args.json.write_text(json.dumps(RESULTS, indent=2, default=str) + "\n")
    print(f"{len(failed)} failed: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(main())
