"""The proxy's one OCR process (headroom.image.ocr_service / ocr_server / ocr_client).

The process tests run the service with a reader from tests/image/ocr_readers.py (about the
process: pixels cross intact, timeouts, crashes, sharing); the text test runs RapidOCR in
the service and in this process on a rendered screenshot and compares the two results.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("PIL")

from PIL import Image

from headroom.image import ocr_client, ocr_server
from headroom.image.ocr_client import OcrClient, OcrUnavailable, default_reader, service_health
from headroom.image.ocr_service import ENV_SOCKET, OcrService
from tests.image.conftest import document, error_screenshot

ROOT = Path(__file__).resolve().parents[2]
READERS = "tests.image.ocr_readers"


@pytest.fixture
def in_repo(monkeypatch):
    """The service runs `python -m`, from the repo root, so it finds tests.image.ocr_readers."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


def service(reader: str, **kw) -> OcrService:
    return OcrService(f"{READERS}:{reader}", **kw)


def test_pixels_cross_the_socket_intact(in_repo):
    img = Image.new("RGB", (123, 45), (10, 200, 30))
    with service("describe") as svc:
        assert OcrClient(svc.socket_path).read_text(img).text == "123x45 (10, 200, 30)"
        # Not RGB (palette, alpha): converted before it goes, like the in-process reader does.
        assert OcrClient(svc.socket_path).read_text(img.convert("RGBA")).text == "123x45 (10, 200, 30)"


def test_a_slow_answer_times_out_and_the_service_stays_up(in_repo):
    with service("slow") as svc:
        client = OcrClient(svc.socket_path, timeout_s=0.5)
        t0 = time.monotonic()
        with pytest.raises(OcrUnavailable, match="did not answer within 0.5 s"):
            client.read_text(Image.new("RGB", (8, 8), "white"))
        assert time.monotonic() - t0 < 2.5
        assert client.last_error
        assert OcrClient(svc.socket_path, timeout_s=10).read_text(Image.new("RGB", (8, 8), "white")).text == \
            "8x8 (255, 255, 255)"
        assert svc.restarts == 0


def test_a_reader_error_is_one_image_failing_not_the_service(in_repo):
    with service("fails") as svc:
        client = OcrClient(svc.socket_path)
        with pytest.raises(RuntimeError, match="cannot be read"):
            client.read_text(Image.new("RGB", (8, 8)))
        assert client.stats()["pid"] == svc.pid and client.last_error is None


def test_a_crash_is_restarted_and_the_next_image_is_read(in_repo, monkeypatch):
    with service("crash_on_black") as svc:
        monkeypatch.setenv(ENV_SOCKET, svc.socket_path)
        client = OcrClient(svc.socket_path)
        first = svc.pid
        with pytest.raises(OcrUnavailable, match="connection"):
            client.read_text(Image.new("RGB", (16, 16), "black"))
        # The next request waits for the restart, then is served by the new process.
        assert client.read_text(Image.new("RGB", (16, 16), "red")).text == "16x16 (255, 0, 0)"
        assert svc.restarts == 1 and svc.pid != first
        assert client.status()["state"] == "running"


def test_a_service_that_cannot_start_leaves_health_degraded_and_images_kept(in_repo, monkeypatch):
    # A reader that does not exist: the process dies at start, every time.
    with OcrService(f"{READERS}:no_such_reader", max_restarts=1, window_s=60) as svc:
        monkeypatch.setenv(ENV_SOCKET, svc.socket_path)
        deadline = time.monotonic() + 20
        while OcrClient(svc.socket_path).status().get("state") != "failed" and time.monotonic() < deadline:
            time.sleep(0.1)
        monkeypatch.setattr(ocr_client, "_client", None)
        kind, why = service_health()
        assert kind == "degraded" and "crashed 2 times" in why and "no_such_reader" in why
        with pytest.raises(OcrUnavailable, match="failed"):
            default_reader()(Image.new("RGB", (8, 8)))


def test_ocr_not_installed_is_unavailable_not_restarted(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ocr_server.importlib.util, "find_spec", lambda name: None)
    assert ocr_server.main(["--socket", str(tmp_path / "s")]) == ocr_server.EXIT_UNAVAILABLE
    assert "rapidocr_onnxruntime is not installed" in capsys.readouterr().err


CLIENT = ("import sys\nfrom PIL import Image\nfrom headroom.image.ocr_client import OcrClient\n"
          "print(OcrClient(sys.argv[1]).read_text(Image.new('RGB', (7, 3), 'blue')).text)\n")


def test_one_process_serves_two_worker_processes(in_repo):
    with service("describe") as svc:
        procs = [subprocess.run([sys.executable, "-c", CLIENT, svc.socket_path], check=False, capture_output=True, text=True,
                                timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)}) for _ in range(2)]
        assert [p.stdout.strip() for p in procs] == ["7x3 (0, 0, 255)"] * 2, [p.stderr for p in procs]
        stats = OcrClient(svc.socket_path).stats()
        assert stats["pid"] == svc.pid and stats["served"] == 2
        assert len(set(stats["clients"]) - {os.getpid()}) == 2  # both processes, one service


def test_the_library_reads_in_process_without_a_service(monkeypatch):
    from headroom.image.ocr import read_text

    monkeypatch.delenv(ENV_SOCKET, raising=False)
    assert default_reader() is read_text and service_health() is None


@pytest.mark.slow
def test_the_service_reads_the_same_text_as_the_library(in_repo):
    pytest.importorskip("rapidocr_onnxruntime")
    from headroom.image.ocr import read_text

    images = [error_screenshot(), document(900, 500, lines=8)]
    with OcrService() as svc:
        client = OcrClient(svc.socket_path, timeout_s=120)
        remote = [client.read_text(img) for img in images]
    local = [read_text(img) for img in images]
    assert remote == local  # lines, boxes and confidences, exactly
    assert "connection refused on port 5432" in remote[0].text and len(remote[1].lines) >= 6
