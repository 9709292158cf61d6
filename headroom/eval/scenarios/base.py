"""What a scenario is: a realistic agent conversation plus the questions it must answer.

A scenario is generated from a seed and a size, so every run of the suite sees the same
bytes. Its *probes* say what a faithful compression must keep: the question, the expected
answer, and the evidence strings the answer depends on. The harness checks evidence
verbatim, so evidence is always an atomic value (an id, a number, an error word), never a
``"key": value`` pair that a lossless table rendering would legitimately reshape.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ...formats import OPENAI_CHAT, adapter, render
from ...formats.model import Block, BlockKind, Conversation, ImageData, Message, Role


@dataclass(frozen=True)
class Probe:
    """One question about a scenario.

    ``key`` is what the question names (wrapped in backticks inside ``question``): a
    different attribute or a paraphrase of the row it asks about, never the evidence
    itself. ``expected`` is the answer; ``evidence`` are the strings that must stay in
    view (or at least recoverable) for the answer to be derivable. No evidence string may
    appear in the question: a fact the question already states would count as kept
    whatever the compressor did, so construction refuses it.
    """

    question: str
    expected: str
    evidence: tuple[str, ...]
    key: str = ""
    kind: str = "lookup"  # lookup | spike | error | count — for per-kind reporting
    # What a reader's answer must contain, each matched after normalisation (see
    # headroom.eval.scoring.fact_recall); the real-output corpus asks for its facts here
    # and leaves ``expected`` empty. Empty: ``expected`` is the answer.
    answers: tuple[str, ...] = ()
    # Per evidence string, how the fact was defined ("template" | "program-field" |
    # "independent", see headroom.eval.corpus.FACT_BASES); empty for generated scenarios.
    basis: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        inside = [e for e in self.evidence if e.lower() in self.question.lower()]
        if inside:
            raise ValueError(f"evidence {inside} appears in the question {self.question!r}; ask by another "
                             "attribute or a paraphrase")
        if self.basis and len(self.basis) != len(self.evidence):
            raise ValueError("basis must name one basis per evidence string")

    @property
    def reader_answers(self) -> tuple[str, ...]:
        """What a reader must say: the facts themselves, or the one expected answer."""
        return self.answers or ((self.expected,) if self.expected else ())


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    output: str


@dataclass(frozen=True)
class Turn:
    """One past exchange: the user's words, the tool calls they caused, the reply."""

    user: str
    calls: tuple[ToolCall, ...] = ()
    reply: str | None = None


@dataclass
class Scenario:
    family: str
    size: int
    seed: int
    system: str
    # History before the probe question; the last turn's tool calls answer the question.
    turns: list[Turn]
    probes: list[Probe]
    # Token budget for the context transforms (long sessions only); None = model default.
    context_budget: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.family}/n={self.size}/seed={self.seed}"

    @property
    def has_image(self) -> bool:
        return bool(self.meta.get("image_png_b64"))

    def tool_outputs(self) -> list[str]:
        return [c.output for t in self.turns for c in t.calls]

    def uncompressed_text(self, probe: Probe) -> str:
        """Everything the request carries besides the tool outputs (which are what headroom
        compresses): system prompt, earlier user turns and replies, tool-call arguments."""
        *past, _ = self._turns_for(probe)
        parts = [self.system, *(t.user for t in past), *(t.reply or "" for t in self.turns)]
        for t in self.turns:
            for c in t.calls:
                parts.append(arguments_text(c.arguments))
        return "\n".join(parts)

    def evidence_outside_outputs(self, probe: Probe) -> list[str]:
        """Evidence that also stands outside the tool outputs: it counts as in view whatever
        the compressor does, so it proves nothing about compression."""
        outside = self.uncompressed_text(probe)
        return [e for e in probe.evidence if e in outside]

    def check_evidence_placement(self) -> None:
        """Refuse a probe whose evidence the request carries outside the compressed blocks."""
        for probe in self.probes:
            outside = self.evidence_outside_outputs(probe)
            if outside:
                raise ValueError(f"{self.id}: evidence {outside} of {probe.question!r} also stands outside the tool "
                                 "outputs (system prompt, earlier turns or tool arguments): the compressor cannot "
                                 "lose it, so it measures nothing")

    # -- wire shapes -------------------------------------------------------------------
    def conversation(self, probe: Probe, fmt: str, model: str) -> Conversation:
        """The conversation in the neutral model, ending with the question's tool results:
        the question is the latest user turn, and the tool calls the agent made for it
        follow, as in the request an agent sends right after its tools ran. Where the
        system prompt and tool results go is the adapter's rule, not the eval's."""
        rules = adapter(fmt)
        system = [_built(BlockKind.TEXT, text=self.system)]
        # Chat carries the system prompt as its first message; the others apart from them.
        apart = not getattr(rules, "SYSTEM_IN_MESSAGES", False)
        msgs = [] if apart else [Message(Role.SYSTEM, system, content_is_string=True)]
        turns = self._turns_for(probe)
        for n, turn in enumerate(turns):
            image = self.meta.get("image_png_b64") if n == len(turns) - 1 else None
            user = [_built(BlockKind.TEXT, text=turn.user)]
            if image:
                user.append(_built(BlockKind.IMAGE, image=ImageData(media_type="image/png", data=image)))
            msgs.append(Message(Role.USER, user, content_is_string=not image))
            if turn.calls:
                ids = [f"call_{n}_{k}" for k in range(len(turn.calls))]
                msgs.append(Message(Role.ASSISTANT, [
                    _built(BlockKind.TOOL_CALL, text=json.dumps(c.arguments), tool_call_id=i, tool_name=c.name)
                    for i, c in zip(ids, turn.calls)]))
                results = [_built(BlockKind.TOOL_RESULT, text=c.output, tool_call_id=i, tool_name=c.name)
                           for i, c in zip(ids, turn.calls)]
                # Alternating roles (Anthropic): one user turn holds every result.
                msgs.extend([Message(Role.USER, results)] if rules.ALTERNATING_ROLES
                            else [Message(Role.TOOL, [r]) for r in results])
            if turn.reply:
                msgs.append(Message(Role.ASSISTANT, [_built(BlockKind.TEXT, text=turn.reply)], content_is_string=True))
        conv = Conversation(fmt, msgs, {"model": model},
                            system=system if apart else [], system_is_string=apart)
        conv.link_tool_results()
        return conv

    def body(self, probe: Probe, fmt: str, model: str) -> dict[str, Any]:
        """The request body in ``fmt``, rendered by its adapter (``formats.render``)."""
        return render(self.conversation(probe, fmt, model))

    def openai_messages(self, probe: Probe) -> list[dict[str, Any]]:
        """OpenAI Chat Completions messages (see :meth:`conversation`)."""
        return self.body(probe, OPENAI_CHAT, "gpt-4o")["messages"]

    def _turns_for(self, probe: Probe) -> list[Turn]:
        """History with the probe's question as the user text of the final turn."""
        *past, last = self.turns
        return [*past, Turn(user=probe.question, calls=last.calls, reply=None)]


def _built(kind: BlockKind, **fields: Any) -> Block:
    # Built here, not parsed from a body: ``added`` makes the adapter render it whole.
    block = Block(kind, **fields)
    block.added = True
    return block


def _leaves(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in (str(k), *_leaves(v))]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    return [str(value)]


def arguments_text(arguments: Any) -> str:
    """Tool-call arguments in every spelling a request may carry them: escaped JSON (the
    OpenAI string), unescaped JSON, and each key and value raw (an Anthropic ``input``)."""
    return "\n".join([json.dumps(arguments), json.dumps(arguments, ensure_ascii=False), *_leaves(arguments)])


def as_lines(rows: list[str]) -> str:
    return "\n".join(rows) + "\n"
