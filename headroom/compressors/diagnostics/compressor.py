"""DiagnosticsCompressor: linter and compiler reports, grouped by rule.

A lint or build report is mostly the same few rules firing again and again; what a
reader needs is every *kind* of finding, every error, and where the findings are. So:

- every error (``error:``/``fatal error:``, pylint E/F codes, eslint ``Error/``) stays
  whole, with its compiler context, source excerpt, caret and notes;
- a rule reported at most ``_FEW`` times keeps every diagnostic line verbatim;
- a frequent rule keeps one diagnostic line per distinct message (numbers masked), warnings
  before conventions, while the budget lasts, and a note after its first line counts the
  rest and lists where they are (files and line numbers);
- source excerpts and carets under everything but errors are dropped: they are most of a
  compiler report's size and say little once the message is in view;
- a header counts diagnostics per severity and per file, so "which file has most" and
  "how many errors" are answered in view.

Kept lines are byte-identical to the input; the original goes to CCR (lossy result).
"""

from __future__ import annotations

from collections import Counter

from ..base import Compressed, CompressInput
from ..spread_order import spread_order
from ..text import anchored_indices
from .parse import ERROR, WARNING, Diagnostic, Report, parse_report

_MIN_LINES = 12  # shorter reports are cheaper to send whole
_MIN_DIAGNOSTICS = 5
_MIN_COVERED = 0.5  # diagnostics (with their excerpts) must be at least this share of the lines
_ORDINARY_ERRORS = 0.5  # errors above this share of the diagnostics are the report's ordinary level
_FEW = 2  # a rule reported at most this many times keeps every diagnostic
# Budgets, as shares of the report's size (rough tokens): what the reader cannot ask for
# unless it sees it (errors, rare rules, one line per rule) may use the vital share; the
# extra distinct messages of frequent rules only the ceiling.
_VITAL_SHARE, _CEILING_SHARE, _CEILING_FLOOR = 0.16, 0.02, 150
_HEAD_FREE, _TAIL_FREE = 3, 6  # free lines kept before the first and after the last diagnostic
_WHERE_NUMBERS, _WHERE_FILES = 2, 2  # line numbers and files a rule's note lists
_FILES_LISTED = 5  # files the header counts by name
_ANCHOR_LIMIT = 20  # an anchor named by more diagnostics than this is the topic, not a lead


def _cost(line: str) -> int:
    """Rough tokens of a line (4 characters a token, plus the newline)."""
    return len(line) // 4 + 1


class _Pick:
    """Diagnostics chosen so far: whole (with excerpts) or the diagnostic line only."""

    def __init__(self) -> None:
        self.prio: dict[int, float] = {}
        self.whole: set[int] = set()

    def mark(self, k: int, prio: float, whole: bool = False) -> None:
        if prio < self.prio.get(k, float("inf")):
            self.prio[k] = prio
        if whole:
            self.whole.add(k)


class DiagnosticsCompressor:
    name = "diagnostics"

    def __init__(self, fallback=None):
        # Output that detection took for a report but is mostly something else (a build
        # log with a few warnings in it) goes to the fallback, the log compressor.
        self.fallback = fallback

    def compress(self, inp: CompressInput) -> Compressed | None:
        report = parse_report(inp.text)
        if not _is_report(report):
            return self.fallback.compress(inp) if self.fallback is not None else None
        diags = report.diagnostics
        raw = report.lines
        total = sum(_cost(ln) for ln in raw)
        vital_room = max(_CEILING_FLOOR, round(total * _VITAL_SHARE))
        ceiling = max(_CEILING_FLOOR, round(total * _CEILING_SHARE))

        by_rule: dict[str, list[int]] = {}
        for k, d in enumerate(diags):
            by_rule.setdefault(d.rule, []).append(k)
        pick = _Pick()
        errors = [k for k, d in enumerate(diags) if d.severity == ERROR]
        # Where errors are most of the report (a type checker's only level), they are its
        # ordinary findings, not anomalies: they are grouped by rule like warnings below.
        if len(errors) > _ORDINARY_ERRORS * len(diags):
            errors = []
        # Every distinct error stays whole; an error repeated word for word (numbers
        # aside) is a repeat, kept as its line while the budget lasts.
        distinct_errors = list({(diags[k].rule, diags[k].message_key): k for k in reversed(errors)}.values())
        errors_whole = sum(_group_cost(raw, diags[k]) for k in distinct_errors) <= vital_room
        for k in errors:
            pick.mark(k, 3)
        for k in distinct_errors:
            pick.mark(k, 0, whole=errors_whole)
        for members in by_rule.values():
            if len(members) <= _FEW:
                for k in members:
                    pick.mark(k, 1)
                continue
            # A frequent rule: one line per distinct message. Warnings (and errors) come
            # before conventions and refactoring hints, whose rule name and count (in the
            # rule's note) already say most of what they mean.
            serious = diags[members[0]].severity in (ERROR, WARNING)
            seen: set[str] = set()
            for k in members:
                d = diags[k]
                if d.message_key in seen:
                    continue
                seen.add(d.message_key)
                if serious:
                    pick.mark(k, 1.5 if len(seen) == 1 else 2)
                else:
                    pick.mark(k, 2.5 if len(seen) == 1 else 3)
        texts = [raw[d.head] for d in diags]
        for k in anchored_indices(inp.anchors, texts, _ANCHOR_LIMIT):
            pick.mark(k, 0.5)

        chosen = _fit(pick, diags, raw, vital_room, ceiling)
        if len(chosen) >= len(diags) and all(diags[k].end - diags[k].start == 1 or k in pick.whole for k in chosen):
            return None  # nothing left out
        free = _kept_free(report)
        text = _render(report, chosen, pick.whole, by_rule, free)
        n_rules = len(by_rule)
        summarised = sum(1 for m in by_rule.values() if any(k not in chosen for k in m))
        return Compressed(
            text=text,
            items_before=len(diags),
            items_after=len(chosen),
            strategy="diagnostics_by_rule",
            lossy=True,
            summary=f" {summarised} of {n_rules} rules summarised (counts above).",
        )


def _is_report(report: Report) -> bool:
    nonblank = sum(1 for ln in report.lines if ln.strip())
    if len(report.lines) < _MIN_LINES or len(report.diagnostics) < _MIN_DIAGNOSTICS:
        return False
    covered = sum(d.end - d.start for d in report.diagnostics)
    return covered >= _MIN_COVERED * nonblank


def _group_cost(raw: list[str], d: Diagnostic) -> int:
    return sum(_cost(raw[i]) for i in range(d.start, d.end))


def _fit(pick: _Pick, diags: list[Diagnostic], raw: list[str], vital_room: int, ceiling: int) -> set[int]:
    """Whole priority classes while they fit; the first class that does not gets an even
    spread of what fits (every prefix of the bit-reversed order spreads over the report).
    Errors always stay. Priorities up to 1 share the vital room, the rest the ceiling."""
    by_prio: dict[float, list[int]] = {}
    for k, p in pick.prio.items():
        by_prio.setdefault(p, []).append(k)
    chosen: set[int] = set()
    spent = 0
    for p in sorted(by_prio):
        members = sorted(by_prio[p])
        costs = {k: (_group_cost(raw, diags[k]) if k in pick.whole else _cost(raw[diags[k].head])) for k in members}
        room = (vital_room if p <= 1 else vital_room + ceiling) - spent
        if p == 0 or sum(costs.values()) <= room:
            chosen.update(members)
            spent += sum(costs.values())
            continue
        for j in spread_order(len(members)):
            k = members[j]
            if costs[k] <= room:
                chosen.add(k)
                room -= costs[k]
        break
    return chosen


def _kept_free(report: Report) -> list[int]:
    """Free lines before the first and after the last diagnostic (the report's title and
    its closing summary or score); free lines in between are banners, counted away."""
    if not report.diagnostics:
        return report.free
    first, last = report.diagnostics[0].start, report.diagnostics[-1].end
    before = [i for i in report.free if i < first][:_HEAD_FREE]
    after = [i for i in report.free if i >= last][-_TAIL_FREE:]
    return before + after


def _render(report: Report, chosen: set[int], whole: set[int], by_rule: dict[str, list[int]],
            free: list[int]) -> str:
    """The header, then the kept lines in input order, each byte-identical to its input
    line (issue 33: lines are kept or elided, never rewritten: no path written once over a
    run of a file's lines, no severity word left out), with a note after each rule's first
    kept line counting the rest."""
    raw, diags = report.lines, report.diagnostics
    rule_of = {k: rule for rule, members in by_rule.items() for k in members}
    short = _short_paths(diags)
    noted: set[str] = set()
    pieces: list[tuple[float, list[str]]] = [(i, [raw[i]]) for i in free]
    for k in sorted(chosen):
        d = diags[k]
        out = raw[d.start:d.end] if k in whole else [raw[d.head]]
        rule = rule_of[k]
        if rule not in noted:
            noted.add(rule)
            hidden = [diags[j] for j in by_rule[rule] if j not in chosen]
            if hidden:
                out = [*out, f"  … +{len(hidden)} more: {_where(hidden, short)}"]
        pieces.append((d.start, out))
    # Rules with nothing shown: name and count only, on one line after the diagnostics
    # (the header counts them per file already).
    unseen = [f"{rule} ×{len(members)}" for rule, members in by_rule.items() if rule not in noted]
    if unseen:
        pieces.append((diags[-1].end - 0.5, [f"[not shown: {', '.join(unseen)}]"]))
    pieces.sort(key=lambda p: p[0])
    return "\n".join([_header(report, len(chosen), by_rule), *(ln for _, lines in pieces for ln in lines)])


def _short_paths(diags: list[Diagnostic]) -> dict[str, str]:
    """Each path's shortest trailing part (whole directory components) that no other path
    of the report ends with: "proc.c" for "psutil-6.1.0/psutil/arch/linux/proc.c",
    "tz/__init__.py" where "parser/__init__.py" exists too. Used in the "+N more" notes;
    the header and the folded runs name files in full."""
    paths = list(dict.fromkeys(d.path for d in diags))
    parts = {p: p.split("/") for p in paths}
    suffixes = Counter("/".join(ps[-n:]) for ps in parts.values() for n in range(1, len(ps) + 1))
    short = {}
    for p, ps in parts.items():
        short[p] = next(("/".join(ps[-n:]) for n in range(1, len(ps)) if suffixes["/".join(ps[-n:])] == 1), p)
    return short


def _where(hidden: list[Diagnostic], short: dict[str, str] | None = None) -> str:
    """Where diagnostics are, compactly: "a.py:12,40, b.py ×3, +2 files"."""
    per_file: dict[str, list[int]] = {}
    for d in hidden:
        per_file.setdefault(d.path, []).append(d.line)
    numbers = _WHERE_NUMBERS
    parts = []
    for path, lines in list(per_file.items())[:_WHERE_FILES]:
        name = short.get(path, path) if short else path
        if len(lines) <= numbers or len(lines) == 1:
            parts.append(f"{name}:{','.join(map(str, lines))}")
            numbers -= len(lines)
        else:
            parts.append(f"{name} ×{len(lines)}")
    if len(per_file) > _WHERE_FILES:
        parts.append(f"+{len(per_file) - _WHERE_FILES} files")
    return ", ".join(parts)


def _header(report: Report, shown: int, by_rule: dict[str, list[int]]) -> str:
    diags = report.diagnostics
    severities = Counter(d.severity for d in diags)
    files = Counter(d.path for d in diags)
    sev = ", ".join(f"{n} {s}" for s, n in severities.most_common())
    top = ", ".join(f"{p} {n}" for p, n in files.most_common(_FILES_LISTED))
    more = f", +{len(files) - _FILES_LISTED} files" if len(files) > _FILES_LISTED else ""
    return (f"[diagnostics: {len(diags)} in {len(files)} files, {len(by_rule)} rules ({sev}); "
            f"per file: {top}{more}; {shown} shown, the rest counted per rule]")
