"""Tool output sent as a user message: which earlier user blocks the router may treat as one.

Many agents (classic ReAct loops, Aider's command runs, SWE-style harnesses) put what a
tool printed in a ``user`` turn, behind their own framing ("Observation:", a line naming
the command, a fenced block). Such a block is tool output in all but role, and the
router compresses it like one (same CCR reversibility, same memo, so the same bytes in
every later turn). Everything else a user sent stays as it came.

Decided by shape, never by a list of phrases:

- the latest user turn only when it answers the assistant's turn before it (the newest
  observation of an agent loop, compressed in its own turn as a tool result is, so that
  its bytes never change once the provider has cached them); a latest user turn with no
  assistant turn before it is a request and stays as sent;
- never text a person typed: a block of few lines, or one whose lines read mostly as
  sentences (natural words, few code or path characters);
- otherwise tool output when the content detector (the one the router uses) finds a
  structured type in it: a log, a listing, a table, search hits, a diff, code, JSON,
  diagnostics. What it reads as prose stays the user's, even a file view numbered in a
  way no structure-keeping compressor reads (the prose compressor would rewrite it).

Every user text block looked at gets a decision saying which way it went and why.
Cost: the detector reads a bounded sample, and only blocks of earlier user turns that
are long enough to compress are looked at.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ..compressors.detect import ContentType, Detected, detect
from ..compressors.structured import claim as claim_structured
from ..formats.model import Block, BlockKind, Conversation, Role, content_hash
from .base import TransformContext, known_tokens, set_block_text

NAME = "user_observations"
AGENT_FRAME = "agent_frame"  # decision extra: the block answers an action inside an agent's framing
# Set on a block this module found to be tool output (read by protect.py, never rendered),
# and the detector's reading of its output, which the router then reuses.
OBSERVATION_META = "user_observation"
DETECTED_META = "user_observation_detected"

# Fewer non-blank lines than this: a person's message (a question, an instruction, a
# short paste); also far below any size worth compressing.
MIN_LINES = 8
_SAMPLE_LINES = 120
_SAMPLE_CHARS = 16_384  # where the lines read for "typed by a person" are taken from
# A "natural word": a letter, then lower-case letters (no digits, no CamelCase tails).
_WORD = re.compile(r"[A-Za-z][a-z']+")
# Characters that prose rarely holds and code, paths, logs and tables hold plenty of.
_MACHINE = re.compile(r"[(){}\[\]<>=;_/\\|#$@*`~^:+\t]|\d")
_NUMBERED = re.compile(r"^\s*(\d{1,6})[:\t|│ ]")


def is_sentence_like(line: str) -> bool:
    """Whether a line reads as written language: four or more natural words making up
    most of it, and few code, path or number characters."""
    text = line.strip()
    if not text:
        return False
    words = _WORD.findall(text)
    if len(words) < 4:
        return False
    body = len(text) - text.count(" ")
    return sum(map(len, words)) >= 0.6 * body and len(_MACHINE.findall(text)) <= 0.06 * len(text)


def typed_by_a_person(text: str) -> str | None:
    """Why ``text`` reads as something a person wrote, or None when it does not."""
    lines = [ln for ln in text[:_SAMPLE_CHARS].splitlines() if ln.strip()]
    if len(lines) < MIN_LINES:
        return f"typed text: {len(lines)} line{'s' if len(lines) != 1 else ''}, fewer than {MIN_LINES}"
    sample = lines[:_SAMPLE_LINES]
    sentences = sum(1 for ln in sample if is_sentence_like(ln))
    if sentences * 2 >= len(sample):
        return f"typed text: {sentences} of {len(sample)} lines read as sentences"
    return None


def _numbered_view(lines: list[str]) -> bool:
    """Lines numbered in order (a file view: ``12:code``, ``12 | code``)."""
    nums = [int(m.group(1)) for ln in lines if (m := _NUMBERED.match(ln))]
    return len(nums) >= 0.8 * len(lines) and all(b > a for a, b in pairwise(nums))


# The agent's own framing around an output: a fence, a short line ending in a colon
# ("Observation:", "$ ls -la:"), a short bracketed or parenthesised note ("[File: …]").
_FRAME_LINE = re.compile(r"^\s*(?:(?:```|~~~)[\w+-]*|[^\n]{0,118}:|\[[^\n]{0,118}\]|\([^\n]{0,118}\))\s*$")
MAX_FRAME_LINES = 3


@dataclass(frozen=True)
class Framed:
    """A user block's text as the agent's framing around a tool's output."""

    head: str  # framing lines before the output, with their line breaks
    body: str
    tail: str  # framing lines after it, with the line break before them


def split_frame(text: str) -> Framed:
    """Up to three framing lines at each end of ``text`` (see _FRAME_LINE), kept apart so
    that only the output between them is compressed and the framing stays as sent."""
    lines = text.split("\n")
    start = 0
    while start < min(MAX_FRAME_LINES, len(lines) - 1) and _FRAME_LINE.match(lines[start]):
        start += 1
    end = len(lines)
    while end > start + 1 and len(lines) - end < MAX_FRAME_LINES and (
            not lines[end - 1].strip() or _FRAME_LINE.match(lines[end - 1])):
        end -= 1
    head = "".join(ln + "\n" for ln in lines[:start])
    tail = "".join("\n" + ln for ln in lines[end:])
    return Framed(head, "\n".join(lines[start:end]), tail)


@dataclass(frozen=True)
class Verdict:
    tool_output: bool
    why: str
    detected: Detected | None = None  # the detector's reading of the output (for the router)


class _Verdicts:
    """Verdicts by content hash: an earlier user block is looked at again in every later
    turn, and the detector costs milliseconds on a long output; the verdict never changes."""

    def __init__(self, capacity: int = 4096):
        self.capacity = capacity
        self._data: OrderedDict[str, Verdict] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Verdict | None:
        with self._lock:
            v = self._data.get(key)
            if v is not None:
                self._data.move_to_end(key)
            return v

    def put(self, key: str, verdict: Verdict) -> None:
        with self._lock:
            # The detector's parse (JSON, tables) is not kept: only the type and why.
            self._data[key] = Verdict(verdict.tool_output, verdict.why)
            while len(self._data) > self.capacity:
                self._data.popitem(last=False)


_VERDICTS = _Verdicts()


def verdict(text: str) -> Verdict:
    """:func:`classify`, remembered by content hash."""
    key = content_hash(text)
    known = _VERDICTS.get(key)
    if known is not None:
        return known
    found = _classify(text)
    _VERDICTS.put(key, found)
    return found


def classify(text: str) -> tuple[bool, str]:
    """(is tool output, why), from the text's shape alone."""
    v = _classify(text)
    return v.tool_output, v.why


def _classify(text: str) -> Verdict:
    why = typed_by_a_person(text)
    if why:
        return Verdict(False, why)
    framed = split_frame(text)
    # Config files, Markdown and templates by their grammar first, as the router reads them.
    detected = claim_structured(framed.body) or detect(framed.body)
    if detected.type is ContentType.TEXT:
        lines = [ln for ln in framed.body.splitlines()[:_SAMPLE_LINES] if ln.strip()]
        if _numbered_view(lines):
            return Verdict(False, "a numbered file view the detector reads as prose: left as the user sent it")
        return Verdict(False, "reads as prose, not as a tool's output")
    return Verdict(True, f"tool output in a user turn ({detected.type.value}{'; ' + detected.why if detected.why else ''})",
                   detected)


def latest_user_index(conv: Conversation) -> int:
    for i in range(len(conv.messages) - 1, -1, -1):
        if conv.messages[i].role is Role.USER:
            return i
    return -1


def observation_blocks(conv: Conversation, ctx: TransformContext) -> Iterator[tuple[int, int, Block]]:
    """The user text blocks that are tool output (see the module doc), marked for the router;
    a decision for every user text block looked at."""
    latest = latest_user_index(conv)
    minimum = ctx.config.router.min_tokens
    for i, m in enumerate(conv.messages):
        if m.role is not Role.USER:
            continue
        for j, block in enumerate(m.blocks):
            if block.kind is not BlockKind.TEXT or not block.text:
                continue
            where: dict[str, Any] = {"message_index": i, "block_index": j}
            # An answer to the assistant's action that opens with the agent's framing
            # ("Observation:"): an agent loop, even while its outputs are too short to
            # compress (PipelineResult.agent_loop offers it the retrieve tool from here on).
            if i > 0 and conv.messages[i - 1].role is Role.ASSISTANT and split_frame(block.text[:2048]).head:
                where["extra"] = {AGENT_FRAME: True}
            # The latest user turn is the person's request, unless it answers the
            # assistant's action: then it is the newest observation of an agent loop, and
            # it is compressed now, as a tool result is in its own turn. Compressing it
            # one turn later instead would change a message the provider has already
            # cached, so every turn would re-write the cache from there.
            if i == latest and not (i > 0 and conv.messages[i - 1].role is Role.ASSISTANT):
                ctx.decide(NAME, "skipped", "the latest user turn is a request, not an answer to an action",
                           **where)
                continue
            # Below the router's minimum nothing would be compressed: not worth a look
            # (a character is at most one token, so this needs no count).
            if len(block.text) < minimum:
                ctx.decide(NAME, "skipped", f"user text shorter than {minimum} characters", **where)
                continue
            v = verdict(block.text)
            if not v.tool_output:
                ctx.decide(NAME, "skipped", v.why, **where)
                continue
            block.meta[OBSERVATION_META] = v.why
            # What the agent said before it ran the command ("Thought: …, Action: cat x")
            # is what the output is read for, as a tool call's own text is for its result.
            if i > 0 and conv.messages[i - 1].role is Role.ASSISTANT and block.tool_intent is None:
                block.tool_intent = conv.messages[i - 1].text() or None
            if v.detected is not None:
                block.meta[DETECTED_META] = v.detected  # the router need not detect again
            ctx.decide(NAME, "classified", v.why, content_type="user_observation", **where)
            yield i, j, block


def is_observation(block: Block) -> bool:
    return OBSERVATION_META in block.meta


class Frame:
    """The router's view of an observation block: a stand-in block holding only the output
    (compressed, memoised and stored in CCR like any tool output), written back into the
    user's block between its framing lines."""

    def __init__(self, block: Block, framed: Framed):
        self.block, self.framed = block, framed
        self.body = Block(BlockKind.TEXT, text=framed.body, tool_intent=block.tool_intent,
                          meta={k: block.meta[k] for k in (OBSERVATION_META, DETECTED_META) if k in block.meta})

    def write_back(self, counter: Any) -> None:
        f = self.framed
        text = f.head + (self.body.text or "") + f.tail
        body = known_tokens(self.body, counter)
        body = counter.count(self.body.text or "") if body is None else body
        set_block_text(self.block, text, body + counter.count(f.head + f.tail), counter)


def routed(block: Block) -> tuple[Block, Frame | None]:
    """The block the router compresses in place of ``block`` (the output between an
    observation's framing lines), and the frame to write it back; ``block`` itself, and
    None, for a tool result or an observation without framing."""
    if not is_observation(block) or block.text is None:
        return block, None
    framed = split_frame(block.text)
    if not framed.head and not framed.tail:
        return block, None
    frame = Frame(block, framed)
    return frame.body, frame


def question_text(conv: Conversation, turns: int = 2) -> str:
    """The question compressors select for: the text of the last ``turns`` user messages a
    person wrote. In a ReAct loop the latest user turns are observations; taken as the
    question, a log would steer the selection of every other output by its own words.
    When every user text is tool output, the latest ones are used as before."""
    found: list[str] = []
    for m in reversed(conv.messages):
        if m.role is not Role.USER:
            continue
        text = m.text()
        if not text or (len(text) >= _QUESTION_CHECK_CHARS and verdict(text).tool_output):
            continue
        found.append(text)
        if len(found) >= turns:
            break
    return "\n".join(reversed(found)) if found else conv.latest_user_text(turns=turns)


# Shorter user texts are always taken as typed (they hold fewer than MIN_LINES lines of
# any length worth checking).
_QUESTION_CHECK_CHARS = 200
