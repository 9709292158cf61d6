"""High-diversity logs: when one-off templates are the information, the budget follows
them (issue 24, class 3).

The log is built from real text: the frequent lines are the corpus' redis run, and the
one-off events are messages from PostgreSQL's own message catalogue (the English msgids
of Debian's ``postgres-15.mo``), each written once at a level the catalogue entry does not
say (a seeded choice), so the test does not know in advance which ones matter.
"""

from __future__ import annotations

import gettext
import random
from pathlib import Path

import pytest

from headroom.compressors.base import CompressInput
from headroom.compressors.logs import LogCompressor
from headroom.config import HeadroomConfig
from headroom.eval.corpus import load_cases
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

CATALOGUE = Path("/usr/share/locale/de/LC_MESSAGES/postgres-15.mo")
pytestmark = pytest.mark.skipif(not CATALOGUE.exists(), reason="Debian's postgresql-15 message catalogue")


def _catalogue_messages(k: int, seed: int) -> list[str]:
    with CATALOGUE.open("rb") as fh:
        ids = sorted(m for m in gettext.GNUTranslations(fh)._catalog if isinstance(m, str) and 25 <= len(m) <= 90
                     and "\n" not in m and not any(ch.isdigit() for ch in m))
    return random.Random(seed).sample(ids, k)


def _diverse_log(one_offs: int, seed: int = 3) -> tuple[str, list[tuple[str, str]]]:
    rnd = random.Random(seed)
    frequent = next(c for c in load_cases(sources=["redis_server"]) if c.id.endswith("long_text_one_off"))
    base = frequent.content.splitlines()
    events = [(rnd.choice(["LOG", "LOG", "LOG", "WARNING", "ERROR"]), m) for m in _catalogue_messages(one_offs, seed)]
    out = list(base)
    for k, (level, msg) in enumerate(events):
        pos = (k + 1) * len(base) // (len(events) + 1)
        out.insert(pos + k, f"2026-11-23 17:{k % 60:02d}:{k * 7 % 60:02d}.{k:03d} UTC [{3000 + k}] {level}:  {msg}")
    return "\n".join(out), events


def _compress(text: str, query: str):
    return LogCompressor().compress(CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"),
                                                  query=query, anchors=extract_anchors(query)))


def test_hundreds_of_one_offs_all_stay_while_that_still_saves() -> None:
    text, events = _diverse_log(600)
    res = _compress(text, "What unusual things did the servers report?")
    missing = [m for _, m in events if m not in res.text]
    assert missing == []
    assert len(res.text) < 0.35 * len(text)  # still a real saving


def test_when_one_offs_cannot_all_fit_severity_comes_first_and_the_marker_counts_the_rest() -> None:
    text, events = _diverse_log(1400, seed=5)
    res = _compress(text, "List the odd events in this log.")
    kept = {m for _, m in events if m in res.text}
    severe = [m for lvl, m in events if lvl in ("ERROR", "WARNING")]
    assert len(kept) < len(events)
    assert all(m in res.text for m in severe)  # errors are kept by kind; warnings by rank
    assert "left out, ranked by severity, rarity, novelty" in res.summary
    left = int(res.summary.split(" left out")[0].rsplit("(", 1)[1])
    assert left > 0
