"""Proxy memory: does RSS keep growing (issue 12), and what does each worker cost (issue 26)?

Default mode: starts the loopback fake provider and `headroom proxy` as subprocesses
(helpers from proxy_bench.py), sends ten different ~5 MB Chat Completions bodies one
after another, and prints the proxy's RSS after each. Target: RSS after the 10th within
1.2x of RSS after the 1st.

``--workers N``: starts `headroom proxy --workers N` (image stage on, the default),
reads VmRSS of the supervisor and of every worker from /proc after warm-up, after image
requests (a real photo, questions that route to every technique; a photo never reaches
OCR), then after text screenshots that do (RapidOCR loads on the first, in the proxy's one
OCR process, reported apart). Target: each worker <= 250 MB with the image router on, at
every reading.

    .venv/bin/python benchmarks/rss_bench.py            # 10 requests
    .venv/bin/python benchmarks/rss_bench.py --n 20
    .venv/bin/python benchmarks/rss_bench.py --workers 2
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proxy_bench import ROOT, body_with, free_port, rss_kb, running_proxy, start_fake, wait_up

TARGET = 1.2
WORKER_TARGET_MB = 250
# Questions the router sends to each technique (full_low, preserve, transcode, crop).
IMAGE_QUESTIONS = ("What animal is this?", "How many buttons are on the jacket? Be exact.",
                   "Read the text in this picture", "What is in the top-left corner?",
                   "Give me a one-sentence description of this photo")


def photo_data_url() -> str:
    """A real photograph that ships with matplotlib (its sample data), as a data URL."""
    import matplotlib

    path = Path(matplotlib.get_data_path()) / "sample_data" / "grace_hopper.jpg"
    return "data:image/jpeg;base64," + base64.b64encode(path.read_bytes()).decode()


def screenshot_data_url() -> str:
    """A text-only screenshot (package descriptions nobody here wrote), so OCR runs."""
    import io
    from importlib import metadata

    from PIL import Image, ImageDraw, ImageFont

    lines = [ln for ln in (metadata.metadata("httpx").get_payload() or "").splitlines() if ln.strip()][:30]
    img = Image.new("RGB", (1100, 40 + 30 * len(lines)), "white")
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        draw.text((20, 20 + 30 * i), line[:90], fill="black", font=ImageFont.load_default(size=20))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def image_body(question: str, url: str) -> dict:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": [
        {"type": "text", "text": question}, {"type": "image_url", "image_url": {"url": url}}]}]}


def memory_kb(pid: int, field: str) -> int:
    """``RssAnon`` (private to the process) or ``Pss`` (shared pages split among their users)."""
    source = "smaps_rollup" if field == "Pss" else "status"
    for line in Path(f"/proc/{pid}/{source}").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def children_of(pid: int) -> list[tuple[int, bytes]]:
    return [(int(child), Path(f"/proc/{child}/cmdline").read_bytes())
            for task in Path(f"/proc/{pid}/task").iterdir() for child in (task / "children").read_text().split()]


def workers_of(pid: int) -> list[int]:
    """The supervisor's worker processes (not multiprocessing's resource tracker, not the OCR process)."""
    return [child for child, cmd in children_of(pid)
            if b"resource_tracker" not in cmd and b"headroom.image.ocr_server" not in cmd]


def ocr_process_of(pid: int) -> int | None:
    """The proxy's one OCR process (headroom.image.ocr_service), when it runs one."""
    return next((child for child, cmd in children_of(pid) if b"headroom.image.ocr_server" in cmd), None)


def worker_rss(n_workers: int, rounds: int) -> int:
    fake_port, port = free_port(), free_port()
    upstream, url = f"http://127.0.0.1:{fake_port}", f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as workdir:
        fake = start_fake(fake_port)
        cmd = [sys.executable, "-m", "headroom", "proxy", "--port", str(port), "--workers", str(n_workers),
               "--openai-api-url", upstream, "--anthropic-api-url", upstream, "--log-level", "warning",
               "--ccr-path", os.path.join(workdir, "ccr.sqlite3"), "--metrics-db", os.path.join(workdir, "m.db")]
        print("$", " ".join(cmd[1:]), flush=True)
        proxy = subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            wait_up(upstream, fake, "/v1/models")
            wait_up(url, proxy, "/health")
            deadline = time.monotonic() + 300  # every worker warmed up (answers /health itself)
            seen: set[int] = set()
            while len(seen) < n_workers and time.monotonic() < deadline:
                # A new connection per probe: a kept-alive one always reaches the same worker.
                with httpx.Client(timeout=120) as once:
                    seen.add(once.get(f"{url}/health").json()["worker"])
            workers = workers_of(proxy.pid)
            if seen != set(workers):
                raise SystemExit(f"answered /health: {sorted(seen)}; workers: {sorted(workers)}")

            ocr = ocr_process_of(proxy.pid)

            def report(when: str) -> list[int]:
                sizes = [rss_kb(w)[0] for w in workers]
                ocr_mb = f"{rss_kb(ocr)[0] / 1024:.1f} MB (Pss {memory_kb(ocr, 'Pss') / 1024:.1f})" if ocr else "none"
                print(f"{when}: supervisor {rss_kb(proxy.pid)[0] / 1024:.1f} MB; OCR process {ocr_mb}; workers VmRSS "
                      + ", ".join(f"{kb / 1024:.1f}" for kb in sizes) + " MB (private "
                      + ", ".join(f"{memory_kb(w, 'RssAnon') / 1024:.1f}" for w in workers) + ", Pss "
                      + ", ".join(f"{memory_kb(w, 'Pss') / 1024:.1f}" for w in workers) + ")", flush=True)
                return sizes

            readings = [report("after warm-up")]
            photo = photo_data_url()
            for _ in range(rounds):
                for q in IMAGE_QUESTIONS:
                    # A new connection each time, so the kernel spreads them over the workers.
                    with httpx.Client(timeout=120) as once:
                        once.post(f"{url}/v1/chat/completions", json=image_body(q, photo)).raise_for_status()
            readings.append(report(f"after {rounds * len(IMAGE_QUESTIONS)} photo requests"))
            screenshot = screenshot_data_url()
            for _ in range(rounds * 2):
                with httpx.Client(timeout=120) as once:
                    once.post(f"{url}/v1/chat/completions",
                              json=image_body("Read the text in this screenshot", screenshot)).raise_for_status()
            readings.append(report(f"after {rounds * 2} text screenshots (OCR)"))
            if ocr:
                total = (rss_kb(proxy.pid)[0] + rss_kb(ocr)[0] + sum(readings[-1])) / 1024
                print(f"whole proxy (supervisor + OCR process + {n_workers} workers): {total:.1f} MB VmRSS "
                      f"(shared pages counted in each process)", flush=True)
        finally:
            for p in (proxy, fake):
                p.terminate()
                p.wait(timeout=30)
    worst = max(max(r) for r in readings) / 1024  # every reading, OCR included
    print(f"largest worker {worst:.1f} MB ({'within' if worst <= WORKER_TARGET_MB else 'OVER'} the "
          f"{WORKER_TARGET_MB} MB target)")
    return 0 if worst <= WORKER_TARGET_MB else 1


def rows_for(size: int) -> int:
    lo, hi = 1, 2
    while len(json.dumps(body_with(hi, "size"))) < size:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if len(json.dumps(body_with(mid, "size"))) < size else (lo, mid)
    return hi


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--workers", type=int, default=0, help="measure RSS per worker of `proxy --workers N`")
    ap.add_argument("--rounds", type=int, default=4, help="with --workers: rounds of image questions")
    args = ap.parse_args()
    if args.workers:
        return worker_rss(args.workers, args.rounds)
    n_rows = rows_for(int(args.mb * 1024 * 1024))
    rss: list[int] = []
    with running_proxy(max_stop_s=10) as (_, url, proxy):
        with httpx.Client(timeout=300) as client:
            for i in range(args.n):
                body = json.dumps(body_with(n_rows, f"run-{i}-{time.time_ns()}")).encode()
                r = client.post(f"{url}/v1/chat/completions", content=body,
                                headers={"content-type": "application/json"})
                r.raise_for_status()
                del body
                time.sleep(0.5)  # let the metrics writer and the memo settle
                rss.append(rss_kb(proxy.pid)[0])
                print(f"request {i + 1:2d}: {len(r.content)} bytes answered, compression "
                      f"{r.headers.get('x-headroom-compression-ms')} ms, proxy RSS {rss[-1] / 1024:.1f} MB",
                      flush=True)
    ratio = rss[-1] / rss[0]
    print(f"{args.n} x {args.mb:g} MB: RSS after the first {rss[0] / 1024:.1f} MB, after the last "
          f"{rss[-1] / 1024:.1f} MB, max {max(rss) / 1024:.1f} MB; last/first = {ratio:.2f} "
          f"({'within' if ratio <= TARGET else 'OVER'} the {TARGET}x target)")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
