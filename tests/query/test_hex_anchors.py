"""Hex ids that open with a digit are anchors (a short commit hash, a checksum's first bytes).

Before, an anchor had to open with a letter (identifiers) or be all digits (numbers), so six
of ten short hashes named nothing a compressor had to keep.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

import headroom
from headroom import Pipeline
from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors


@given(st.text(alphabet="0123456789abcdef", min_size=7, max_size=12).filter(
    lambda h: any(c.isdigit() for c in h) and any(c.isalpha() for c in h)))
def test_a_hex_id_is_an_anchor_whatever_it_opens_with(h):
    assert h in extract_anchors(f"What did commit {h} change?").terms


def test_words_and_plain_numbers_are_not_hex_ids():
    terms = extract_anchors("Which decade added the feed? faded 2024").terms
    assert "decade" not in terms and "faded" not in terms and "added" not in terms


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="needs sha256sum")
def test_a_checksum_asked_by_its_first_bytes_keeps_its_file(tmp_path):
    rng = random.Random(11)
    for i in range(160):
        (tmp_path / f"part_{i:03d}.bin").write_bytes(rng.randbytes(64))
    out = subprocess.run("sha256sum *.bin", shell=True, cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout
    rows = [ln.split() for ln in out.splitlines()]
    digit_first = [r for r in rows if r[0][0].isdigit() and any(c.isalpha() for c in r[0][:8])]
    digest, name = digit_first[len(digit_first) // 2]
    question = f"Which file's checksum starts with {digest[:8]}?"
    msgs = [{"role": "user", "content": question},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "bash", "arguments": json.dumps({"command": "sha256sum *.bin"})}}]},
            {"role": "tool", "tool_call_id": "c1", "content": out}]
    kept = headroom.compress(msgs, model="gpt-4o", pipeline=Pipeline(HeadroomConfig(), store=CompressionStore()))
    text = kept.messages[-1]["content"]
    assert len(text) < len(out) // 2 and name in text
