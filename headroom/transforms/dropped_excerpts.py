"""Lines of dropped messages that the current question names, kept in view under the marker.

RollingWindow and IntelligentContext move old turns into CCR to fit the context window.
A model told only "12 older units dropped" does not know that the line it is being asked
about was among them, and a model that does not know a fact exists will not ask for it
back. So when the question names something selective (an identifier, a quoted string, a
path, a number: :mod:`headroom.query.anchors`) and a dropped line holds it, that line
stays in view beside the drop marker, verbatim, within a small token allowance.

A term found on more than ``MAX_HITS_PER_TERM`` dropped lines names nothing in
particular (a file path every step mentions) and is ignored; lines are ranked by how rare
their terms are, so the one line holding a rare identifier wins over lines holding a
common one.
"""

from __future__ import annotations

from ..formats import Message
from ..query.anchors import Anchors
from ..tokens import TokenCounter

MAX_LINES = 6
MAX_LINE_CHARS = 240
MAX_HITS_PER_TERM = 8
# Excerpts may cost at most this share of the tokens the drop frees, and this many tokens.
SHARE_OF_FREED = 0.1
MAX_TOKENS = 300
HEADER = "Dropped lines naming the question's terms (verbatim):"


def _line_around(text: str, pos: int, length: int) -> tuple[int, str]:
    """(start offset, the line holding text[pos:pos+length]), cut to MAX_LINE_CHARS around it."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    end = len(text) if end < 0 else end
    line = text[start:end]
    if len(line) > MAX_LINE_CHARS:
        # Centre the window on the hit; mark what was cut.
        a = max(start, pos - (MAX_LINE_CHARS - length) // 2)
        b = min(end, a + MAX_LINE_CHARS)
        a = max(start, b - MAX_LINE_CHARS)
        line = ("…" if a > start else "") + text[a:b] + ("…" if b < end else "")
    return start, line.strip()


def dropped_excerpts(removed: list[Message], anchors: Anchors, counter: TokenCounter, freed_tokens: int) -> str:
    """The excerpt block for the drop marker ("" when the question names nothing dropped)."""
    if not anchors or not removed:
        return ""
    allowance = min(MAX_TOKENS, int(freed_tokens * SHARE_OF_FREED))
    if allowance <= 0:
        return ""
    texts: list[tuple[str, str, str]] = []  # (label, text, lowered text)
    for m in removed:
        for b in m.blocks:
            if b.text and not b.added:  # an earlier marker is no evidence of anything
                texts.append((b.tool_name or m.role.value, b.text, b.text.lower()))
    # One C-level count per term and text first: common terms are dropped before any line
    # is located, so a term on every line of a megabyte output costs one pass.
    selective = [t for t in sorted(anchors.terms)
                 if 0 < sum(low.count(t) for _, _, low in texts) <= MAX_HITS_PER_TERM]
    if not selective:
        return ""
    weight = {t: 1 / sum(low.count(t) for _, _, low in texts) for t in selective}
    found: dict[tuple[int, int], tuple[str, str, set[str]]] = {}  # (text, line start) -> (label, line, terms)
    for k, (label, text, low) in enumerate(texts):
        for t in selective:
            pos = low.find(t)
            while pos >= 0:
                start, line = _line_around(text, pos, len(t))
                entry = found.setdefault((k, start), (label, line, set()))
                entry[2].add(t)
                pos = low.find(t, pos + len(t))
    ranked = sorted(found.items(), key=lambda kv: (-sum(weight[t] for t in kv[1][2]), kv[0]))
    chosen: list[tuple[tuple[int, int], str]] = []
    used = counter.count(HEADER)
    for key, (label, line, _) in ranked:
        if len(chosen) >= MAX_LINES or not line:
            break
        rendered = f"  [{label}] {line}"
        cost = counter.count(rendered) + 1
        if used + cost > allowance:
            continue
        chosen.append((key, rendered))
        used += cost
    if not chosen:
        return ""
    chosen.sort()  # conversation order
    return "\n".join([HEADER, *(r for _, r in chosen)])
