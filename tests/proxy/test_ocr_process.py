"""`headroom proxy` with the image stage on runs ONE OCR process, whatever ``--workers``
is (headroom.image.ocr_service), and a text screenshot is transcribed through it."""

from __future__ import annotations

import base64
import io
import time
from pathlib import Path

import httpx
import pytest

from tests.servers import ProxyProcess

pytest.importorskip("rapidocr_onnxruntime")
pytestmark = pytest.mark.slow


def children(pid: int) -> list[int]:
    return [int(c) for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]


def cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def screenshot(text: str) -> str:
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", (900, 120), "white")
    ImageDraw.Draw(img).text((20, 40), text, fill="black", font=ImageFont.load_default(size=28))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


@pytest.mark.parametrize("workers", [1, 2])
def test_the_workers_share_one_ocr_process(fake, tmp_path, workers):
    from headroom.image.ocr_client import OcrClient

    # What is tested is where OCR runs, not how fast: a first OCR read takes seconds on a
    # busy 2-core machine (model load, then ~2 s a read), past the default 10 s budget.
    with ProxyProcess({"openai_api_url": fake.url, "anthropic_api_url": fake.url, "workers": workers,
                       "compression_timeout_s": 90},
                      {"ccr": {"backend": "sqlite", "sqlite_path": str(tmp_path / "ccr.sqlite3")},
                       "image": {"enabled": True}}) as proxy:
        ocr = [c for c in children(proxy.proc.pid) if "headroom.image.ocr_server" in cmdline(c)]
        assert len(ocr) == 1, [cmdline(c) for c in children(proxy.proc.pid)]
        args = cmdline(ocr[0])
        client = OcrClient(args[args.index("--socket") + 1])
        texts = [f"Error: disk quota exceeded on volume {n}" for n in range(6)]
        for text in texts:  # different images (no memo hit); new connections, so both workers take some
            body = {"model": "gpt-4o", "messages": [{"role": "user", "content": [
                {"type": "text", "text": "Read the text in this screenshot"},
                {"type": "image_url", "image_url": {"url": screenshot(text)}}]}]}
            with httpx.Client(timeout=120) as once:
                out = once.post(f"{proxy.url}/v1/compress", json=body).json()
            assert "decisions" in out, out
            image = [d for d in out["decisions"] if d["transform"] == "image"]
            assert image and image[0]["strategy"] == "transcode", image
            assert text in out["body"]["messages"][0]["content"][1]["text"]
            if len(set(client.stats()["clients"]) & proxy.workers) == workers:
                break
        stats = client.stats()
        assert stats["pid"] == ocr[0] and stats["served"] >= 1
        assert set(stats["clients"]) & proxy.workers  # workers, not the test, asked it
        health = httpx.get(f"{proxy.url}/health").json()
        assert health["status"] == "ok" and "ocr" not in health.get("warm_up_failed", {}), health
    # Stopped with the proxy (by the proxy, or by itself within a second when the proxy is gone).
    deadline = time.monotonic() + 5
    while (Path(f"/proc/{ocr[0]}").exists() or Path(client.socket_path).parent.exists()) \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{ocr[0]}").exists() and not Path(client.socket_path).parent.exists()
