"""Planning parts detects a block once per opening word; heading marks are no opening."""

from __future__ import annotations

from headroom.compressors import sections
from headroom.compressors.detect import ContentType


def _log(tag: str, n: int = 30) -> str:
    return "\n".join([f"# {tag}"] + [f"2026-11-29T03:{i:02d}:00Z INFO {tag.lower()} step {i} done" for i in range(n)])


def _diff(tag: str, n: int = 20) -> str:
    return "\n".join([f"# {tag}", "diff --git a/x.py b/x.py", "--- a/x.py", "+++ b/x.py", "@@ -1,20 +1,20 @@"] +
                     [f"-old line {i}\n+new line {i}" for i in range(n)])


def test_blocks_under_heading_marks_are_each_detected():
    plan = sections.plan(_log("Server") + "\n\n" + _diff("Changes"))
    assert plan is not None
    kinds = [p.detected.type for p in plan if p.detected is not None]
    assert kinds == [ContentType.LOG, ContentType.DIFF]


def test_blocks_that_open_alike_are_detected_once(monkeypatch):
    calls: list[str] = []
    real = sections.detect

    def counting(text):
        calls.append(text[:20])
        return real(text)

    monkeypatch.setattr(sections, "detect", counting)
    blocks = ["\n".join([f"Certificate: {k}"] + [f"    Serial Number: {k * 97 + i:x} field {i}" for i in range(25)])
              for k in range(12)]
    sections.plan("\n\n".join(blocks))
    assert len(calls) == 1


def test_opening_words_fold_numbers_but_not_heading_marks():
    assert sections._opening("0000000000001120 <_init>:\n", 0) == sections._opening("00000000000011a0 <frame>:", 0)
    assert sections._opening("# Server\n", 0) == ""
    assert sections._opening("[1, 2]\n", 0) == ""
