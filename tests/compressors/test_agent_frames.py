"""Agent frames around tool output: taken off by shape, detection on the body, put back
verbatim (headroom/compressors/agent_frames.py and its one hook in the router)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom import compress
from headroom.compressors.agent_frames import split

HASH = re.compile(r"hash=([0-9a-f]{24})")
RARE = "ERROR checkpoint writer lost its lease on volume v-3; 812 pages not flushed"


def _log(n: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        ts = f"2026-03-0{1 + i // 1000}T08:{(i // 60) % 60:02d}:{i % 60:02d}.{rng.randrange(1000):03d}Z"
        if i == n * 3 // 5:
            lines.append(f"{ts} {RARE}")
        elif rng.random() < 0.6:
            lines.append(f"{ts} INFO  worker-{rng.randrange(8)} job {rng.randrange(10**6)} done in {rng.randrange(900)} ms")
        else:
            lines.append(f"{ts} DEBUG queue depth={rng.randrange(50)} inflight={rng.randrange(9)}")
    return "\n".join(lines) + "\n"


def _exec_frame(body: str, notice: bool = False) -> str:
    head = ("Chunk ID: 4be1c0\nWall time: 0.0153 seconds\nProcess exited with code 0\n"
            "Original token count: 18211\nOutput:\n")
    if notice:
        head += "Warning: truncated output (original token count: 18211)\nTotal output lines: 402\n\n"
    return head + body


def _saved_frame(body: str) -> str:
    return ("<persisted-output>\nOutput too large (91.4KB). Full output saved to: "
            "/home/u/.claude/projects/p/3f1e/tool-results/b8x2k.txt\n\nPreview (first 2KB):\n"
            + body + "\n...\n</persisted-output>")


def _through_pipeline(fresh_pipeline, text: str, query: str = "what went wrong?"):
    messages = [
        {"role": "user", "content": query},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                           "input": {"command": "cat app.log"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": text}]},
    ]
    pipeline = fresh_pipeline()
    result = compress(messages, "claude-sonnet-4-5", format="anthropic", pipeline=pipeline)
    out = result.body["messages"][2]["content"][0]["content"]
    decision = next(d for d in result.decisions if d.transform == "content_router")
    return out, decision, pipeline


# ----------------------------------------------------------------------------- shape

_label = st.from_regex(r"[A-Z][a-z]{2,9}( [a-z]{2,8}){0,2}", fullmatch=True)
_value = st.from_regex(r"[a-z0-9][a-z0-9 .]{0,20}[a-z0-9]", fullmatch=True)
_body_line = st.from_regex(r"[a-z0-9\[][a-z0-9 =:.\]/]{0,60}", fullmatch=True)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_label, _value), min_size=2, max_size=5), _label,
       st.lists(_body_line, min_size=1, max_size=30), st.booleans())
def test_a_labelled_header_comes_off_whole_and_goes_back_byte_for_byte(pairs, label, body_lines, newline):
    head = "".join(f"{k}: {v}\n" for k, v in pairs) + f"{label}:\n"
    body = "\n".join(body_lines) + ("\n" if newline else "")
    frame = split(head + body)
    if not body.strip():
        assert frame is None
        return
    assert frame is not None
    assert frame.head == head and frame.body == body and frame.tail == ""
    assert frame.wrap(frame.body) == head + body


@settings(max_examples=100, deadline=None)
@given(st.from_regex(r"[a-z]{1,8}[-_][a-z]{1,8}", fullmatch=True), st.lists(_body_line, min_size=1, max_size=20))
def test_an_element_frame_keeps_its_open_and_close_lines_and_its_notice(tag, body_lines):
    body = "\n".join(body_lines)
    if not body.strip():
        return
    text = f"<{tag}>\nSaved to: /tmp/out/{tag}.txt\n\nPreview:\n{body}\n</{tag}>\n"
    frame = split(text)
    assert frame is not None
    assert frame.head == f"<{tag}>\nSaved to: /tmp/out/{tag}.txt\n\nPreview:\n"
    assert frame.tail == f"\n</{tag}>\n"
    assert frame.wrap(frame.body) == text


def test_an_element_without_a_label_line_keeps_its_notice_paragraph():
    text = ("<truncated-output>\nOutput too large (812 KB). It could not be saved, so only the first 40 KB are "
            "shown; the rest was dropped.\n\n" + _log(60) + "\n</truncated-output>")
    frame = split(text)
    assert frame is not None
    assert frame.head.startswith("<truncated-output>\nOutput too large (812 KB).") and frame.head.endswith("\n\n")
    assert frame.body == _log(60) and frame.tail == "\n</truncated-output>"


def test_a_documents_own_element_is_not_a_frame():
    assert split("<html>\n<body>\nNote:\n<p>hi</p>\n</body>\n</html>\n") is None
    assert split("<project>\nVersion: 1\nModules:\n<module>a</module>\n</project>") is None


def test_texts_without_a_frame_have_none():
    assert split(_log(50)) is None
    assert split(json.dumps([{"a": 1}, {"a": 2}])) is None
    assert split("class Config:\n    name: str\n") is None
    # A YAML mapping whose keys look like a header: the nested lines say it is one document.
    assert split("Name: api\nReplicas: 3\nPorts:\n- 80\n- 443\n") is None
    assert split("Name: api\nReplicas: 3\nLimits:\n  cpu: 2\n") is None
    # One label line is not a header; an element that does not close is not a frame.
    assert split("Status: ok\nOutput:\nfoo\n") is None
    assert split("<persisted-output>\nSaved to: /x\n\nPreview:\nbody\n") is None
    assert split("Chunk ID: 1\nWall time: 2 s\nOutput:\n") is None  # a frame with no body


def test_a_truncation_notice_after_the_label_stays_with_the_header():
    frame = split(_exec_frame("a line\nanother line\n", notice=True))
    assert frame is not None
    assert frame.head.endswith("Total output lines: 402\n\n")
    assert frame.body == "a line\nanother line\n"


# ----------------------------------------------------------------------------- router


def test_an_exec_header_stays_on_top_and_the_log_under_it_is_compressed_as_a_log(fresh_pipeline):
    text = _exec_frame(_log(400), notice=True)
    out, decision, pipeline = _through_pipeline(fresh_pipeline, text)
    assert decision.action == "compressed", decision.reason
    assert decision.content_type == "log"
    head = split(text).head
    assert out.startswith(head)  # verbatim, first, once
    assert out.count("Chunk ID: ") == 1
    assert RARE in out
    found = HASH.search(out)
    assert found and pipeline.store.retrieve(found.group(1)).content == text
    assert len(out) < len(text) / 3


def test_a_saved_output_preview_keeps_its_path_line_and_closing_line(fresh_pipeline):
    text = _saved_frame(_log(300).rstrip("\n"))
    out, decision, pipeline = _through_pipeline(fresh_pipeline, text)
    assert decision.action == "compressed", decision.reason
    assert decision.content_type == "log"
    lines = out.split("\n")
    assert lines[0] == "<persisted-output>"
    assert "Full output saved to: /home/u/.claude/projects/p/3f1e/tool-results/b8x2k.txt" in lines[1]
    assert "</persisted-output>" in lines
    assert RARE in out
    found = HASH.search(out)
    assert found and pipeline.store.retrieve(found.group(1)).content == text


def test_a_numbered_listing_under_an_exec_header_is_read_as_code(fresh_pipeline):
    import httpx._client as source  # a real installed module (site-packages), read as a listing

    code = Path(source.__file__).read_text(encoding="utf-8").split("\n")
    listing = "\n".join(f"{i + 1:6d}\t{line}" for i, line in enumerate(code))
    text = _exec_frame(listing)
    out, decision, _ = _through_pipeline(fresh_pipeline, text, "what does _redirect_headers do?")
    assert decision.content_type == "code", decision
    assert out.startswith(split(text).head)
    assert "def _redirect_headers" in out


def test_json_under_an_exec_header_is_crushed_as_json_and_still_parses(fresh_pipeline):
    rng = random.Random(5)
    rows = [{"id": i, "status": "ok" if i != 137 else "failed", "latency_ms": rng.randrange(5, 90),
             "region": rng.choice(["eu-west", "us-east"])} for i in range(300)]
    body = json.dumps(rows, indent=1)
    text = _exec_frame(body + "\n")
    out, decision, _ = _through_pipeline(fresh_pipeline, text, "which request failed?")
    assert decision.action == "compressed", decision.reason
    assert decision.content_type == "json_array"
    head = split(text).head
    assert out.startswith(head)
    rest = out[len(head):]
    marker = rest.rfind("\n[")
    crushed = json.loads(rest[:marker] if marker > 0 and HASH.search(rest[marker:]) else rest)
    assert any(r.get("status") == "failed" for r in crushed if isinstance(r, dict))
