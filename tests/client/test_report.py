"""The HTML report: content checks, the CLI, and a render in headless Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from headroom.cli import main
from headroom.metrics import MetricsStore, RequestMetrics
from headroom.report import render_report, write_report

DAY = 86400
T0 = 1_780_000_000.0  # a fixed time, so the report is deterministic


def _rows():
    rows = []
    for day in range(5):
        for k in range(3):
            rows.append(RequestMetrics(
                timestamp=T0 + day * DAY + k * 60, model="gpt-4o" if k else "claude-sonnet-4-5", mode="optimize",
                tokens_before=10_000, tokens_after=2_500, tokens_saved=7_500,
                transforms_applied=["content_router:smart_crusher"],
                transform_savings={"content_router:smart_crusher": 7_000, "tool_args": 500},
                tool_savings={"search_logs": 6_000, "read_file": 1_500}, tool_names=["search_logs", "read_file"],
                ccr_hashes=["a" * 24], retrievals=1 if (day, k) == (0, 0) else 0, cost_saved_usd=0.01875))
    rows.append(RequestMetrics(timestamp=T0 + 5 * DAY, model="gpt-4o", mode="audit", tokens_before=4_000,
                               tokens_after=1_000, tokens_saved=3_000))
    return rows


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "headroom.db"
    with MetricsStore(path) as s:
        s.record_many(_rows())
    return path


def test_report_shows_totals_breakdowns_and_is_self_contained():
    html = render_report(_rows(), generated_at=T0)
    assert "112,500" in html  # 15 optimize requests x 7,500 saved
    assert "154,000" in html  # tokens before, audit row included
    assert "3,000" in html  # potential savings from the audit row
    for name in ("gpt-4o", "claude-sonnet-4-5", "content_router:smart_crusher", "search_logs", "read_file"):
        assert name in html
    assert "90,000" in html  # search_logs: 15 x 6,000
    assert "20.0%" in html  # retrieval rate of claude: 1 of 5 requests with markers
    assert "<svg" in html and "http://" not in html and "https://" not in html and "<script" not in html


def test_empty_report_renders():
    html = render_report([])
    assert "No data in this period." in html and "<svg" not in html.split("timeline")[1][:80]


def test_cli_report_with_filters(db, tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", "--db", str(db), "--out", str(out)]) == 0
    assert "16 requests, 112,500 tokens saved" in capsys.readouterr().out
    assert "112,500" in out.read_text()
    assert main(["report", "--db", str(db), "--out", str(out), "--model", "claude-sonnet-4-5",
                 "--since", "2026-05-28"]) == 0
    printed = capsys.readouterr().out
    assert "requests" in printed and "claude-sonnet-4-5" in out.read_text() and "gpt-4o" not in out.read_text()
    assert main(["report", "--db", str(tmp_path / "missing.db"), "--out", str(out)]) == 2


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def test_report_renders_in_headless_chromium(db, tmp_path):
    exe = _chromium()
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is required in CI (apt-get install -y chromium)")
        pytest.skip("chromium is not installed here (apt-get install -y chromium); CI runs this test")
    out = tmp_path / "report.html"
    write_report(db, out)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([exe, *flags, "--dump-dom", out.as_uri()], capture_output=True, text=True, timeout=90, check=False)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "112,500" in dom.stdout and "search_logs" in dom.stdout and "<svg" in dom.stdout
    shot = tmp_path / "shot.png"
    r = subprocess.run([exe, *flags, f"--screenshot={shot}", "--window-size=1000,1400", out.as_uri()],
                       capture_output=True, text=True, timeout=90, check=False)
    assert r.returncode == 0 and shot.exists() and shot.stat().st_size > 10_000, r.stderr[-2000:]
    assert Path(shot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_reads_jsonl_metrics(tmp_path, capsys):
    path = tmp_path / "metrics.jsonl"
    MetricsStore(path).record_many(_rows())
    out = tmp_path / "r.html"
    assert main(["report", "--db", str(path), "--out", str(out), "--mode", "audit"]) == 0
    assert "1 requests, 0 tokens saved" in capsys.readouterr().out
    assert "3,000" in out.read_text()
