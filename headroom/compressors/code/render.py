"""The compressed file: original lines, and one comment line per elision.

Every line out is either an original line, byte for byte, or an elision comment in the
file's own comment syntax saying which lines were cut (``# … lines 120-142 elided``).
Where the language needs a statement in a body (Python, shell), the elision carries its
no-op statement before the comment (``...  # …`` like a stub file, ``:  # …`` in shell).
Line numbers in the comments are the original's (1-based), so a reader can ask for them
by number; the retrieval marker after the code gives the hash.
"""

from __future__ import annotations

from dataclasses import dataclass

from .blocks import Unit
from .languages import Language

_NO_OP = {"python": "...", "shell": ":"}


@dataclass(frozen=True)
class Cut:
    """Lines ``start..end`` (inclusive) replaced by one elision line, except ``keep``."""

    start: int
    end: int
    indent: str
    keep: tuple[int, ...] = ()
    statement: bool = False  # the elision must be a statement (a body with nothing else left)


def body_cut(unit: Unit) -> Cut:
    return Cut(unit.body_start, unit.body_end, unit.indent, unit.keep, unit.needs_statement)


def doc_cut(lines: list[str], a: int, b: int) -> Cut | None:
    """A long doc comment or docstring on lines ``a..b`` shortened to its opening (and
    summary) line and its closing line: what stays of a description not asked about."""
    opener = lines[a].strip()
    keep_to = a + 1 if opener in ("/**", "/*", "/*!", '"""', "\'\'\'", 'r"""') else a  # the summary line stays
    if b - keep_to < 3:
        return None
    indent = lines[keep_to][: len(lines[keep_to]) - len(lines[keep_to].lstrip())]
    return Cut(a, b - 1, indent, tuple(range(a, keep_to + 1)))


def elision_line(cut: Cut, lang: Language, first: int, last: int) -> str:
    what = f"line {first + 1}" if first == last else f"lines {first + 1}-{last + 1}"
    comment = f"{lang.comment} … {what} elided"
    if cut.statement and lang.name in _NO_OP:
        return f"{cut.indent}{_NO_OP[lang.name]}  {comment}"
    return f"{cut.indent}{comment}"


def render(lines: list[str], cuts: list[Cut], lang: Language, numbers: list[str] | None = None) -> str:
    """``lines`` with each cut replaced. ``numbers``: the ``cat -n`` prefixes of the
    original lines, put back on the lines kept (elisions get a blank one)."""
    out: list[str] = []
    src = lines if numbers is None else list(map(str.__add__, numbers, lines))
    blank = " " * (len(numbers[0]) - 1) + numbers[0][-1] if numbers and numbers[0] else ""
    pos = 0
    for c in sorted(cuts, key=lambda c: c.start):
        out.extend(src[pos:c.start])
        out.extend(src[k] for k in c.keep)
        first = c.start
        while first in c.keep:  # a docstring's kept ends lead the body
            first += 1
        if first <= c.end:
            out.append(blank + elision_line(c, lang, first, c.end))
        pos = c.end + 1
    out.extend(src[pos:])
    return "\n".join(out)
