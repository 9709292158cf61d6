"""CodeCompressor: a source file as an outline that still parses, with the code the
question describes kept whole.

What stays: every line outside function bodies (imports, module docstring, class headers
and attributes, decorators, signatures, top-level statements), each elided body's
docstring ends, the bodies too short to be worth eliding, and the functions the question
describes (select.py: scored by name, signature, docstring, comments and identifiers).
What goes: the other bodies, each replaced by one comment line in the file's own syntax
naming the lines it stands for (render.py). The router writes the retrieval marker behind
the same comment prefix, so the output is still a valid file of its language.

The file is read once: strings and comments are masked (mask.py), then blocks are found by
whole-text searches (blocks.py), never by a regex per line, so a 100 kB file costs about as
much as counting its tokens.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace

from ..base import Compressed, CompressInput
from .blocks import Unit, brace_units, doc_spans, line_starts, python_units, toml_units, yaml_units
from .languages import Language, guess_language, language_for_path, path_argument
from .mask import mask
from .numbered import is_numbered, split_numbers
from .render import body_cut, doc_cut, render
from .select import keep_whole

MIN_LINES = 10


def find_units(lang: Language, code: str, lines: list[str], starts: list[int] | None = None) -> list[Unit]:
    """``starts``: line_starts(code, lines) when the caller has it."""
    if lang.blocks == "python":
        return python_units(code, mask(code, lang.strings), lines, starts)
    if lang.blocks == "brace":
        return brace_units(mask(code, lang.strings), lines, shell=lang.name == "shell")
    if lang.blocks == "yaml":
        return yaml_units(code, lines)
    return toml_units(code, lines)


def language_of(text: str, tool_arguments=None) -> Language | None:
    path = path_argument(tool_arguments)
    return (language_for_path(path) if path else None) or guess_language(text)


def choose_elided(units: list[Unit], whole: set[int], max_lines: int) -> list[Unit]:
    """Outermost elidable units longer than ``max_lines`` outside what is kept whole.

    A block that holds functions or classes (a JS module wrapper, a YAML mapping of
    mappings) is opened like a container, so its members are outlined one by one."""
    holds = {u.parent for u in units if u.parent >= 0}
    covered: list[tuple[int, int]] = []  # line spans kept whole or already elided
    elided: list[Unit] = []
    for i, u in enumerate(units):
        if any(a <= u.header and u.body_end <= b for a, b in covered[-8:]) or _inside(u, units, whole):
            continue
        if i in whole:
            covered.append((u.header, u.body_end))
            continue
        if u.kind == "container" or (u.kind == "block" and i in holds) or u.size <= max_lines:
            continue
        elided.append(u)
        covered.append((u.header, u.body_end))
    return elided


def _doc_cuts(units: list[Unit], whole: set[int], elided: list[Unit], lines: list[str], spans_of_docs):
    """Long descriptions (doc comments, docstrings) outside what is kept whole or elided,
    shortened to their summary: signatures plus docstring first lines."""
    taken = sorted([(u.doc_start if u.doc_start >= 0 else u.header, u.body_end) for i, u in enumerate(units)
                    if i in whole] + [(e.body_start, e.body_end) for e in elided])
    heads = [a for a, _ in taken]
    cuts = []
    for a, b in spans_of_docs:
        k = bisect_right(heads, a) - 1
        if k >= 0 and taken[k][1] >= a:
            continue  # kept whole, or inside an elided body
        c = doc_cut(lines, a, b)
        if c is not None:
            cuts.append(c)
    return cuts


def _hidden(units: list[Unit], elided: list[Unit]) -> int:
    """Units (containers aside) that an elision hides: the elided ones and those inside them."""
    spans = sorted((e.header, e.body_end) for e in elided)
    hidden, k = 0, 0
    for u in units:  # sorted by header
        while k < len(spans) and spans[k][1] < u.header:
            k += 1
        if u.kind != "container" and k < len(spans) and spans[k][0] <= u.header:
            hidden += 1
    return hidden


def _inside(u: Unit, units: list[Unit], whole: set[int]) -> bool:
    p = u.parent
    while p >= 0:
        if p in whole:
            return True
        p = units[p].parent
    return False


def _outline_records(inp: CompressInput) -> Compressed | None:
    """Text that reads like code line by line but holds no unit its language defines: a
    dump of records in an outline (``javap -v``'s methods, braces and semicolons and all)
    goes to the table compressor's outline reading (tables/outline.py), else stays."""
    from ..tables.csv_compressor import TableCompressor
    from ..tables.outline import infer

    outline = infer(inp.text.split("\n"))
    if outline is None:
        return None
    return TableCompressor().compress(replace(inp, hint=outline))


class CodeCompressor:
    name = "code"

    def compress(self, inp: CompressInput) -> Compressed | None:
        text = inp.text
        numbers = None
        if is_numbered(text):
            split = split_numbers(text)
            if split is None:
                return None
            text, numbers = split
        lang = language_of(text, inp.tool_arguments)
        if lang is None:
            return None
        lines = text.split("\n")
        if len(lines) < MIN_LINES:
            return None
        starts = line_starts(text, lines)
        units = find_units(lang, text, lines, starts)
        if lang.blocks == "brace" and not any(u.name for u in units) and numbers is None:
            return _outline_records(inp)  # braces and semicolons, but no function or class
        if not units:
            return None
        scale = 1.5 - min(1.0, max(0.0, float(inp.aggressiveness)))
        max_lines = max(0, round(inp.config.router.code_body_max_lines * scale))
        whole = keep_whole(units, lines, inp.query, inp.anchors, inp.relevance, text, starts)
        elided = choose_elided(units, whole, max_lines)
        counted = sum(1 for u in units if u.kind != "container")
        hidden = _hidden(units, elided)
        dropped = sum(u.size - len(u.keep) for u in elided)
        cuts = [body_cut(u) for u in elided] + _doc_cuts(units, whole, elided, lines,
                                                         doc_spans(text, lines, units, lang.blocks, starts))
        if not cuts:
            return None
        return Compressed(
            text=render(lines, cuts, lang, numbers),
            items_before=counted,
            items_after=counted - hidden,
            strategy=f"{lang.name}_outline",
            lossy=True,
            summary=(f"{len(elided)} bodies elided ({dropped} lines), {len(cuts) - len(elided)} descriptions "
                     f"shortened; headroom_retrieve with this hash returns "
                     f"the file, with a query the matching lines"),
            comment=lang.comment,
        )


__all__ = ["CodeCompressor", "Language", "find_units", "guess_language", "language_for_path", "language_of"]
