"""The contract every content compressor implements.

A compressor gets one tool output as text (plus the question and its anchors) and
returns a :class:`Compressed` or ``None`` when it has nothing worth doing. It never
touches CCR, markers, memoisation or decisions: the ContentRouter owns those, so every
compressor gets them the same way.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..query.anchors import Anchors
from ..relevance.bm25 import BM25
from ..tokens import LazyTokens, exact

if TYPE_CHECKING:
    from ..config import HeadroomConfig
    from ..tokens import TokenCounter


class PendingTokens:
    """A token count still being taken on the caller's thread.

    Exact BPE of a long tool output is the largest fixed cost of a call, and tiktoken
    releases the GIL while it encodes: the router hands the compressor its input first and
    counts meanwhile, so a compressor that needs the count waits only for what is left.
    """

    # Far past any compression deadline: only a caller that died without resolving the
    # count could make a compressor wait this long, and it then counts by itself.
    WAIT_S = 60.0

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: int | None = None

    def resolve(self, value: int | None) -> None:
        """The count, or None when the caller could not take it."""
        self._value = value
        self._done.set()

    def get(self) -> int | None:
        self._done.wait(self.WAIT_S)
        return self._value


class _NoHint:
    """Detection ran and found nothing to hand over (``None`` says nobody asked it)."""

    def __repr__(self) -> str:
        return "NO_HINT"


NO_HINT = _NoHint()


def hint_of(detected) -> object:
    """What a caller that ran detection hands the compressor: its hint, or NO_HINT."""
    return NO_HINT if detected.hint is None else detected.hint


@dataclass
class CompressInput:
    text: str
    config: HeadroomConfig
    counter: TokenCounter
    query: str = ""
    anchors: Anchors = Anchors()
    tool_name: str | None = None
    tool_arguments: str | None = None
    # 0 = compress gently, 1 = as hard as allowed; from retrieval feedback per tool.
    aggressiveness: float = 0.5
    # Optional scorer (query, items) -> list[float]; BM25 when None.
    relevance: Any = None
    # The JSON value of ``text`` when content detection already parsed it (read-only).
    parsed: Any = None
    # What detection learned of the text's structure (detect.Detected.hint); NO_HINT when
    # detection ran and learned nothing; None when nobody ran it (a direct call).
    hint: Any = None
    # Tokens of ``text`` when the caller already counted them, or is counting them now.
    tokens: int | LazyTokens | PendingTokens | None = None
    # Learned hints for this output's signature (headroom.toin.ToinHints), None when
    # TOIN is off or not confident yet.
    toin: Any = None
    # time.monotonic() after which the result is no longer wanted: long loops may check
    # expired() and give up (the router stops waiting at this point anyway).
    deadline: float | None = None

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def text_tokens(self) -> int:
        n = self.tokens.get() if isinstance(self.tokens, PendingTokens) else self.tokens
        return exact(n) if n is not None else self.counter.count(self.text)

    def relevance_scores(self, items: list[str]) -> list[float]:
        """Score ``items`` against the question (all zeros when there is no question)."""
        if not self.query or not items:
            return [0.0] * len(items)
        if self.relevance is not None:
            return list(self.relevance(self.query, items))
        return BM25(items).scores(self.query)


@dataclass
class Compressed:
    text: str
    items_before: int
    items_after: int
    strategy: str
    # Lossy results get their original stored in CCR and a retrieval marker appended.
    lossy: bool = True
    # A few words for the marker, e.g. "3 errors, 1 spike kept".
    summary: str = ""
    # Line-comment prefix of the output's language ("#", "//"), or "": the router writes the
    # retrieval marker behind it, so a compressed source file still parses.
    comment: str = ""
    # Closer of a block comment ("-->" for XML/HTML/Markdown, "#}" for Jinja), or "" for
    # line comments: the marker is written as ``comment marker comment_end``.
    comment_end: str = ""


class Compressor(Protocol):
    name: str

    def compress(self, inp: CompressInput) -> Compressed | None: ...
