"""Facts about a real tool output, computed without headroom's compressors.

This module must stay independent of ``headroom.transforms`` and ``headroom.compressors``
(a test inspects its imports): if the facts came from the same template logic the
compressors use, a compressor could never be caught missing one.

The template pass is deliberately plain: mask the variable parts of a message (timestamps,
IPs, UUIDs, hex ids, paths, numbers) and group messages by what is left. A template seen
once is a *one-off*. A repeated template's fact is its longest constant stretch, which any
exemplar of the template shows, so a compressor that keeps one exemplar passes.

A fact's ``text`` is checked verbatim in the tool output and in its JSON form, so it never
contains a character that ``json.dumps`` escapes (quote, backslash, control or non-ASCII
characters): :func:`json_safe` cuts a value down to its longest safe stretch.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Order matters: longer shapes first, so a timestamp is not masked as three numbers.
_MASKS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(rx)) for name, rx in (
    ("<TS>", r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"),
    ("<TS>", r"\b\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?"),
    ("<TS>", r"\b\d{2}:\d{2}:\d{2}(?:\.\d+)?"),
    ("<UUID>", r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
    ("<IP>", r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"),
    ("<HEX>", r"\b(?:0x)?(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{7,}\b"),
    ("<PATH>", r"(?:[A-Za-z]:)?(?:/[\w.@+\-]+){2,}/?"),
    ("<NUM>", r"[-+]?\d+(?:\.\d+)?"),
))
_UNSAFE = re.compile(r'["\\\x00-\x1f\x7f-\U0010ffff]')
MIN_FACT_CHARS = 10


def template(message: str) -> str:
    """The message with its variable parts masked (the grouping key)."""
    for name, rx in _MASKS:
        message = rx.sub(name, message)
    return message


def json_safe(text: str, min_chars: int = MIN_FACT_CHARS) -> str | None:
    """The longest stretch of ``text`` that JSON encodes unchanged, stripped; None when
    shorter than ``min_chars`` (too short to be a specific fact)."""
    best = max((p.strip() for p in _UNSAFE.split(text)), key=len, default="")
    return best if len(best) >= min_chars else None


def constant_stretch(message: str) -> str | None:
    """The longest run of whitespace-separated tokens of ``message`` that masking leaves
    unchanged: the part every message of the same template shares verbatim."""
    best, run = "", []
    for m in re.finditer(r"\S+", message):
        tok = m.group()
        if template(tok) == tok and not _UNSAFE.search(tok):
            run.append(m)
            cand = message[run[0].start(): run[-1].end()]
            if len(cand) > len(best):
                best = cand
        else:
            run = []
    best = best.strip(" :,;.-=[]()")
    return best if len(best) >= MIN_FACT_CHARS else None


@dataclass(frozen=True)
class TemplateGroup:
    template: str
    count: int
    first_index: int
    messages: tuple[str, ...]


def template_groups(messages: Sequence[str]) -> list[TemplateGroup]:
    """Messages grouped by template, in order of first appearance."""
    index: dict[str, list[int]] = {}
    for i, m in enumerate(messages):
        index.setdefault(template(m), []).append(i)
    return [TemplateGroup(t, len(ix), ix[0], tuple(messages[i] for i in ix)) for t, ix in index.items()]


def spread(items: Sequence, limit: int) -> list:
    """At most ``limit`` items, evenly spaced over the sequence (first and last included)."""
    if len(items) <= limit:
        return list(items)
    if limit == 1:
        return [items[0]]
    return [items[round(k * (len(items) - 1) / (limit - 1))] for k in range(limit)]


def unique_in(text: str, contents: Iterable[str]) -> bool:
    """``text`` occurs exactly once in every content (so it names one line, not many)."""
    return all(c.count(text) == 1 for c in contents)


def one_offs(messages: Sequence[str], contents: Sequence[str], limit: int = 30) -> list[str]:
    """Messages whose template occurs once, as safe fact strings unique in every form."""
    out = []
    for g in template_groups(messages):
        if g.count != 1:
            continue
        fact = json_safe(g.messages[0])
        if fact and unique_in(fact, contents):
            out.append(fact)
    return spread(out, limit)


def kinds_of(messages: Sequence[str], contents: Sequence[str], limit: int = 20) -> list[str]:
    """One fact per template among ``messages`` (e.g. the error lines): the message itself
    for a one-off, else the template's constant stretch (any exemplar shows it)."""
    out: list[str] = []
    for g in template_groups(messages):
        if g.count == 1:
            fact = json_safe(g.messages[0])
        else:
            stretch = constant_stretch(g.messages[0])
            fact = json_safe(stretch) if stretch else None
        if fact and fact not in out and all(fact in c for c in contents):
            out.append(fact)
    return spread(out, limit)


def rare_templates(messages: Sequence[str], max_count: int) -> set[str]:
    return {g.template for g in template_groups(messages) if g.count <= max_count}


def top_counts(values: Iterable[str], n: int = 1) -> list[tuple[str, int]]:
    return Counter(values).most_common(n)
