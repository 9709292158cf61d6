"""LLMLingua-2 from the proxy's first request: the 1st and the 10th request's times.

    python benchmarks/first_request.py --device cuda [--requests 10] [--model DIR] [--json out.json]

Starts `headroom proxy --llmlingua --llmlingua-device DEVICE` (a tiny LLMLingua-2-shaped
XLM-R checkpoint built here by headroom.ml.testing unless ``--model`` names one) against a
loopback stand-in upstream, waits until /health answers (warm-up done), then sends
``--requests`` Chat Completions requests, each with a new ~1 000-word prose tool output
(no memo hit), one after the other. Per request: wall time, the proxy's
``x-headroom-compression-ms``, and whether the forwarded body was compressed by
LLMLingua-2 (its summary in the marker) or by the deterministic fallback, or not at all.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import stop_process
from ml_cuda_check import FACTS, PROSE, _free_port, _messages, _Upstream


def run(model: Path, device: str, requests: int, workdir: Path) -> dict:
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    port = _free_port()
    log_path = workdir / "proxy.log"
    cmd = [sys.executable, "-m", "headroom", "proxy", "--port", str(port), "--llmlingua", "--llmlingua-device", device,
           "--llmlingua-model-path", str(model), "--openai-api-url", f"http://127.0.0.1:{upstream.server_port}",
           "--ccr-backend", "memory", "--no-metrics", "--log-level", "info"]
    t0 = time.perf_counter()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
        try:
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"proxy exited {proc.returncode}: {log_path.read_text()[-2000:]}")
                if time.perf_counter() - t0 > 300:
                    raise RuntimeError("proxy did not answer /health in 300 s")
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
            startup_s = time.perf_counter() - t0
            rows = []
            for i in range(requests):
                body = {"model": "gpt-4o", "messages": _messages(f"Note {i}. " + PROSE * 40 + FACTS)}
                t1 = time.perf_counter()
                r = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body, timeout=120,
                               headers={"authorization": "Bearer bench"})
                wall_ms = (time.perf_counter() - t1) * 1000
                forwarded = json.dumps(_Upstream.received[-1]["messages"])
                rows.append({"request": i + 1, "status": r.status_code, "wall_ms": round(wall_ms, 1),
                             "compression_ms": float(r.headers.get("x-headroom-compression-ms") or "nan"),
                             "llmlingua": "LLMLingua-2 kept" in forwarded and "deterministic fallback" not in forwarded,
                             "fallback": "deterministic fallback" in forwarded,
                             "tokens_saved": int(r.headers.get("x-headroom-tokens-saved") or 0)})
        finally:
            stop_process(proc, 30)
            upstream.shutdown()
    warm = [ln for ln in log_path.read_text().splitlines() if "warm-up" in ln]
    return {"device": device, "model": str(model), "startup_s": round(startup_s, 2), "requests": rows,
            "warm_up_log": warm[-4:]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--requests", type=int, default=10)
    ap.add_argument("--model", type=Path, help="an LLMLingua-2 checkpoint directory (default: a tiny one built here)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model
        if model is None:
            from headroom.ml.testing import build_xlm_roberta

            model = build_xlm_roberta(Path(tmp) / "tiny-llmlingua-2-xlm-roberta-large")
        result = run(model, args.device, args.requests, Path(tmp))
    rows = result["requests"]
    for row in (rows[0], rows[-1]):
        print(f"request {row['request']:2d}: wall {row['wall_ms']:.1f} ms, compression {row['compression_ms']:.1f} ms, "
              f"llmlingua={row['llmlingua']} fallback={row['fallback']} saved={row['tokens_saved']}")
    print(f"start-up {result['startup_s']} s; LLMLingua-2 on {sum(r['llmlingua'] for r in rows)}/{len(rows)} requests")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0 if rows and rows[0]["llmlingua"] else 1


if __name__ == "__main__":
    sys.exit(main())
