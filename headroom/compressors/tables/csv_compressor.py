"""TableCompressor: delimited text tables (CSV, TSV, semicolon) and whitespace-aligned
ones (``dpkg -l``, ``ps aux``, ``ls -l``, ``kubectl get``: :mod:`.aligned`) for the
ContentRouter.

The header line (with the legend and ruler above it, for aligned tables) and the rows :func:`.select.select_rows` chooses are kept byte for byte
(a row is the exact input line, or lines when a quoted field spans several); a dropped
stretch becomes "…", and one line after the rows gives each column's range. The router
stores the original in CCR and appends the retrieval marker.

Speed matters more here than elsewhere: upstream passes tables through untouched, so the
whole call must cost less than counting the table's tokens. Rows are parsed once by the
C ``csv`` reader and their costs measured in characters (a row's share of the text's
tokens), never counted row by row.
"""

from __future__ import annotations

import csv
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from ...query.terms import worded_lines
from ..base import NO_HINT, Compressed, CompressInput
from ..bm25_fast import relevance_scores
from ..line_shapes import rare_shape_lines
from ..text_records import numbered_mates
from .aligned import (
    MIN_TABLE_ROWS,
    LayoutOf,
    body_rows,
    infer,
    row_cells,
    split_number_runs,
    table_blocks,
    widen_rows,
)
from .fields import Fields
from .fields import infer as infer_fields
from .framed import Framed
from .framed import infer as infer_framed
from .framed import parse as parse_framed
from .outline import Outline, head_depths, subtree
from .outline import infer as infer_outline
from .outline import parse as parse_outline
from .select import Selection, Table, select_rows
from .sniff import MIN_ROWS, Dialect, sniff
from .stanzas import Stanzas
from .stanzas import infer as infer_stanzas
from .stanzas import parse as parse_stanzas

TARGET_RATIO = 0.15  # of the table's tokens, at aggressiveness 0.5 (header and summary included)
_GAP = "…"


def target_ratio(aggressiveness: float) -> float:
    return TARGET_RATIO * (1.5 - min(1.0, max(0.0, float(aggressiveness))))


class TableCompressor:
    name = "table"

    def compress(self, inp: CompressInput) -> Compressed | None:
        if inp.hint is None:
            # Called without detection (directly, or on a part of an outline's text; the
            # router and the section planner hand NO_HINT when detection found nothing to
            # hand over): ask detection, so a table reads the same whoever calls. Its own order of
            # readings differs from the one below (no aligned reading without gutters: ``git
            # cherry -v``'s rows of single blanks are fields, not three aligned columns under a
            # header made of the first row).
            inp = replace(inp, hint=_detected_hint(inp.text))
        lines = inp.text.split("\n")
        # Detection's finding when it handed one over; else delimited, framed, stanzas, aligned.
        dialect = inp.hint if isinstance(inp.hint, Dialect) else None
        stanzas = inp.hint if isinstance(inp.hint, Stanzas) else None
        framed = inp.hint if isinstance(inp.hint, Framed) else None
        fields = inp.hint if isinstance(inp.hint, Fields) else None
        if isinstance(inp.hint, Outline):
            return _outline_records(lines, inp.hint, inp)
        aligned: tuple = ()  # (table blocks, layout) once worked out, for the aligned reading below
        if dialect is None and stanzas is None and framed is None and fields is None:
            dialect = sniff(lines[:64])
            framed = infer_framed(lines) if dialect is None else None
            stanzas = infer_stanzas(lines) if dialect is None and framed is None else None
            if dialect is None and framed is None and stanzas is None:
                blocks = table_blocks(lines)
                aligned = (blocks, _layout(lines, inp) if blocks is None else None)
                if aligned == (None, None):  # what detection tries last: fields split by blanks
                    fields = infer_fields([ln for ln in lines if ln.strip()], tail=True)
        unit = ("rows", "columns")
        titles: list[int] = []  # rows titling a group of rows (an aligned table printed per process)
        foot: list[str] = []  # a frame's closing rule (and footer) after the rows
        if framed is not None:  # rows between bars: the bars split the cells
            head_end, header, body_spans, body, tail = parse_framed(lines, framed)
            if len(body) < MIN_ROWS:
                return None
            head = (0, head_end)
            foot = [ln for ln in lines[tail:] if ln.strip()]
            strategy = "table_framed"
        elif stanzas is not None:  # records as stanzas: each one a row, kept whole with its blank line
            records = parse_stanzas(lines, stanzas)
            if records is None or len(records.rows) < MIN_ROWS:
                return None
            head, header, body_spans, body = (0, records.spans[0][0]), records.names, records.spans, records.rows
            strategy, unit = "table_stanzas", ("records", "fields")
        elif fields is not None:  # single blanks between the fields: split at them
            body_spans = [(i, i + 1) for i, ln in enumerate(lines) if ln.strip()]
            head = (0, body_spans[0][0] + 1) if fields.header and body_spans else (0, 0)
            if fields.header and body_spans:
                header = lines[body_spans[0][0]].split()
                body_spans = body_spans[1:]
            else:
                header = [f"column {k + 1}" for k in range(fields.count)]
            if len(body_spans) < MIN_ROWS:
                return None
            # Cells split at blanks; a row of another count is ragged, and the row selection
            # keeps it in view as an anomaly (porcelain v2's one unmerged entry).
            if fields.tail:
                body = [lines[a].split(None, fields.count - 1) for a, _ in body_spans]
            else:
                body = [lines[a].split() for a, _ in body_spans]
                header, body = widen_rows(header, body)
            strategy = "table_fields"
        elif dialect is not None:
            spans, rows = _records(lines, dialect.delimiter, quoted='"' in inp.text)
            if len(rows) < MIN_ROWS + 1:
                return None
            head, header, body_spans, body = spans[0], rows[0], spans[1:], rows[1:]
            strategy = f"table_{_NAMES.get(dialect.delimiter, 'csv')}"
        else:
            outline = infer_outline(lines)
            if outline is not None:
                got = _outline_records(lines, outline, inp)
                if got is not None:
                    return got
            tables = aligned[0] if aligned else table_blocks(lines)
            if tables is not None:
                return _several(lines, tables, inp)
            layout = aligned[1] if aligned else infer(lines)
            if layout is None:
                return None
            head, header, body_spans, body = _aligned_rows(lines, layout)
            strategy = "table_aligned"
            titles = _title_rows(layout, lines, body_spans)
        budget = len(inp.text) * target_ratio(inp.aggressiveness)
        got = _select(lines, head, header, body_spans, body, foot, unit, inp, budget, titles)
        if got is None:
            return None
        out, sel = got
        return Compressed(text="\n".join(out), items_before=len(body), items_after=len(sel.kept),
                          strategy=strategy, lossy=True, summary=sel.summary())


def _detected_hint(text: str):
    from ..detect import ContentType, detect  # detection reads tables with this package's readers

    found = detect(text)
    return found.hint if found.type is ContentType.TABLE else None


def _layout(lines: list[str], inp: CompressInput):
    """``infer(lines)``: the layout detection read off this very text when it handed one
    over (``LayoutOf``), else read here."""
    read = inp.hint
    if isinstance(read, LayoutOf) and read.text == inp.text:
        return read.layout
    return infer(lines)


def _aligned_rows(lines: list[str], layout) -> tuple[tuple[int, int], list[str], list[tuple[int, int]], list[list[str]]]:
    """(head span, column names, body row spans, body cells) of an aligned table: the
    legend, header and ruler above the rows stay as they are."""
    nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
    body_spans = [(i, i + 1) for i in body_rows(lines, nonblank, layout.body)]
    body = [row_cells(lines[a].rstrip(), layout.starts) for a, _ in body_spans]
    names, body = split_number_runs(list(layout.names), body)
    return (0, layout.body), names, body_spans, body


def _title_rows(layout, lines: list[str], body_spans: list[tuple[int, int]]) -> list[int]:
    """Body rows that title a group of rows, ascending: those found when the layout was
    inferred (a header repeated under each title), and the rows over a run of rows drawn as
    its branches (``esbuild --analyze``: a bundle's row over its ``├ src/…`` inputs)."""
    titles = layout.titles
    found = {k for k, (a, _) in enumerate(body_spans) if a in titles} if titles else set()
    branch = [_BRANCH_ROW.match(lines[a]) is not None for a, _ in body_spans]
    if sum(branch) >= _BRANCH_SHARE * len(branch):
        found.update(k for k in range(len(branch) - 1) if not branch[k] and branch[k + 1])
    return sorted(found)


# A row drawn as a branch of the row above: box-drawing or ASCII tree glyphs before its
# first cell ("├ src/a.js", "└── b", "|-- c", "`-- d").
_BRANCH_ROW = re.compile(r"\s*(?:[├└│┣┗┃╰]|[|`+]--)")
_BRANCH_SHARE = 0.5  # of the rows that must be branches for the others to title them


def _select(lines: list[str], head: tuple[int, int], header: list[str], body_spans: list[tuple[int, int]],
            body: list[list[str]], foot: list[str], unit: tuple[str, str], inp: CompressInput,
            budget: float, titles: list[int] | None = None) -> tuple[list[str], Selection] | None:
    """The table's output lines (its head, the selected rows with a gap mark for each
    dropped stretch, its foot and the column line) and the selection; None when every row
    is kept."""
    # Costs and budget in characters: a row's tokens are estimated as its share of the
    # text's characters, so the token count would cancel out of every comparison (and
    # the compressor need not wait for the count the router takes alongside).
    texts = [lines[a] if b == a + 1 else "\n".join(lines[a:b]) for a, b in body_spans]
    costs = [len(t) + 1 for t in texts]
    table = Table(names=header, rows=body, costs=costs, texts=texts if inp.query else None, strings=True,
                  titles=titles or None)
    # The header and the column line are paid for first: rows fill what is left.
    head_a, head_b = head
    fixed = sum(len(lines[k]) for k in range(head_a, head_b)) + 2 * len(header) * 8
    sel = select_rows(table, query=inp.query, anchors=inp.anchors, budget=budget - fixed,
                      score=lambda items: relevance_scores(inp, items))
    if len(sel.kept) >= len(body):
        return None
    out = lines[head_a:head_b]
    prev = -1
    for i in sel.kept:
        if i != prev + 1:
            out.append(_GAP)
        a, b = body_spans[i]
        out.extend(lines[a:b])
        prev = i
    if prev != len(body) - 1:
        out.append(_GAP)
    out.extend(foot)
    out.append(f"# {len(body)} {unit[0]} x {len(header)} {unit[1]}; column ranges: {sel.columns}")
    return out, sel


_HEAD_LINES = 30  # lines before (or after) an outline's records kept as they are; more is a table of its own


_NAMED_RECORD_LINES = 80  # a record the question names is shown whole up to this many lines


def _outline_records(lines: list[str], outline, inp: CompressInput) -> Compressed | None:
    """An outline's records selected as a table's rows (:mod:`.outline`): each kept record
    shows its head and its first lines; the lines before and after the records stay, or
    when they are long, go through this compressor on their own (``javap``'s constant pool)."""
    records = parse_outline(lines, outline)
    if records is None:
        return None
    shown = [([lines[i] for i in at], cut) for at, cut in records.shown]
    shown_at = [at for at, _ in records.shown]
    texts = ["\n".join(ls) for ls, _ in shown]
    table = Table(names=records.names, rows=records.rows, costs=[len(t) + 1 for t in texts],
                  texts=texts if inp.query else None, strings=True)
    budget = len(inp.text) * target_ratio(inp.aggressiveness)
    sel = select_rows(table, query=inp.query, anchors=inp.anchors, budget=budget,
                      score=lambda items: relevance_scores(inp, items))
    named = set(sel.named)
    nested = set(_nested_under(lines, outline, records, named)) - set(sel.kept)
    if nested:
        sel.reasons["nested under a named record"] += len(nested)
    # A line of a rare shape below the levels its record shows (a redis reply's one "(nil)"
    # description among two hundred) keeps its record, and is shown in it.
    rare_at = _rare_deep_lines(lines, records, shown_at)
    rare_rows = set(rare_at) - set(sel.kept) - nested
    if rare_rows:
        sel.reasons["rare line below"] += len(rare_rows)
    # Likewise a line below them that a question word names, where it names few lines in
    # the whole text (a function's "allow-oom" flag, three levels into a redis reply;
    # "lzma2" on every record's block line names none).
    worded = _deep_worded_lines(lines, records, shown_at, inp.query)
    worded_rows = set(worded) - set(sel.kept) - nested - rare_rows
    if worded_rows:
        sel.reasons["named below"] += len(worded_rows)
    kept = sorted(set(sel.kept) | nested | rare_rows | worded_rows)
    if len(kept) >= len(records.rows):
        return None
    first, last = records.spans[0][0], records.spans[-1][1]
    out = _outside(lines[:first], inp)
    prev = -1
    for i in kept:
        if i != prev + 1:
            out.append(_GAP)
        part, cut = shown[i]
        a, b = records.spans[i]
        if cut and i in named and b - a <= _NAMED_RECORD_LINES:
            # The record the question names, whole: the answer may sit below its first two
            # levels (the exception a named function raises, in `python -m ast`'s dump).
            part, cut = [ln for ln in lines[a:b]], False
        elif cut and (deep := _deep_lines(lines, a, b, shown_at[i], (*worded.get(i, ()), *rare_at.get(i, ())))):
            # Too long to show whole: the lines below its first levels that hold a question
            # word or are of a rare shape, with the items of their numbered list (a redis
            # reply's "allow-oom" flag, three levels down, with the function's name beside it).
            part = [lines[k] for k in sorted({*shown_at[i], *deep})]
        out.extend(part)
        if cut:
            out.append(_GAP)
        prev = i
    if prev != len(records.rows) - 1:
        out.append(_GAP)
    out.extend(_outside(lines[last:], inp))
    out.append(f"# {len(records.rows)} records x {len(records.names)} fields; field ranges: {sel.columns}")
    return Compressed(text="\n".join(out), items_before=len(records.rows), items_after=len(kept),
                      strategy="table_outline", lossy=True, summary=sel.summary())


_DEEP_NAMED_MAX = 4  # lines a question word may name below records' shown levels; more name none


def _deep_lines(lines: list[str], a: int, b: int, shown: list[int], deep: Iterable[int]) -> set[int]:
    """The ``deep`` lines of record ``lines[a:b]`` with the other items of their numbered
    lists, less the lines it shows anyway."""
    hits = {k - a for k in deep}
    if not hits:
        return set()
    return {a + k for k in hits | numbered_mates(lines[a:b], hits)} - set(shown)


def _deep_worded_lines(lines: list[str], records, shown_at: list[list[int]], query: str | None) -> dict[int, list[int]]:
    """Lines holding a question word that at most ``_DEEP_NAMED_MAX`` lines of the text
    hold, which their record does not show, by record."""
    return _by_record(worded_lines(lines, query, _DEEP_NAMED_MAX), records, shown_at) if query else {}


def _rare_deep_lines(lines: list[str], records, shown_at: list[list[int]]) -> dict[int, list[int]]:
    """Lines of a rare shape among the records' lines (:func:`.line_shapes.rare_shape_lines`)
    that their record does not show, by record."""
    return _by_record(rare_shape_lines(lines), records, shown_at)


def _by_record(found: set[int], records, shown_at: list[list[int]]) -> dict[int, list[int]]:
    if not found:
        return {}
    starts = [a for a, _ in records.spans]
    out: dict[int, list[int]] = {}
    for k in sorted(found):
        r = bisect_right(starts, k) - 1
        if r >= 0 and k < records.spans[r][1] and k not in shown_at[r]:
            out.setdefault(r, []).append(k)
    return out


_NAMED_SUBTREES = 4  # named records whose nested records come with them, at most


def _nested_under(lines: list[str], outline, records, named: set[int]) -> list[int]:
    """The records nested under each record the question names, where the heads number
    their depth (:func:`.outline.head_depths`): a function's entry names it, and its
    parameters are the entries below it. Only short subtrees, and a few."""
    if not named or len(named) > _NAMED_SUBTREES:
        return []
    depths = head_depths(lines, outline.heads)
    if depths is None:
        return []
    out: list[int] = []
    for i in named:
        below = subtree(depths, i)
        if below and records.spans[below[-1]][1] - records.spans[i][1] <= _NAMED_RECORD_LINES:
            out.extend(below)
    return out


def _outside(part: list[str], inp: CompressInput) -> list[str]:
    """Lines outside an outline's records: as they are when few, else compressed as a
    table of their own when they are one, else their first and last lines."""
    if len(part) <= _HEAD_LINES:
        return part
    # NO_HINT: this compressor's own readings decide whether the part is a table; asking the
    # general detector (what a hint-less direct call does) cost a fifth of a pydoc page's call.
    got = TableCompressor().compress(replace(inp, text="\n".join(part), hint=NO_HINT, parsed=None, tokens=None))
    if got is not None:
        return got.text.split("\n")
    half = _HEAD_LINES // 2
    return part[:half] + [_GAP] + part[-half:]


def _several(lines: list[str], tables: list[tuple[int, int]], inp: CompressInput) -> Compressed | None:
    """Aligned tables one after another, each under its own header (``ipcs``'s queues,
    segments and semaphores; ``kubectl get all``): each table's rows are selected on their
    own, with its share of the budget, and the lines between tables stay."""
    out: list[str] = []
    done = rows = kept = 0
    reasons: Counter = Counter()
    ratio = target_ratio(inp.aggressiveness)
    for a, b in tables:
        out.extend(lines[done:a])
        while b > a + 1 and not lines[b - 1].strip():
            b -= 1  # the blank lines after a table stay between the tables
        part = lines[a:b]
        layout = infer(part, min_rows=MIN_TABLE_ROWS)
        got = None
        if layout is not None:
            head, header, body_spans, body = _aligned_rows(part, layout)
            got = _select(part, head, header, body_spans, body, [], ("rows", "columns"), inp,
                          sum(map(len, part)) * ratio)
            rows += len(body)
        if got is None:
            out.extend(part)
            kept += len(body) if layout is not None else 0
        else:
            out.extend(got[0])
            kept += len(got[1].kept)
            reasons.update(got[1].reasons)
        done = b
    out.extend(lines[done:])
    if kept >= rows:
        return None
    summary = "kept rows: " + ", ".join(f"{n} {r}" for r, n in reasons.most_common()) if reasons else ""
    return Compressed(text="\n".join(out), items_before=rows, items_after=kept, strategy="table_aligned",
                      lossy=True, summary=f"{len(tables)} tables; {summary}")


_NAMES = {",": "csv", "\t": "tsv", ";": "csv_semicolon"}


def _records(lines: list[str], delimiter: str, quoted: bool = True) -> tuple[list[tuple[int, int]], list[list[str]]]:
    """Each non-blank record with the span of lines it came from (a quoted field may hold
    newlines, so a record can span several lines). Without a quote after the header
    every record is one line, split by ``str.split`` (several times faster than the
    csv reader's per-record bookkeeping). ``quoted``: whether the text has a quote at all."""
    start = next((i for i, ln in enumerate(lines) if ln.strip()), len(lines))
    if start < len(lines) and not (quoted and any('"' in ln for ln in lines[start + 1:])):
        head = _records_csv(lines[:start + 1], delimiter)
        # A blank line is empty or all whitespace (isspace() is False for "").
        spans = head[0] + [(i, i + 1) for i in range(start + 1, len(lines)) if lines[i] and not lines[i].isspace()]
        rows = head[1] + [lines[a].split(delimiter) for a, _ in spans[len(head[0]):]]
        return spans, rows
    return _records_csv(lines, delimiter)


def _records_csv(lines: list[str], delimiter: str) -> tuple[list[tuple[int, int]], list[list[str]]]:
    reader = csv.reader(lines, delimiter=delimiter)
    spans: list[tuple[int, int]] = []
    rows: list[list[str]] = []
    start = 0
    try:
        for row in reader:
            end = reader.line_num
            if row and any(c.strip() for c in row):
                spans.append((start, end))
                rows.append(row)
            start = end
    except csv.Error:
        return [], []
    return spans, rows
