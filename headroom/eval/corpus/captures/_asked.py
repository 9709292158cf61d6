"""The loop every held-out capture of issue 33's seventh round shares: a set of questions
(each with its answers, computed by the capture from another reader of the same state)
asked of each output the capture ran, a case made only where every answer stands once in
that output and never in the question.

Kept in one place so the captures hold only what differs: the program they run and the
reader whose view defines the facts."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run


@dataclass(frozen=True)
class Output:
    """One run of the program: what the agent typed, the form, what came back."""

    args: dict[str, Any]
    form: str
    content: str
    tool: str = "bash"


@dataclass(frozen=True)
class Ask:
    """One question; ``answers`` may depend on the output's name (a value written two ways)."""

    scenario: str
    intent: str
    kind: str
    answers: tuple[str, ...] | Callable[[str], tuple[str, ...]]
    note: str
    wordings: tuple[str, ...]
    only: tuple[str, ...] = ()  # the outputs it is asked of; () for every one

    def answers_for(self, output: str) -> tuple[str, ...]:
        return self.answers(output) if callable(self.answers) else self.answers


def stands_once(content: str, text: str) -> bool:
    """``text`` occurs once, and not as a part of a longer word or number."""
    if not text or content.count(text) != 1:
        return False
    return re.search(rf"(?<![\w.-]){re.escape(text)}(?![\w-])", content) is not None


def asked_cases(source: str, outputs: dict[str, Output], asks: Sequence[Ask],
                once: Callable[[str, str], bool] = stands_once) -> list[dict[str, Any]]:
    """One case per (output, question) whose answers all stand once in the output."""
    out = []
    for name, o in outputs.items():
        for ask in asks:
            answers = ask.answers_for(name)
            if (ask.only and name not in ask.only) or not answers:
                continue
            sid = f"{name}_{ask.scenario}"
            question = choose(f"{source}/{sid}", ask.wordings)
            if not all(once(o.content, a) and a not in question for a in answers):
                continue
            facts = [fact(a, ask.kind, ask.note, basis="independent") for a in answers]
            out.append(make_case(source, sid, o.form, o.tool, o.args, ask.intent, question, o.content, facts))
    return out


def shell_cases(source: str, commands: dict[str, str], asks: Sequence[Ask], *, cwd: Any, env: dict[str, str],
                json_outputs: tuple[str, ...] = (), least: int = 12, check: bool = True) -> list[dict[str, Any]]:
    """Run each named command line in bash (text output; JSON for ``json_outputs``), then
    :func:`asked_cases`; a capture that makes fewer than ``least`` cases is broken.
    ``check=False`` for programs whose exit status reports a finding (``diff``, ``cmp``: 1
    when the inputs differ), not a failure."""
    outputs = {name: Output({"command": cmd}, "json" if name in json_outputs else "text",
                            run(["bash", "-c", cmd], cwd=cwd, env=env, check=check).stdout)
               for name, cmd in commands.items()}
    out = asked_cases(source, outputs, asks)
    assert len(out) >= least, f"too few {source} cases: {len(out)}"
    return out
