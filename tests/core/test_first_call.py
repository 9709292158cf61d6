"""Every public first call, in a fresh process: it answers (or raises) and never hangs.

A library call's first use opens stores, loads the tokenizer and builds a pipeline; a
lock taken twice on that path once made ``retrieve()`` wait forever in a process that had
not compressed anything yet. Each case runs in its own interpreter, with a timeout, so a
hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Generous: a fresh interpreter imports headroom and tiktoken on a loaded 2-core machine.
# A hang shows as this timeout; the call's own time is printed by the child.
TIMEOUT_S = 60


def _run(code: str, tmp_path: Path, *, env: dict[str, str] | None = None) -> dict:
    script = tmp_path / "first_call.py"
    script.write_text(_PRELUDE + textwrap.dedent(code))
    full_env = {**os.environ, **(env or {})}
    full_env.pop("HEADROOM_CCR_TTL_SECONDS", None)
    try:
        proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=full_env, capture_output=True,
                              text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as e:  # the bug this file guards against
        pytest.fail(f"first call did not return within {TIMEOUT_S} s (hang?): {e.stderr!r}")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


# Every child script starts with ROWS (a 300-row JSON tool output) and BODY (a chat that
# carries it as a tool result).
_PRELUDE = """import json
ROWS = json.dumps([{'order': f'ORD-{80000 + i}', 'ok': i != 231, 'ms': 30 + i % 9} for i in range(300)])
BODY = [{"role": "user", "content": "which order failed?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "orders", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": ROWS}]
"""


def test_retrieve_of_an_unknown_hash_raises_in_a_fresh_process(tmp_path):
    out = _run("""
        import json, time
        from headroom import RetrievalNotFound, retrieve
        t = time.perf_counter()
        try:
            retrieve("0" * 24)
            print(json.dumps({"raised": False}))
        except RetrievalNotFound as e:
            print(json.dumps({"raised": True, "s": time.perf_counter() - t, "msg": str(e)}))
    """, tmp_path)
    assert out["raised"] and "0" * 24 in out["msg"]


def test_retrieve_reads_an_original_another_process_stored_in_sqlite(tmp_path):
    db = tmp_path / "ccr.sqlite3"
    cfg = f"HeadroomConfig(ccr={{'backend': 'sqlite', 'sqlite_path': {str(db)!r}}})"
    first = _run(f"""
        import json
        from headroom import HeadroomConfig, compress
        r = compress(BODY, config={cfg})
        print(json.dumps({{"hashes": r.ccr_hashes, "original": ROWS}}))
    """, tmp_path)
    assert first["hashes"], "the 300-row array must be compressed into the store"
    h = first["hashes"][0]
    # A fresh process that has compressed nothing: by config, then with no argument after the
    # config's store was opened, then from two threads at once.
    second = _run(f"""
        import json, threading
        from headroom import HeadroomConfig, retrieve
        cfg = {cfg}
        by_config = retrieve({h!r}, config=cfg).content
        no_arg = retrieve({h!r}).content
        got = []
        ts = [threading.Thread(target=lambda: got.append(retrieve({h!r}, config=cfg).content)) for _ in range(4)]
        [t.start() for t in ts]; [t.join(20) for t in ts]
        print(json.dumps({{"by_config": by_config, "no_arg": no_arg, "threads": got}}))
    """, tmp_path)
    assert second["by_config"] == first["original"]
    assert second["no_arg"] == first["original"]
    assert second["threads"] == [first["original"]] * 4


def test_compress_then_retrieve_as_a_new_users_first_script(tmp_path):
    out = _run(f"""
        import json
        from headroom import compress, retrieve
        r = compress(BODY)
        print(json.dumps({{"saved": r.tokens_saved, "same": retrieve(r.ccr_hashes[0]).content == ROWS}}))
    """, tmp_path)
    assert out["saved"] > 0 and out["same"]


def test_headroom_client_first_call_in_a_fresh_process(tmp_path):
    pytest.importorskip("openai")
    out = _run(f"""
        import json, httpx, openai
        from headroom import HeadroomClient
        seen = []
        def answer(request):
            seen.append(json.loads(request.content))
            return httpx.Response(200, json={{"id": "x", "object": "chat.completion", "created": 0, "model": "gpt-4o",
                "choices": [{{"index": 0, "finish_reason": "stop",
                              "message": {{"role": "assistant", "content": "ORD-80231"}}}}],
                "usage": {{"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}}})
        raw = openai.OpenAI(api_key="k", base_url="http://upstream.test/v1",
                            http_client=httpx.Client(transport=httpx.MockTransport(answer)))
        client = HeadroomClient(raw)
        resp = client.chat.completions.create(model="gpt-4o", messages=BODY)
        sent = seen[0]["messages"][-1]["content"]
        print(json.dumps({{"answer": resp.choices[0].message.content, "shrunk": len(sent) < len(ROWS)}}))
    """, tmp_path)
    assert out == {"answer": "ORD-80231", "shrunk": True}


def test_integrations_first_calls_in_a_fresh_process(tmp_path):
    pytest.importorskip("langchain_core")
    out = _run(f"""
        import json
        from headroom.integrations.langchain import retrieve_tool
        from headroom.integrations.litellm import HeadroomLiteLLMCallback
        unknown = retrieve_tool().invoke({{"hash": "1" * 24}})
        sent = HeadroomLiteLLMCallback().compress("gpt-4o", BODY)
        print(json.dumps({{"unknown": unknown, "shrunk": len(sent[-1]["content"]) < len(ROWS)}}))
    """, tmp_path)
    assert "unknown or expired" in out["unknown"] and out["shrunk"]
