"""The frame a coding agent puts around a tool's output, told apart from the output by shape.

Agents wrap what a command printed before the model sees it: a few status lines and a
bare label line such as ``Output:`` before the body (Codex's exec results, sometimes with
a truncation notice after the label), or an element that opens on the first line and
closes on the last with a short notice paragraph and maybe a label line inside (Claude
Code's preview of an output it saved to a file, or of one it cut). Detection must see the body alone (a log under
a header is still a log) and the frame must reach the model verbatim: its lines carry
the exit code, the original size and the path of the saved output.

Recognised by structure only: short ``Label: value`` lines and a line that is a label
ending in a colon, or a custom element's matching open and close lines. Nothing here
names an agent's field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEAD_MAX_LINES = 8
_HEAD_LINE_MAX = 400  # a status line, or a notice naming a saved file's path
_LABEL_VALUE = re.compile(r"^[A-Z][A-Za-z0-9 ]{0,40}: \S")  # "Wall time: 0.3 seconds"
_BARE_LABEL = re.compile(r"^[A-Z][A-Za-z0-9 ()]{0,40}:$")  # "Output:"
# An agent's own element: a custom name (with "-" or "_"), alone on the first line.
_OPEN_TAG = re.compile(r"^<([A-Za-z][\w-]{0,40})>$")
_NOTICE_MAX_LINES = 3
# Under a YAML key the next line is indented or a list item; a command's output under an
# agent's label is not, unless it is a line-numbered listing.
_NESTED = re.compile(r"^(?:[ \t]|- )")
_NUMBERED = re.compile(r"^ *\d+(?:\t|→)")


@dataclass(frozen=True)
class Frame:
    head: str  # verbatim, up to and including the newline before the body
    body: str
    tail: str  # verbatim, from the newline after the body (may be "")

    def wrap(self, body: str) -> str:
        return self.head + body + self.tail


def split(text: str) -> Frame | None:
    """The frame around ``text``'s body, or None when ``text`` has none (or only a frame)."""
    if not text or text[0] not in "<ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        return None  # cheap exit: every frame starts with a tag or a capitalised label
    lines = text[: _HEAD_LINE_MAX * (_HEAD_MAX_LINES + _NOTICE_MAX_LINES + 2)].split("\n")
    tail = ""
    first = 0
    end = len(text)
    tag = _OPEN_TAG.match(lines[0])
    if tag:
        if not any(c in tag.group(1) for c in "-_"):
            return None  # a document's own element (html, svg, project): not a frame
        close = f"</{tag.group(1)}>"
        while end and text[end - 1] == "\n":  # trailing newlines, without copying the text
            end -= 1
        if not text.endswith("\n" + close, 0, end):
            return None
        end -= len(close) + 1  # the newline before the closing line starts the tail
        tail = text[end:]
        first = 1
    if tag:
        # Inside an element: up to a label line, else the notice paragraph that opens it.
        head_end = _label_line(lines, first, labelled=0)
        if head_end is None:
            head_end = _paragraph(lines, first)
    else:
        head_end = _label_line(lines, first, labelled=2)
        if head_end is None:
            return None
        nxt = lines[head_end + 1]
        if _NESTED.match(nxt) and not _NUMBERED.match(nxt):
            return None
    head_end = _notice(lines, head_end)
    head_chars = sum(len(x) + 1 for x in lines[: head_end + 1])
    if head_chars >= end:
        return None
    body = text[head_chars:end]
    if not body or body.isspace():  # strip() would copy a long body
        return None
    return Frame(text[:head_chars], body, tail)


def _label_line(lines: list[str], first: int, labelled: int) -> int | None:
    """Index of the bare label line that ends the head (after at least ``labelled``
    ``Label: value`` lines), or None."""
    seen = 0
    for i in range(first, min(len(lines) - 1, first + _HEAD_MAX_LINES)):
        line = lines[i]
        if len(line) > _HEAD_LINE_MAX:
            return None
        if _BARE_LABEL.match(line):
            return i if seen >= labelled else None
        if _LABEL_VALUE.match(line):
            seen += 1
    return None


def _paragraph(lines: list[str], first: int) -> int:
    """The blank line that closes a short paragraph starting at ``first`` (a notice such as
    "Output too large …"), or the line before ``first`` when there is none."""
    for i in range(first, min(len(lines) - 1, first + _NOTICE_MAX_LINES + 1)):
        if lines[i] == "":
            return i if i > first else first - 1
        if len(lines[i]) > _HEAD_LINE_MAX:
            break
    return first - 1


def _notice(lines: list[str], label: int) -> int:
    """The head's last line: a notice right after the label line (a few ``Label: value``
    lines closed by a blank line, e.g. that the agent cut the output) belongs to it."""
    for i in range(label + 1, min(len(lines) - 1, label + 1 + _NOTICE_MAX_LINES + 1)):
        if lines[i] == "":
            return i if i > label + 1 else label
        if not _LABEL_VALUE.match(lines[i]) or len(lines[i]) > _HEAD_LINE_MAX:
            return label
    return label
