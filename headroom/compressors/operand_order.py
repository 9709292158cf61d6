"""Output lines that answer a command's operands in order, without echoing them.

``addr2line -f -e svc 0x403b07 0x401d2b …`` prints, for each address in turn, the function
and then ``file:line``, and never the address: "what function does 0x401d2b resolve to?"
names no line of the output, but it names the second operand, so it names the second pair
of lines. The operands are the run of the command's words of the named word's kind (hex
literals, numbers, or other words of one shape) around it, at least ``_MIN_OPERANDS``; the
output's nonblank lines must split evenly into that many blocks of at most
``_MAX_BLOCK`` lines, else nothing is read.
"""

from __future__ import annotations

import re

from .search.symbol import argument_strings

_MIN_OPERANDS = 4
_MAX_BLOCK = 4  # lines a tool prints per operand, at most (addr2line -f -i may print a few)
_HEX = re.compile(r"0[xX][0-9a-fA-F]+")
_NUMBER = re.compile(r"\d+")


def _kind(word: str) -> str:
    if _HEX.fullmatch(word):
        return "hex"
    if _NUMBER.fullmatch(word):
        return "number"
    return "word" if word[:1] not in ("-", "|", ";", "&", ">", "<") else ""


def operand_lines(raw: list[str], tool_arguments, terms) -> set[int]:
    """The lines answering each operand of the command that a question term names (and the
    output does not hold), by the operand's place in its run (see the module's doc)."""
    if not terms or not tool_arguments:
        return set()
    words = next((s.split() for s in argument_strings(tool_arguments) if " " in s), [])
    low = [w.lower() for w in words]
    named = [k for k, w in enumerate(low) if w in terms]
    if not named or len(named) > _MAX_BLOCK:
        return set()
    text = "\n".join(raw).lower()
    rows = [i for i, ln in enumerate(raw) if ln.strip()]
    out: set[int] = set()
    for k in named:
        if low[k] in text or not (kind := _kind(words[k])) or kind == "word":
            continue  # the output holds it (anchoring finds it), or no operand of a kind
        a, b = k, k + 1
        while a > 0 and _kind(words[a - 1]) == kind:
            a -= 1
        while b < len(words) and _kind(words[b]) == kind:
            b += 1
        count = b - a
        if count < _MIN_OPERANDS or len(rows) % count:
            continue
        block = len(rows) // count
        if block > _MAX_BLOCK:
            continue
        place = k - a
        out.update(rows[place * block:(place + 1) * block])
    return out
