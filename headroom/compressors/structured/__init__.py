"""Structured text stays structured: config files, build files, SQL, templates and
Markdown are line-selected, never rewritten.

``claim`` runs before the general detector and takes the texts whose lines follow a
structured format's grammar (detect.py), which the general detector used to misread (a
YAML schema as a log, a TOML file as prose, a Jinja template as HTML); ``refine`` runs
after it and takes the plain text that is not prose (lines selected, "lines" format). :class:`StructuredCompressor`
then keeps whole original lines: the question's key path with its parents, an outline
(select.py, tree.py), or for Markdown whole blocks (markdown.py); each elided run is one
comment in the format's own syntax, and the router writes the retrieval marker behind
the same comment. The output is parsed with the format's own parser (formats.py); when
the input parsed and the output would not, the input passes through unchanged.
"""

from __future__ import annotations

import re

from ...query.counts import counted_extreme
from ...query.when import asks_when, dated_lines
from ..base import Compressed, CompressInput
from ..detect import ContentType, Detected
from ..hexdump import looks_like_dump
from ..kv_extremes import extreme_lines
from ..side_by_side import gutter_lines
from ..text_records import all_openers, mark_run_ends, record_openers, run_ends
from .detect import detect_format, is_prose
from .formats import FORMATS, Format, comment_line
from .markdown import MARKDOWN, blocks, fences_balanced, select_blocks
from .select import dropped_runs, fill_short_runs, keep_header, render, select, with_named_lines
from .tree import build

MIN_LINES = 12  # shorter texts pass through: an elision would save next to nothing
_SAMPLE_LINES = 200
_SAMPLE_CHARS = 65_536
# What the probe marker looks like (the router's real marker has the same characters).
_PROBE = "[0 items compressed to 0. Retrieve more: hash=000000000000000000000000. Expires in 30m.]"


def sample_lines(text: str) -> list[str]:
    """``text[:_SAMPLE_CHARS].splitlines()[:_SAMPLE_LINES]``, splitting only up to the
    200th newline when the head holds that many (each newline ends a line of
    ``splitlines``; its other breaks only end lines sooner): a 64 kB head is not split
    whole for 200 lines."""
    head = text[:_SAMPLE_CHARS]
    if head.count("\n") < _SAMPLE_LINES:
        return head.splitlines()[:_SAMPLE_LINES]
    pos = -1
    for _ in range(_SAMPLE_LINES):
        pos = head.find("\n", pos + 1)
    return head[:pos + 1].splitlines()[:_SAMPLE_LINES]


def claim(text: str) -> Detected | None:
    """A STRUCTURED detection (hint: the format name) when the text's lines follow a
    structured format's grammar, else None. Runs before the general detector: it looks
    at a bounded sample only, and a claimed text skips the general detector's passes."""
    sample = sample_lines(text)
    fmt = detect_format(text, sample)
    if fmt is None:
        return None
    if fmt == "yaml" and looks_like_dump([ln for ln in sample if ln.strip()]):
        return None  # xxd's "00000010: 0300 3e00 …" is an offset and bytes, not a key and a value
    return Detected(ContentType.STRUCTURED, hint=fmt, why=f"{fmt}, by its lines' grammar")


def refine(text: str, detected: Detected, plan=None) -> Detected:
    """``detected``, or a STRUCTURED "lines" detection when the general detector found
    plain text that is not prose: its lines are selected whole, never joined. ``plan``:
    the sections planner (the router passes one that remembers its answer for the call)."""
    if detected.type is not ContentType.TEXT or is_prose(sample_lines(text)):
        return detected
    if plan is None:
        from ..sections import plan

    if plan(text):
        return detected  # parts of different kinds: each goes to its own compressor
    return Detected(ContentType.STRUCTURED, hint="lines", why="not prose: whole lines selected")


class StructuredCompressor:
    name = "structured"

    def compress(self, inp: CompressInput) -> Compressed | str | None:
        text = inp.text
        fmt_name = inp.hint if isinstance(inp.hint, str) else detect_format(text, sample_lines(text)) or "lines"
        lines = text.split("\n")
        if len(lines) < MIN_LINES:
            return None
        ratio = inp.config.router.text_target_ratio * (1.5 - min(1.0, max(0.0, float(inp.aggressiveness))))
        if fmt_name == "markdown":
            fmt: Format = MARKDOWN
            bl = blocks(lines)
            keep = select_blocks(lines, bl, inp.query, inp.anchors, max(600, int(len(text) * ratio)))
            fill_short_runs(lines, keep)
            candidates = [keep]
            items_before, unit = len(bl), "blocks"
        else:
            fmt = FORMATS[fmt_name]
            nodes = build(lines, fmt)
            nonblank = sum(map(bool, map(str.strip, lines)))
            keep = select(lines, nodes, inp.query, inp.anchors, max(20, int(nonblank * ratio)), fmt)
            # The lines a question word names, in a value as much as in a key; without them
            # when the output would not parse with them (a line inside a bracketed value).
            named = with_named_lines(lines, nodes, keep, inp.query, inp.anchors, fmt)
            candidates = [keep] if named is None else [named, keep]
            always = _always_kept(lines, nodes, fmt, inp.query, text)  # the same for every candidate
            for k in candidates:
                _fix_up(lines, k, nodes, fmt, always)
            items_before, unit = len(nodes), "entries"
        parses = fences_balanced if fmt is MARKDOWN else fmt.check
        # The first candidate that parses is the output; when none does, the last one,
        # unless the input parses (then it passes through). So the input is parsed only
        # after the last candidate failed: a kept selection that parses needs no parse of
        # the (longer) input (issue 34: a pyproject's named lines cut an array, and
        # tomllib read the 16 kB input for nothing).
        fullest = None
        for keep in candidates:
            if all(keep):
                return None
            out, runs, dropped = render(lines, keep, fmt)
            ok = parses(out + "\n" + comment_line(fmt, "", _PROBE))
            if ok:
                break
            fullest = fullest or (keep, out, runs, dropped)
        if not ok:
            if parses(text):
                return f"structured: the {fmt.name} output would not parse as {fmt.name}; passed through unchanged"
            # The input does not parse either (sqlite3 -html's rows have no root element), so
            # parsing cannot choose: the first candidate, which holds the named lines.
            keep, out, runs, dropped = fullest
        items_after = (sum(1 for b in bl if keep[b.start]) if fmt is MARKDOWN
                       else sum(1 for nd in nodes if keep[nd.start]))
        return Compressed(
            text=out,
            items_before=items_before,
            items_after=items_after,
            strategy="lines" if fmt.name == "lines" else f"{fmt.name}_lines",
            lossy=True,
            summary=(f"{fmt.name}: {items_after} of {items_before} {unit} kept, {dropped} lines in {runs} runs elided, "
                     f"kept lines unchanged; headroom_retrieve with this hash returns the file, with a query the "
                     f"matching lines"),
            comment=fmt.comment,
            comment_end=fmt.comment_end,
        )



def _always_kept(lines: list[str], nodes, fmt: Format, query: str, text: str) -> tuple[set[int], set[int]]:
    """Lines every candidate selection keeps, whatever else it keeps (worked out once): those
    whose records' opening lines come with them, and those kept as they are. (``text``: the
    lines joined by newlines.)"""
    out: set[int] = set()
    if fmt.name == "xml" and query:
        # An element's attributes are key="value" pairs: over ttx's <mtx name="A"
        # width="640"/> rows, "which glyph is the widest" asks for one element.
        out.update(extreme_lines(lines, query))
    if fmt.nesting == "flat" or fmt.name == "lines":
        # Lines of key=value numbers holding the extreme the question asks for (a stats
        # dump read as properties: redis INFO's cmdstat_* lines).
        extremes = extreme_lines(lines, query) if query else set()
        out.update(extremes)
        if extremes and fmt.name == "lines":
            # ... with the few lines nested under each (a linker map's input section, then
            # the symbol it defines on the next, deeper line): the record the extreme opens.
            out.update(_small_bodies(nodes, extremes))
        # A side-by-side diff's marked lines are the difference itself.
        out.update(gutter_lines(lines, text))
        # "When does it expire?": the few lines holding a date.
        if asks_when(query):
            out.update(dated_lines(lines))
    if fmt.name == "lines":
        # "Which object depends on the most headers?" over make's dependency rules: the
        # entry listing the most (fewest) parts, whole.
        counted = counted_extreme(query.lower()) if query else None
        if counted:
            out.update(_most_parts(lines, nodes, counted == "max"))
        # A few records' openers all stay; lines opening with rising integers (byte
        # offsets) keep each run's ends.
        # ... and where a matrix's pattern of marks changes (git show-branch), each run's ends.
        return out, all_openers(lines) | run_ends(lines) | mark_run_ends(lines)
    return out, set()


_SMALL_BODY = 4  # lines of a record (its opening line included) kept whole with its opening line


def _small_bodies(nodes, at: set[int]) -> set[int]:
    """The lines of the nodes opening on ``at`` that span at most ``_SMALL_BODY`` lines."""
    out: set[int] = set()
    for nd in nodes:
        if nd.start in at and nd.end - nd.start <= _SMALL_BODY:
            out.update(range(nd.start, nd.end))
    return out


def _fix_up(lines: list[str], keep: list[bool], nodes, fmt: Format, always: tuple[set[int], set[int]]) -> None:
    """What a format needs besides the selection: JSON's last members before a closing
    bracket, YAML's anchors of kept aliases, the lines every selection keeps (``always``)."""
    if fmt.name == "jsonc":
        _keep_last_members(lines, keep, nodes)
    elif fmt.name == "yaml":
        _keep_anchors(lines, keep, nodes)
    with_openers, as_they_are = always
    for i in with_openers:
        keep[i] = True
    if fmt.name == "lines":
        # A kept field's record is named by its opening line.
        for i in record_openers(lines, keep) | as_they_are:
            keep[i] = True


_PARTS_MIN_ENTRIES = 3  # top-level entries needed before one lists the most


def _most_parts(lines: list[str], nodes, most: bool) -> range:
    """The lines of the top-level entry of several lines listing the most (fewest) blank-
    separated parts, a continuation's backslash aside; none when fewer than
    ``_PARTS_MIN_ENTRIES`` entries span several lines, or when they tie."""
    sized = [(sum(len(ln.split()) - ln.rstrip().endswith("\\") for ln in lines[nd.start:nd.end]), k)
             for k, nd in enumerate(nodes) if nd.parent < 0 and nd.end - nd.start > 1]
    if len(sized) < _PARTS_MIN_ENTRIES:
        return range(0)
    sized.sort()
    best, runner = (sized[-1], sized[-2]) if most else (sized[0], sized[1])
    if best[0] == runner[0]:
        return range(0)
    nd = nodes[best[1]]
    return range(nd.start, nd.end)

# A YAML alias (*name) and anchor (&name) after a line start, a blank, an indicator or a
# flow bracket; the name runs to the next blank or flow character.
_ALIAS = re.compile(r"(?:^|[\s\[{,:-])\*([^\s,\[\]{}]+)")
_ANCHOR = re.compile(r"(?:^|[\s\[{,:-])&([^\s,\[\]{}]+)")


def _keep_anchors(lines: list[str], keep: list[bool], nodes) -> None:
    """YAML: a kept alias needs its anchor, or the output does not compose ("found
    undefined alias"; the file then passed through whole). An anchor whose line was elided
    comes back as a kept header is: its node's header lines under its ancestors' (its body
    may stay elided, as any kept header's may); until nothing is added, since those lines
    may hold aliases of their own."""
    node_at = {nd.start: k for k, nd in enumerate(nodes)}
    anchors = {m.group(1): i for i, ln in enumerate(lines) if "&" in ln for m in _ANCHOR.finditer(ln)}
    done: set[str] = set()
    while True:
        wanted = {m.group(1) for i, ln in enumerate(lines) if keep[i] and "*" in ln for m in _ALIAS.finditer(ln)}
        todo = [anchors[w] for w in wanted - done if w in anchors]
        done |= wanted
        if not todo:
            return
        for line in todo:
            if keep[line]:
                continue
            keep[line] = True
            k = node_at.get(line, -1)
            while k >= 0:
                keep_header(nodes[k], keep)
                k = nodes[k].parent


def _keep_last_members(lines: list[str], keep: list[bool], nodes) -> None:
    """JSON allows no trailing comma: a run elided up to a closing bracket would leave the
    kept member before it ending in ",". The run's last member stays instead."""
    by_end: dict[int, int] = {}
    for nd in nodes:  # the outermost node ending at each line
        if nd.end not in by_end or nd.start < by_end[nd.end]:
            by_end[nd.end] = nd.start
    n = len(lines)
    for i, j in dropped_runs(keep):
        if j < n and lines[j].lstrip()[:1] in "}]":
            end = j
            while end > i and not lines[end - 1].strip():
                end -= 1
            start = by_end.get(end)
            if start is not None and start >= i:
                for k in range(start, j):
                    keep[k] = True


__all__ = ["StructuredCompressor", "claim", "detect_format", "is_prose", "refine"]
