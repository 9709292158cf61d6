"""Is a fact still there? In view (verbatim in what the model reads, the question itself
excluded), recoverable only (not in view, but inside a CCR original behind a marker the
model can retrieve), or lost.

The question is excluded because a fact the question already states proves nothing about
the compressor; scenario generators also refuse probes whose evidence is in the question.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ccr.markers import find_hashes
from ..ccr.store import CompressionStore
from ..formats.model import Conversation

# Retrieved originals can hold markers themselves (a dropped turn whose tool output was
# already compressed); follow them this deep.
_MAX_DEPTH = 3


def visible_text(conv: Conversation, question: str | None = None) -> str:
    """Every piece of text the model will read, system prompt and tool calls included,
    except blocks that are exactly ``question``."""
    return "\n".join(b.text for _, _, b in conv.blocks() if b.text and b.text != question)


def recoverable_text(text: str, store: CompressionStore | None) -> str:
    """The originals behind every marker in ``text``, following nested markers."""
    if store is None:
        return ""
    seen: set[str] = set()
    out: list[str] = []
    frontier = find_hashes(text)
    for _ in range(_MAX_DEPTH):
        nxt: list[str] = []
        for h in frontier:
            if h in seen:
                continue
            seen.add(h)
            got = store.retrieve(h, record=False)  # measuring must not feed retrieval feedback
            if got is not None:
                out.append(got.content)
                nxt.extend(find_hashes(got.content))
        frontier = nxt
        if not frontier:
            break
    return "\n".join(out)


def with_image_evidence(evidence: tuple[str, ...], conv: Conversation, visible: str, recoverable: str) -> tuple[str, str]:
    """Facts that live in pixels: in view when OCR reads them from the image as sent (see
    :mod:`headroom.eval.pixels`), recoverable when the original image is behind a marker,
    else lost. OCR transcriptions that replaced an image are already in ``visible``."""
    from .pixels import normalize, sent_image_text

    seen = sent_image_text(conv)
    in_view = [e for e in evidence if seen and normalize(e) in seen]
    if in_view:
        visible = "\n".join([visible, *in_view])
    if "data:image/" in recoverable:
        recoverable = "\n".join([recoverable, *evidence])
    return visible, recoverable


@dataclass
class EvidenceCheck:
    kept: int
    recoverable: int
    lost: int
    lost_strings: list[str]

    @property
    def total(self) -> int:
        return self.kept + self.recoverable + self.lost


def status_of(e: str, visible: str, recoverable: str) -> str:
    """"kept" (in view), "recoverable" (only behind a marker) or "lost"."""
    return "kept" if e in visible else "recoverable" if e in recoverable else "lost"


def check_evidence(evidence: tuple[str, ...], visible: str, recoverable: str) -> EvidenceCheck:
    status = [status_of(e, visible, recoverable) for e in evidence]
    return EvidenceCheck(status.count("kept"), status.count("recoverable"), status.count("lost"),
                         [e for e, s in zip(evidence, status) if s == "lost"])


def by_basis(evidence: tuple[str, ...], basis: tuple[str, ...], visible: str,
             recoverable: str) -> dict[str, dict[str, int]]:
    """Per fact basis ("template" | "independent"): how many facts are kept, recoverable, lost."""
    out: dict[str, dict[str, int]] = {}
    for e, b in zip(evidence, basis):
        counts = out.setdefault(b, {"kept": 0, "recoverable": 0, "lost": 0})
        counts[status_of(e, visible, recoverable)] += 1
    return out
