"""`headroom inspect` and `headroom savings` over a real proxy run (loopback fake provider).

The proxy keeps its metrics rows and CCR originals in SQLite files; the readers open
them read-only, in this process and in a second one ("another terminal") while the
proxy still serves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from test_e2e_sdk import BIG, chat_messages, oa

from headroom.ccr.backends import SQLiteBackend
from headroom.ccr.scope import credential_tags
from headroom.ccr.store import CompressionStore
from headroom.compressors.detect import ContentType
from headroom.config import HeadroomConfig
from headroom.metrics import MetricsStore
from headroom.pipeline import Pipeline
from headroom.report.inspect import STORED, inspect_requests
from headroom.report.savings import savings
from headroom.transforms.router import ContentRouter
from tests.proxy.conftest import HeadLines, wait_for

KEY_A = "sk-test-tenant-a"
KEY_B = "sk-test-tenant-b"
ROOT = Path(__file__).resolve().parents[2]


def sqlite_pipeline(path: Path) -> Pipeline:
    store = CompressionStore(SQLiteBackend(path))
    return Pipeline(HeadroomConfig(), store=store,
                    transforms=[ContentRouter(compressors={ct: HeadLines() for ct in ContentType})])


@pytest.fixture
def proxy(start_proxy, tmp_path):
    ccr = tmp_path / "ccr.sqlite3"
    url, _ = start_proxy(pipeline=sqlite_pipeline(ccr))
    return url, tmp_path / "metrics.db", ccr


def post(url: str, key: str, question: str, *, agent: str = "claude-cli/2.1.328 (external, cli)",
         script: str | None = None) -> httpx.Response:
    headers = {"authorization": f"Bearer {key}", "user-agent": agent}
    if script:
        headers["x-fake-script"] = script
    r = httpx.post(f"{url}/v1/chat/completions", json={"model": "gpt-4o", "messages": chat_messages(question)},
                   headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    return r


def rows_in(db: Path, n: int) -> None:
    def enough() -> bool:
        if not db.exists():
            return False
        with MetricsStore(db, read_only=True) as m:
            return m.count() >= n
    wait_for(enough)


def test_inspect_shows_the_changed_block_its_diff_marker_and_retrieval(proxy):
    url, db, ccr = proxy
    post(url, KEY_A, "what failed?", script="retrieve")
    rows_in(db, 1)
    with MetricsStore(db, read_only=True) as m:
        backend = SQLiteBackend(ccr, read_only=True)
        [view] = inspect_requests(m, backend, last=5, tenants=credential_tags(KEY_A))
        backend.close()
    assert view.agent == "claude-cli" and view.model == "gpt-4o"
    assert view.tokens_saved > 0 and view.tokens_after < view.tokens_before
    [block] = view.blocks
    assert block.status == STORED and block.original == BIG and block.role == "tool"
    assert block.tokens_after < block.tokens_before
    assert block.hash and block.markers and f"hash={block.hash}" in block.markers[0]
    diff = block.diff()
    assert diff.startswith("--- messages[2] original") and "\n-" in diff
    # Every line the diff marks removed is an original line, every added one a line sent.
    assert all(line[1:] in BIG.splitlines() for line in diff.splitlines()[2:] if line.startswith("-"))
    assert all(line[1:] in block.compressed.splitlines() for line in diff.splitlines()[2:] if line.startswith("+"))
    assert view.retrievals_asked == 1 and view.retrievals_answered == 1
    assert view.retrieved == [{"hash": block.hash, "found": True}]
    assert block.times_retrieved == 1


def test_inspect_is_scoped_to_the_callers_tenant(proxy):
    url, db, ccr = proxy
    post(url, KEY_A, "question of a")
    post(url, KEY_B, "question of b")
    rows_in(db, 2)
    with MetricsStore(db, read_only=True) as m:
        backend = SQLiteBackend(ccr, read_only=True)
        a = inspect_requests(m, backend, last=10, tenants=credential_tags(KEY_A))
        b = inspect_requests(m, backend, last=10, tenants=credential_tags(KEY_B))
        nobody = inspect_requests(m, backend, last=10, tenants=frozenset())
        admin = inspect_requests(m, backend, last=10, tenants=None)
        backend.close()
    assert len(a) == 1 and len(b) == 1 and a[0].request_id != b[0].request_id
    assert nobody == [] and len(admin) == 2
    # One CCR entry holds the output both sent (tagged by A, who stored it first); B's
    # own request carried it, so B reads it back in its row as retrieval would let it.
    assert a[0].blocks[0].status == b[0].blocks[0].status == STORED
    assert a[0].blocks[0].original == b[0].blocks[0].original == BIG


def test_a_second_process_reads_while_the_proxy_runs(proxy):
    url, db, ccr = proxy
    post(url, KEY_A, "first")
    rows_in(db, 1)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "",
           "GEMINI_API_KEY": "", "GOOGLE_API_KEY": ""}
    cmd = [sys.executable, "-m", "headroom", "inspect", "--json", "--last", "3", "--metrics-db", str(db),
           "--ccr-path", str(ccr), "--api-key", KEY_A]
    out = subprocess.run(cmd, check=False, capture_output=True, text=True, env=env, timeout=120, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    [req] = data["requests"]
    assert set(req) >= {"request_id", "timestamp", "model", "agent", "tokens_before", "tokens_after", "tokens_saved",
                        "retrievals_asked", "retrievals_answered", "blocks"}
    [block] = req["blocks"]
    assert block["status"] == STORED and block["diff"] and "original" not in block  # texts only with --full
    # The proxy still serves and still writes after the reader came and went.
    post(url, KEY_A, "second")
    rows_in(db, 2)
    out = subprocess.run([sys.executable, "-m", "headroom", "savings", "--json", "--metrics-db", str(db)],
                         check=False, capture_output=True, text=True, env=env, timeout=120, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["totals"]["requests"] == 2 and summary["totals"]["tokens_saved"] > 0
    assert list(summary["by_agent"]) == ["claude-cli"] and list(summary["by_model"]) == ["gpt-4o"]
    assert summary["totals"]["usd_saved"] > 0  # gpt-4o is priced; no cache reads: full input price


def test_savings_by_agent_from_the_user_agent(proxy):
    url, db, _ = proxy
    post(url, KEY_A, "one", agent="codex_exec/0.169.0 (Linux 6.1; x86_64) xterm-256color")
    oa(url).chat.completions.create(model="gpt-4o", messages=chat_messages("two"))
    rows_in(db, 2)
    with MetricsStore(db, read_only=True) as m:
        s = savings(m, days=1)
    assert set(s["by_agent"]) == {"codex_exec", "openai-python"}
    assert all(b["requests"] == 1 for b in s["by_agent"].values())


def test_repeat_savings_and_user_turn_observations_are_inspectable(proxy):
    """A ReAct-style agent sends each observation as a user message: the earlier one is
    compressed, shown by inspect as a user block, and in the next turn its savings count
    as a repeat (the cache would have made those tokens cheap)."""
    url, db, ccr = proxy
    task = {"role": "user", "content": "Find out which batch failed."}
    step = [{"role": "assistant", "content": "Thought: read the log.\nAction: cat worker.log"},
            {"role": "user", "content": "Observation:\n" + BIG}]
    turn1 = [task, *step, {"role": "assistant", "content": "Thought: and the other one.\nAction: cat b.log"},
             {"role": "user", "content": "Observation:\nnothing new"}]
    turn2 = [*turn1, {"role": "assistant", "content": "Thought: done?\nAction: ls"},
             {"role": "user", "content": "Observation:\nfile.txt"}]
    for messages in (turn1, turn2):
        r = httpx.post(f"{url}/v1/chat/completions", json={"model": "gpt-4o", "messages": messages},
                       headers={"authorization": f"Bearer {KEY_A}"}, timeout=30)
        assert r.status_code == 200, r.text
    rows_in(db, 2)
    with MetricsStore(db, read_only=True) as m:
        backend = SQLiteBackend(ccr, read_only=True)
        first, second = inspect_requests(m, backend, last=2, tenants=credential_tags(KEY_A))
        rows = m.query()
        backend.close()
    [block] = first.blocks
    assert block.role == "user" and block.message == 2 and block.status == STORED
    assert block.original == BIG and not block.repeat
    assert second.blocks[0].repeat and second.blocks[0].hash == block.hash
    assert rows[0].repeat_saved == 0 and rows[1].repeat_saved == rows[1].tokens_saved > 0
