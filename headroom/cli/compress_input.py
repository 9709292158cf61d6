"""What ``headroom compress FILE`` was given: a request body, a message list, or a tool output.

A user most often has a tool output in hand (a log, a JSON array of rows, a command's
output), not a request body. Anything that is not recognisably a body or a message list
is compressed as one tool result of a small synthetic conversation, and the table says
so. Input that could be either, or nothing at all, is an error that says what to do.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BODY, MESSAGES, TOOL_OUTPUT = "request body", "message list", "tool output"
TOOL_CALL_ID = "call_headroom_cli"
# Keys that make a JSON object a request body (OpenAI chat / Anthropic, Responses, Gemini).
_BODY_KEYS = ("messages", "input", "contents")
_FORCE = "pass --as-tool-output to compress it as one tool output"


@dataclass
class Input:
    name: str  # file name, "stdin" or the bundled example's path
    kind: str  # BODY | MESSAGES | TOOL_OUTPUT
    data: Any  # the parsed body or list; for a tool output, its text
    note: str = ""  # how the input was read, when it is not obvious (shown under the table)


def read_text(path: str | None, example: Path) -> tuple[str, str]:
    """(text, name); one-line errors for a missing, unreadable, directory, binary or empty input."""
    if path in (None, ""):
        return example.read_text(encoding="utf-8"), str(example)
    if path == "-":
        text, name = sys.stdin.read(), "stdin"
    else:
        p = Path(path)
        if p.is_dir():
            raise ValueError(f"{path} is a directory: give one file (a request body, a message list or a tool "
                             "output), or '-' for stdin")
        if not p.exists():
            raise ValueError(f"{path}: no such file")
        try:
            text = p.read_text(encoding="utf-8")
        except PermissionError:
            raise ValueError(f"{path}: permission denied (check the file's permissions)") from None
        except UnicodeDecodeError:
            raise ValueError(f"{path} is not UTF-8 text: headroom compresses text and JSON, not binary files") from None
        name = path
    if not text.strip():
        raise ValueError(f"{name} is empty: nothing to compress (give a request body, a message list or a tool output)")
    return text, name


def classify(text: str, name: str, *, as_tool_output: bool = False, fmt: str | None = None) -> Input:
    """Decide what the text is. ``fmt`` (``--format``) insists on a body."""
    if as_tool_output:
        if fmt:
            raise ValueError("--as-tool-output and --format contradict each other: a tool output has no wire format")
        return Input(name, TOOL_OUTPUT, text, "compressed as one tool output (--as-tool-output)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
        if fmt or _looks_like_body(text):
            raise ValueError(f"{name} looks like a request body but is not valid JSON ({where}): fix the JSON, "
                             f"or {_FORCE}") from None
        if _json_lines(text):
            return Input(name, TOOL_OUTPUT, text, "JSON lines: compressed as one tool output")
        if text.lstrip()[:1] in ("{", "["):
            # Not a body, so a tool output: npm's JS object notation, a Python repr, a
            # truncated dump, a log of "[INFO] …" lines. Said, since it may be a typo.
            return Input(name, TOOL_OUTPUT, text, f"starts like JSON but does not parse ({where}): compressed as one "
                                                  "tool output (text)")
        return Input(name, TOOL_OUTPUT, text, "not JSON: compressed as one tool output (text)")
    if isinstance(data, dict):
        if any(k in data for k in _BODY_KEYS):
            return Input(name, BODY, data)
        if fmt:
            raise ValueError(f"{name} has none of {', '.join(_BODY_KEYS)}: not a {fmt} request body; drop --format "
                             "to compress it as a tool output")
        return Input(name, TOOL_OUTPUT, text, "a JSON object that is not a request body: compressed as one tool output")
    if isinstance(data, list) and data:
        messages = [_is_message(x) for x in data]
        if all(messages):
            return Input(name, MESSAGES, data)
        if any(messages):
            n = sum(messages)
            raise ValueError(f"{name} is ambiguous: {n} of its {len(data)} items look like chat messages (a 'role' and "
                             f"'content') and the rest do not; fix the message list, or {_FORCE}")
    if fmt:
        raise ValueError(f"{name} is not a request body or message list; drop --format to compress it as a tool output")
    shape = "a JSON array" if isinstance(data, list) else f"a JSON {type(data).__name__}"
    return Input(name, TOOL_OUTPUT, text, f"{shape}, not a message list: compressed as one tool output")


def _is_message(x: Any) -> bool:
    return isinstance(x, dict) and isinstance(x.get("role"), str) and any(
        k in x for k in ("content", "tool_calls", "parts", "function_call"))


def _json_lines(text: str) -> bool:
    """Every non-empty line is a JSON value on its own (NDJSON logs, ``jq -c`` output)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        for line in lines:
            json.loads(line)
    except json.JSONDecodeError:
        return False
    return True


def _looks_like_body(text: str) -> bool:
    head = text.lstrip()[:400]
    return head.startswith("{") and any(f'"{k}"' in head for k in (*_BODY_KEYS, "model"))


def tool_output_body(text: str, *, model: str, tool_name: str, question: str | None) -> dict[str, Any]:
    """A minimal chat request around one tool output: the question (if any), the call, the result."""
    return {
        "model": model,
        "messages": [
            {"role": "user", "content": question or f"(tool output given to `headroom compress`: {tool_name})"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": TOOL_CALL_ID, "type": "function", "function": {"name": tool_name, "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": TOOL_CALL_ID, "content": text},
        ],
    }


def compressed_tool_output(body: dict[str, Any]) -> str:
    """The tool result's text after compression (for ``-o``)."""
    for m in body.get("messages", []):
        if m.get("role") == "tool" and m.get("tool_call_id") == TOOL_CALL_ID:
            content = m.get("content")
            if isinstance(content, str):
                return content
            return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))
    raise RuntimeError("the tool output is missing from the compressed body")  # a bug, not user input
