"""Turning a captured output into corpus cases (stored records): the shared shapes.

A log-like capture becomes a list of :class:`LogLine`; :func:`log_cases` then makes the
text form (the raw lines) and the JSON form (the same lines as rows) and one case per
intent, with facts from :mod:`.facts`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from . import FACT_BASES, FACT_KINDS, INTENTS
from .facts import json_safe, kinds_of, one_offs
from .questions import pick


@dataclass(frozen=True)
class LogLine:
    raw: str  # the line as the program wrote it
    ts: str
    level: str
    component: str
    message: str  # what follows the timestamp/level prefix
    detail: str = ""  # continuation lines (a traceback), already part of ``raw``


def fact(text: str, kind: str, note: str, basis: str = "template") -> dict[str, str]:
    """One fact record; ``basis="independent"`` when it comes from a signal the compressor
    never sees (see ``FACT_BASES``). Template-defined records omit the key (the default)."""
    assert kind in FACT_KINDS, kind
    assert basis in FACT_BASES, basis
    rec = {"text": text, "kind": kind, "note": note}
    return rec if basis == "template" else {**rec, "basis": basis}


def make_case(source: str, scenario: str, form: str, tool_name: str, tool_arguments: dict[str, Any], intent: str,
              question: str, content: str, facts: Sequence[dict[str, str]]) -> dict[str, Any]:
    """One stored case record, checked the way the loader checks it (fail at build time)."""
    assert intent in INTENTS, intent
    assert facts, f"{source}/{scenario}: no facts"
    for f in facts:
        assert f["text"] in content, f"{source}/{scenario}: fact not in content: {f['text']!r}"
        assert f["text"] not in question, f"{source}/{scenario}: fact in question: {f['text']!r}"
    return {"id": f"{source}/{scenario}", "source": source, "form": form, "tool_name": tool_name,
            "tool_arguments": tool_arguments, "question": question, "intent": intent, "content": content,
            "facts": list(facts)}


def as_text(lines: Iterable[LogLine]) -> str:
    return "".join(f"{ln.raw}\n" for ln in lines)


def as_json(lines: Iterable[LogLine]) -> str:
    rows = [{"ts": ln.ts, "level": ln.level, "component": ln.component, "message": ln.message,
             **({"detail": ln.detail} if ln.detail else {})} for ln in lines]
    return json.dumps(rows, ensure_ascii=False)


def log_cases(source: str, name: str, lines: Sequence[LogLine], *, what: str, tool_name: str,
              text_args: dict[str, Any], json_tool: str, json_args: dict[str, Any],
              error_levels: set[str], warning_levels: set[str],
              intents: Sequence[str] = ("one_off", "errors", "last"),
              json_intents: Sequence[str] = ("one_off", "errors"),
              error_part: Callable[[LogLine], str | None] | None = None) -> list[dict[str, Any]]:
    """Cases for one captured log, as text and as JSON rows.

    Facts: one-off templates over the messages; one fact per error/warning template; the
    last line's message. ``error_part`` finds errors a source reports outside its level
    field (a ``status=502 ... error=...`` line at INFO) and returns the part to check.
    Intents with no fact (a log without errors) are skipped, never padded."""
    text, js = as_text(lines), as_json(lines)
    both = (text, js)
    msgs = [ln.message for ln in lines]
    facts: dict[str, list[dict[str, str]]] = {}
    facts["one_off"] = [fact(t, "one_off", "message template (digits, ids, paths, times masked) occurs once")
                        for t in one_offs(msgs, both)]
    # An error with a traceback is known by its last line ("ValueError: ..."), not its header.
    errs = [ln.detail.splitlines()[-1] if ln.detail else ln.message for ln in lines if ln.level in error_levels]
    errs += [part for ln in lines if ln.level not in error_levels and error_part and (part := error_part(ln))]
    warns = [ln.message for ln in lines if ln.level in warning_levels]
    facts["errors"] = ([fact(t, "error", "error-level line; one per template") for t in kinds_of(errs, both)]
                       + [fact(t, "warning", "warning-level line; one per template") for t in kinds_of(warns, both)])
    for key, ln, kind in (("last", lines[-1], "last_state"),):
        t = json_safe(ln.message)
        facts[key] = [fact(t, kind, f"message of the {key} line")] if t and all(t in c for c in both) else []
    out = []
    for form, content, tool, args, wanted in (("text", text, tool_name, text_args, intents),
                                              ("json", js, json_tool, json_args, json_intents)):
        for intent in wanted:
            if not facts[intent]:
                continue
            scen = f"{name}_{form}_{intent}"
            q = pick(intent, f"{source}/{scen}", what)
            out.append(make_case(source, scen, form, tool, args, intent, q, content, facts[intent]))
    return out
