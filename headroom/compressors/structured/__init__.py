"""Structured text stays structured: config files, build files, SQL, templates and
Markdown are line-selected, never rewritten.

``refine`` runs after the general detector and claims the texts whose lines follow a
structured format's grammar (detect.py), whatever the detector guessed (a YAML schema
read as a log, a TOML file read as prose, a Jinja template read as HTML), and the texts
that are not prose at all (lines selected, "lines" format). :class:`StructuredCompressor`
then keeps whole original lines: the question's key path with its parents, an outline
(select.py, tree.py), or for Markdown whole blocks (markdown.py); each elided run is one
comment in the format's own syntax, and the router writes the retrieval marker behind
the same comment. The output is parsed with the format's own parser (formats.py); when
the input parsed and the output would not, the input passes through unchanged.
"""

from __future__ import annotations

from ..base import Compressed, CompressInput
from ..detect import ContentType, Detected
from .detect import detect_format, is_prose
from .formats import FORMATS, Format, comment_line
from .markdown import MARKDOWN, blocks, fences_balanced, select_blocks
from .select import MIN_RUN, render, select
from .tree import build

MIN_LINES = 12  # shorter texts pass through: an elision would save next to nothing
_SAMPLE_LINES = 200
_SAMPLE_CHARS = 65_536
# Detected types a structured format may take over. JSON, diffs, search hits, git logs and
# diagnostics are unambiguous and keep their compressors.
_REFINABLE = frozenset((ContentType.TEXT, ContentType.LOG, ContentType.CODE, ContentType.HTML,
                        ContentType.LISTING, ContentType.TABLE))
# What the probe marker looks like (the router's real marker has the same characters).
_PROBE = "[0 items compressed to 0. Retrieve more: hash=000000000000000000000000. Expires in 30m.]"


def sample_lines(text: str) -> list[str]:
    head = text[:_SAMPLE_CHARS]
    return head.splitlines()[:_SAMPLE_LINES]


def refine(text: str, detected: Detected) -> Detected:
    """``detected``, or a STRUCTURED detection (hint: the format name) when the text is
    a structured format or is not prose."""
    if detected.type not in _REFINABLE and detected.type is not ContentType.DIFF:
        return detected
    sample = sample_lines(text)
    if detected.type is ContentType.DIFF and not _misread_as_diff(sample):
        return detected
    fmt = detect_format(text, sample)
    if fmt is not None:
        return Detected(ContentType.STRUCTURED, hint=fmt, why=f"{fmt}, by its lines' grammar")
    if detected.type is ContentType.TEXT and not is_prose(sample):
        from ..sections import plan

        if plan(text):
            return detected  # parts of different kinds: each goes to its own compressor
        return Detected(ContentType.STRUCTURED, hint="lines", why="not prose: whole lines selected")
    return detected


def _misread_as_diff(sample: list[str]) -> bool:
    """Whether the diff detector was misled: no ``+++``/``@@`` line outside a Markdown
    fence (YAML's ``--- !tag`` document starts, a README quoting a patch in a fence)."""
    fenced = False
    for ln in sample:
        s = ln.lstrip()
        if s.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (ln.startswith("+++ ") or ln.startswith("@@ ")):
            return False
    return True


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
            _refill_short_runs(lines, keep)
            items_before, items_after = len(bl), sum(1 for b in bl if keep[b.start])
            unit = "blocks"
        else:
            fmt = FORMATS[fmt_name]
            nodes = build(lines, fmt)
            nonblank = sum(1 for ln in lines if ln.strip())
            keep = select(lines, nodes, inp.query, inp.anchors, max(20, int(nonblank * ratio)))
            items_before, items_after = len(nodes), sum(1 for nd in nodes if keep[nd.start])
            unit = "entries"
        if all(keep):
            return None
        out, runs, dropped = render(lines, keep, fmt)
        probe = out + "\n" + comment_line(fmt, "", _PROBE)
        ok = fences_balanced(probe) if fmt is MARKDOWN else fmt.check(probe)
        if not ok and (fences_balanced(text) if fmt is MARKDOWN else fmt.check(text)):
            return f"structured: the {fmt.name} output would not parse as {fmt.name}; passed through unchanged"
        return Compressed(
            text=out,
            items_before=items_before,
            items_after=items_after,
            strategy=f"{fmt.name}_lines",
            lossy=True,
            summary=(f"{fmt.name}: {items_after} of {items_before} {unit} kept, {dropped} lines in {runs} runs elided, "
                     f"kept lines unchanged; headroom_retrieve with this hash returns the file, with a query the "
                     f"matching lines"),
            comment=fmt.comment,
            comment_end=fmt.comment_end,
        )


def _refill_short_runs(lines: list[str], keep: list[bool]) -> None:
    """Markdown runs are whole blocks: a run too short for a comment is kept whole."""
    i, n = 0, len(keep)
    while i < n:
        if keep[i]:
            i += 1
            continue
        j = i
        while j < n and not keep[j]:
            j += 1
        if sum(1 for k in range(i, j) if lines[k].strip()) < MIN_RUN:
            for k in range(i, j):
                keep[k] = True
        i = j


__all__ = ["StructuredCompressor", "detect_format", "is_prose", "refine"]
