"""Scenario families and the suites built from them.

A family is a function ``(size, seed) -> Scenario``. A suite names, per family, the sizes
and seeds to generate; the same suite always yields the same conversations.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable

from .base import Probe, Scenario, ToolCall, Turn
from .session import agent_session
from .structured import api_listing, db_rows, json_logs, metrics
from .textual import build_output, code_search, documents, git_diff, plain_text, text_logs

Family = Callable[[int, int], Scenario]

FAMILIES: dict[str, Family] = {
    "metrics": metrics,
    "json_logs": json_logs,
    "db_rows": db_rows,
    "api_listing": api_listing,
    "build_output": build_output,
    "text_logs": text_logs,
    "code_search": code_search,
    "git_diff": git_diff,
    "documents": documents,
    "plain_text": plain_text,
    "agent_session": agent_session,
}

# Per family: the sizes each suite generates (items, lines, hunks, paragraphs or turns).
_SIZES: dict[str, dict[str, tuple[int, ...]]] = {
    "smoke": {"default": (60,), "git_diff": (20,), "documents": (40,), "plain_text": (30,), "agent_session": (8,),
              "images": (800,)},
    "standard": {"default": (100, 1000), "git_diff": (30, 150), "documents": (60, 300), "plain_text": (30, 150),
                 "agent_session": (12, 30), "images": (800, 1600)},
    "full": {"default": (100, 1000, 5000), "git_diff": (30, 150, 600), "documents": (60, 300, 1200),
             "plain_text": (30, 150, 600), "agent_session": (12, 30, 60), "images": (800, 1600, 2400)},
}
_SEEDS = {"smoke": (1,), "standard": (1, 2), "full": (1, 2, 3)}
SUITES = tuple(_SIZES)


def image_family_available() -> bool:
    """Images are evaluated when the image transform, Pillow and OCR (which judges the
    pixels sent) are installed: the ``image`` extra."""
    return all(importlib.util.find_spec(m) is not None
               for m in ("headroom.image.transform", "PIL", "rapidocr_onnxruntime"))


if image_family_available():
    from .images import images

    FAMILIES["images"] = images


# Real tool outputs (headroom.eval.corpus): not generated, so not sized or seeded. The
# smoke suite takes this many cases per source; the larger suites take every case.
CORPUS_FAMILY = "real_corpus"
_CORPUS_SMOKE_PER_SOURCE = 1


def family_names() -> list[str]:
    """Every family a suite can include: the generators, then the real-output corpus."""
    return [*FAMILIES, CORPUS_FAMILY]


# Held-out sources are measured once, at the end (issue 33; headroom/eval/corpus/README.md):
# a suite leaves them out unless this variable is "1", so no ordinary eval run looks at them.
HELDOUT_ENV = "HEADROOM_EVAL_HELDOUT"


def corpus_suite(name: str) -> list[Scenario]:
    from ..corpus import corpus_scenarios

    cases = corpus_scenarios(None if os.environ.get(HELDOUT_ENV) == "1" else "dev")
    if name != "smoke":
        return cases
    taken: dict[str, int] = {}
    out = []
    for s in cases:
        n = taken.get(s.meta["source"], 0)
        if n < _CORPUS_SMOKE_PER_SOURCE:
            out.append(s)
            taken[s.meta["source"]] = n + 1
    return out


def build_suite(name: str = "standard", families: list[str] | None = None, seeds: tuple[int, ...] | None = None) -> list[Scenario]:
    if name not in _SIZES:
        raise ValueError(f"unknown suite {name!r}; expected one of {', '.join(SUITES)}")
    chosen = families or family_names()
    unknown = [f for f in chosen if f not in family_names()]
    if unknown:
        raise ValueError(f"unknown scenario families {unknown}; expected some of {', '.join(family_names())}")
    sizes = _SIZES[name]
    out = []
    for fam in chosen:
        if fam == CORPUS_FAMILY:
            out.extend(corpus_suite(name))
            continue
        for size in sizes.get(fam, sizes["default"]):
            for seed in seeds or _SEEDS[name]:
                scenario = FAMILIES[fam](size, seed)
                scenario.check_evidence_placement()
                out.append(scenario)
    return out


__all__ = ["CORPUS_FAMILY", "FAMILIES", "HELDOUT_ENV", "SUITES", "corpus_suite", "family_names", "Family", "Probe", "Scenario", "ToolCall", "Turn", "build_suite",
           "image_family_available"]
