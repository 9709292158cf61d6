"""Line-numbered listings (``cat -n``, an editor tool's ``   12→code``): the numbers are
taken off before the code is read and put back on every line kept."""

from __future__ import annotations

import re

# cat -n: the number right-aligned in six columns, then a tab; editor tools use an arrow.
_NUMBERED = re.compile(r"^ *\d+(?:\t|→)", re.M)
_SAMPLE = 4000


def is_numbered(text: str) -> bool:
    """Whether nearly every line of the head of ``text`` starts with a line number."""
    head = text[:_SAMPLE]
    lines = head.count("\n") + (0 if head.endswith("\n") else 1)
    return lines >= 3 and len(_NUMBERED.findall(head)) >= 0.9 * lines


def split_numbers(text: str) -> tuple[str, list[str]] | None:
    """(the code without numbers, each line's number prefix), or None when a line lacks one."""
    lines = text.split("\n")
    prefixes = _NUMBERED.findall(text)  # whole matches (no groups), listed in C
    trailing = 1 if lines and lines[-1] == "" else 0
    if len(prefixes) != len(lines) - trailing:
        return None
    code = _NUMBERED.sub("", text)
    return code, prefixes + [""] * trailing
