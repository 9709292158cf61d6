"""Parse linter and compiler reports into diagnostics, by structure, not by tool name.

A report is "one diagnostic per line with a location and a rule id": a location prefix
(``path:line:`` or ``path:line:col:``), then a severity word (``error:``, ``warning:``,
``note:``, ``fatal error:``) or a rule code (``W0621:``, ``F401``), then the message, often
ending with a rule id (``[-Wshadow]``, ``[arg-type]``, ``(redefined-outer-name)``,
``[Error/no-unused-vars]``). pylint, ruff concise, flake8, mypy, gcc/clang and
eslint-unix all have this shape.

What else a report holds is attached to its diagnostic: compiler context lines before it
("file.c: In function 'f':", "In file included from …"), and after it the source excerpt,
the caret line, ``note:`` diagnostics and the continuation lines of a multi-line message.
A blank line, a banner or a closing summary ends a diagnostic; lines outside every
diagnostic are "free" (module banners, the score, "Found 3 errors").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..templates import key_of

# path:line[:col]: rest — the path has no spaces and no colons (so "12:30:01" timestamps
# and URLs do not start one).
_HEAD = re.compile(r"^(?P<path>[^\s:][^\s:]*):(?P<line>\d+)(?::(?P<col>\d+))?:\s+(?P<rest>\S.*)$")
# A path has a directory or a file extension, so "12:30:01: error" (a clock) is not one.
_PATHLIKE = re.compile(r"/|\.[A-Za-z][\w+-]*$")
# rustc-style "error[E0308]:" is a severity with a code.
_SEVERITY = re.compile(
    r"^(?P<sev>fatal error|error|warning|note|info|hint|remark)(?:\[(?P<code>[^\]\s]+)\])?:\s*(?P<msg>.*)$",
    re.IGNORECASE,
)
# A rule code right after the location: "W0621:", "F401", "E501", "SIM108", "PLR2004".
_CODE = re.compile(r"^(?P<code>[A-Z]{1,4}\d{2,5})\b:?\s*(?:\[\*\]\s*)?(?P<msg>.*)$")
# pylint's own code shape: its letter is the severity.
_PYLINT_CODE = re.compile(r"^[CRWEFI]\d{4}$")
_PYLINT_SEVERITY = {"C": "convention", "R": "refactor", "W": "warning", "E": "error", "F": "error", "I": "info"}
# A trailing rule id: "[-Wshadow]", "[arg-type]", "[Error/no-unused-vars]"; or pylint's
# "(symbol)" after a leading code.
_TRAILING_ID = re.compile(r"\s*\[(?P<id>[^\[\]\s]+)\]\s*$")
_TRAILING_SYMBOL = re.compile(r"\s*\((?P<id>[a-z][a-z0-9]*(?:-[a-z0-9]+)+)\)\s*$")
_ESLINT_ID = re.compile(r"^(?P<sev>Error|Warning|Info)/(?P<rule>\S+)$")
# Compiler context that belongs to the next diagnostic.
_CONTEXT = re.compile(
    r"^In file included from \S|^\s+from \S+:\d+[,:]$|^\S+: (?:In|At) [^:]*(?::[^:]*)?:$|^\S+: In \w[\w ]*'.*':$"
)
# Lines that end a diagnostic's children: banners and closing summaries.
_FREE = re.compile(
    r"^(?:\*{3,}|-{3,}|={3,}|_{3,})|^(?:Found \d+|\d+ (?:errors?|warnings?|problems?)\b|Success:|All checks passed|"
    r"Your code has been rated|\[\*\] \d+ fixable)",
    re.IGNORECASE,
)

ERROR, WARNING, NOTE = "error", "warning", "note"


@dataclass(slots=True)
class Diagnostic:
    start: int  # first line of the group (context lines included)
    head: int  # the diagnostic line itself
    end: int  # one past the last child line
    path: str
    line: int
    severity: str  # error | warning | convention | refactor | info | hint | remark | …
    rule: str  # the rule id, or the severity and masked message when there is none
    message_key: str  # the message with numbers masked: distinct keys are distinct facts


@dataclass(slots=True)
class Report:
    lines: list[str]
    diagnostics: list[Diagnostic]
    free: list[int]  # line indices outside every diagnostic (blank lines excluded)


def parse_head(line: str) -> tuple[str, int, str, str, str] | None:
    """(path, line, severity, rule, message) of a diagnostic line, or None."""
    m = _HEAD.match(line)
    if not m or not _PATHLIKE.search(m["path"]):
        return None
    rest = m["rest"]
    s = _SEVERITY.match(rest)
    c = None if s else _CODE.match(rest)
    if s:
        severity, code, msg = s["sev"].lower(), s["code"], s["msg"]
        if severity == "fatal error":
            severity = ERROR
    elif c:
        code, msg = c["code"], c["msg"]
        severity = _PYLINT_SEVERITY[code[0]] if _PYLINT_CODE.match(code) else WARNING
    else:
        t = _TRAILING_ID.search(rest)
        e = _ESLINT_ID.match(t["id"]) if t else None
        if not e:
            return None
        severity, code, msg = e["sev"].lower(), e["rule"], rest[: t.start()]
    rule = code or ""
    tail = _TRAILING_SYMBOL.search(msg) if c else _TRAILING_ID.search(msg)
    if tail:
        e = _ESLINT_ID.match(tail["id"])
        if e:
            severity, rule = e["sev"].lower(), e["rule"]
        else:
            rule = f"{rule} {tail['id']}".strip()
        msg = msg[: tail.start()]
    message_key = key_of(msg).strip()
    if not rule:
        rule = f"{severity}: {message_key}"
    return m["path"], int(m["line"]), severity, rule, message_key


def is_diagnostic_line(line: str) -> bool:
    return parse_head(line) is not None


def parse_report(text: str) -> Report:
    lines = text.splitlines()
    diags: list[Diagnostic] = []
    free: list[int] = []
    context: list[int] = []  # context lines waiting for the diagnostic they introduce
    current: Diagnostic | None = None
    for i, line in enumerate(lines):
        if not line.strip():
            current = None
            free.extend(context)
            context = []
            continue
        head = parse_head(line)
        if head is not None:
            path, lineno, severity, rule, key = head
            if severity == NOTE and current is not None:
                current.end = i + 1  # a note (and its include context) explains the diagnostic before it
                context = []
                continue
            start = context[0] if context else i
            current = Diagnostic(start, i, i + 1, path, lineno, severity, rule, key)
            diags.append(current)
            context = []
            continue
        if _CONTEXT.match(line):
            context.append(i)
            continue
        if current is not None and not context and not _FREE.match(line):
            current.end = i + 1  # excerpt, caret, continuation of a multi-line message
            continue
        current = None
        free.extend(context)
        context = []
        free.append(i)
    free.extend(context)
    return Report(lines, diags, sorted(free))
