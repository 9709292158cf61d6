"""Line-numbered listings (``cat -n``, an editor tool's ``   12→code``): the numbers are
taken off before the code is read and put back on every line kept."""

from __future__ import annotations

import re

# cat -n: the number right-aligned in six columns, then a tab; editor tools use an arrow.
# Matched from the line break before it (the text gets one in front): led by a literal,
# the engine skips from break to break in C, where a "^"-led pattern was tried at every
# character.
_NUMBERED = re.compile(r"\n( *\d+(?:\t|→))")
_SAMPLE = 4000


def is_numbered(text: str) -> bool:
    """Whether nearly every line of the head of ``text`` starts with a line number."""
    head = text[:_SAMPLE]
    lines = head.count("\n") + (0 if head.endswith("\n") else 1)
    return lines >= 3 and len(_NUMBERED.findall("\n" + head)) >= 0.9 * lines


def split_numbers(text: str) -> tuple[str, list[str]] | None:
    """(the code without numbers, each line's number prefix), or None when a line lacks one."""
    lines = text.count("\n") + 1
    trailing = 1 if not text or text.endswith("\n") else 0  # the split's last line is empty
    text = "\n" + text
    prefixes = _NUMBERED.findall(text)  # the prefixes (the group), listed in C
    if len(prefixes) != lines - trailing:
        return None
    code = _NUMBERED.sub("\n", text)[1:]
    return code, prefixes + [""] * trailing
