"""GitLogCompressor: ``git log`` output (with or without ``--stat`` / ``--summary``).

A commit is read by its structure — the ``commit <hash>`` line, ``Author:``/``Date:``
(and ``Merge:``) headers, the indented message, the per-file ``--stat`` lines, the totals
line and the ``--summary`` lines (create/delete mode, rename, mode change) — and shown by
its own lines, verbatim (issue 33: lines are kept or elided, never joined or rewritten):
for every commit its ``commit`` line (the whole hash, decorations included), ``Merge:``
lines, its ``Date:`` line where the day changes (every one when the question asks when;
the header gives the span), its ``Author:`` line unless one author wrote every commit
(the header then names them once), the subject line, the totals line, its created, deleted
and renamed paths' lines (capped per commit, the ones the question names first) and any
line of no known shape (a signature check's ``gpg:`` lines). Per-file stat lines (but
the ones the question names, and the largest when it asks for an extreme), message
bodies (but the lines the question names) and modified paths are left out, each run of
them one marker line. The exact original goes to CCR, so nothing is lost.

``--name-status`` and ``--name-only`` lines are read the same way: added, deleted and
renamed paths are kept like ``--summary`` lines, modified ones are left out.

``git log -p`` (patches) is a diff and goes to the diff compressor instead.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from ..query.intent import intents_of
from ..query.when import asks_when
from .base import Compressed, CompressInput
from .templates import key_of

COMMIT_LINE = re.compile(r"^commit ([0-9a-f]{7,64})\b(.*)$")
_HEADER = re.compile(r"^(Author|Date|Merge|Commit|AuthorDate|CommitDate):\s+(.*)$")
_STAT = re.compile(r"^ (\S.*?)\s+\|\s+(\d+)(?: [+-]*)?$|^ (\S.*?)\s+\|\s+Bin ")
_TOTALS = re.compile(r"^ \d+ files? changed(?:, \d+ insertions?\(\+\))?(?:, \d+ deletions?\(-\))?$")
_TOTAL_NUMBERS = re.compile(r"^(\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?$")
# --name-status ("M\tpath", "R087\told\tnew") and --name-only (a bare path) lines.
_NAME_STATUS = re.compile(r"^([ACDMRTU])(\d{0,3})\t([^\t]+)(?:\t([^\t]+))?$")
_NAME_ONLY = re.compile(r"^[\w.@+-][^\s:]*[/.][^\s:]*$")
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2} ")
_SUMMARY = re.compile(r"^ (create|delete) mode \d+ (.+)$|^ (rename|copy) (.+) \(\d+%\)$|^ mode change \d+ => \d+ (.+)$")
# Created/deleted paths listed per commit before the rest is only counted: a release
# import can create hundreds of files, and the first few say what kind of change it was.
_PATHS_PER_COMMIT = 8
_MIN_COMMITS = 2
# "Notes:" or "Notes (review):": the lines after it, indented, are the commit's notes, not
# its message.
_NOTES = re.compile(r"^Notes(?: \([^()]+\))?:$")
_NOTE_LINES = 3  # a commit's notes shown in full up to this many lines
_SHORT_HASH = 7


@dataclass
class Commit:
    hash: str
    decoration: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    message: list[str] = field(default_factory=list)
    stats: list[tuple[str, int, str]] = field(default_factory=list)  # (path, changed lines, line)
    totals: str = ""
    summary: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, path, line)
    other: list[str] = field(default_factory=list)  # lines of no known shape, kept
    notes: list[str] = field(default_factory=list)  # `git log --notes`: "Notes:" and its lines
    # Where each of the above stands in the input (line indices), in the same order.
    line: int = -1
    header_at: dict[str, int] = field(default_factory=dict)
    message_at: list[int] = field(default_factory=list)
    stats_at: list[int] = field(default_factory=list)
    totals_at: int = -1
    summary_at: list[int] = field(default_factory=list)
    other_at: list[int] = field(default_factory=list)
    notes_at: list[int] = field(default_factory=list)

    @property
    def subject(self) -> str:
        return next((m.strip() for m in self.message if m.strip()), "")


def parse_git_log(text: str) -> tuple[list[str], list[Commit]]:
    """Lines before the first commit, and the commits (None of their lines is dropped:
    each lands in exactly one field, with its line index beside it)."""
    preamble: list[str] = []
    commits: list[Commit] = []
    cur: Commit | None = None
    for i, line in enumerate(text.splitlines()):
        m = COMMIT_LINE.match(line)
        if m:
            cur = Commit(m[1], m[2], line=i)
            commits.append(cur)
            continue
        if cur is None:
            preamble.append(line)
            continue
        if not line.strip():
            continue
        if (cur.notes and line.startswith("    ")) or _NOTES.match(line):
            cur.notes.append(line)
            cur.notes_at.append(i)
            continue
        h = _HEADER.match(line)
        if h and not cur.message and not cur.stats:
            cur.headers[h[1]] = h[2]
            cur.header_at[h[1]] = i
        elif line.startswith("    "):
            cur.message.append(line[4:])
            cur.message_at.append(i)
        elif (s := _STAT.match(line)) is not None:
            cur.stats.append((s[1] or s[3], int(s[2] or 0), line))
            cur.stats_at.append(i)
        elif _TOTALS.match(line):
            cur.totals = line.strip()
            cur.totals_at = i
        elif (s := _SUMMARY.match(line)) is not None:
            kind = s[1] or s[3] or "mode change"
            cur.summary.append((kind, s[2] or s[4] or s[5], line))
            cur.summary_at.append(i)
        elif (s := _NAME_STATUS.match(line)) is not None:
            _name_status(cur, s, line, i)
        elif cur.message and _NAME_ONLY.match(line):
            cur.stats.append((line, -1, line))  # --name-only: a path, size unknown
            cur.stats_at.append(i)
        else:
            cur.other.append(line)
            cur.other_at.append(i)
    return preamble, commits


def _name_status(c: Commit, m: re.Match, line: str, at: int) -> None:
    status, path, new = m[1], m[3], m[4]
    if status == "A":
        c.summary.append(("create", path, line))
    elif status == "D":
        c.summary.append(("delete", path, line))
    elif status in "RC" and new:
        c.summary.append(("rename" if status == "R" else "copy", f"{path} => {new}", line))
    else:
        c.stats.append((path, -1, line))  # modified: size unknown
        c.stats_at.append(at)
        return
    c.summary_at.append(at)


def short_date(date: str) -> str:
    """git's default date ("Mon Nov 23 18:17:07 2026 +0000") as "2026-11-23 18:17:07
    +0000": half the tokens, nothing lost; other formats stay as they are."""
    try:
        return datetime.strptime(date.strip(), "%a %b %d %H:%M:%S %Y %z").strftime("%Y-%m-%d %H:%M:%S %z")
    except ValueError:
        return date.strip()


def time_span(first: str, last: str) -> str:
    """"2026-11-23 18:17:06 to 18:17:07 +0000": the zone written once when both times
    share it, and the day too when they share it; other formats stay whole."""
    a, b = first.split(" "), last.split(" ")
    if not (_ISO_DAY.match(first) and _ISO_DAY.match(last) and len(a) == len(b) == 3 and a[2] == b[2]):
        return f"{first} to {last}"
    if a[0] == b[0]:
        return f"{a[0]} {a[1]} to {b[1]} {a[2]}"
    return f"{a[0]} {a[1]} to {b[0]} {b[1]} {a[2]}"


def _day(date: str) -> str:
    return date.split(" ", 1)[0] if _ISO_DAY.match(date) else date


def commit_date(c: Commit) -> str:
    return short_date(c.headers.get("Date") or c.headers.get("AuthorDate") or "")


def _asked(c: Commit, anchors) -> bool:
    """The question names a path this commit created, deleted, renamed or changed."""
    if not anchors:
        return False
    return (any(anchors.matches(p) for _, p, _ in c.summary) or any(anchors.matches(p) for p, _, _ in c.stats))


_DATE_HEADERS = ("Date", "AuthorDate", "CommitDate")


def _kept_lines(c: Commit, *, one_author: bool, anchors, largest: bool, dated: bool) -> set[int]:
    """The input lines of commit ``c`` that stay in view (see the module's docstring).
    ``dated``: its date lines stay (the question asks when, the day changes here, or an
    anchor is on them); otherwise the header's span says when."""
    keep = {c.line}
    if "Merge" in c.header_at:
        keep.add(c.header_at["Merge"])
    for name in _DATE_HEADERS:
        if name in c.header_at and (dated or anchors.matches(c.headers[name])):
            keep.add(c.header_at[name])
    if not one_author and "Author" in c.header_at:
        keep.add(c.header_at["Author"])
    body = [(i, m) for i, m in zip(c.message_at, c.message) if m.strip()]
    if body:
        keep.add(body[0][0])  # the subject
        # A commit the question names by its subject shows its whole message; others the
        # lines the question names.
        whole = anchors.matches(body[0][1])
        keep.update(i for i, m in body[1:] if whole or anchors.matches(m))
    if c.totals_at >= 0:
        keep.add(c.totals_at)
    shown = [k for k, st in enumerate(c.stats) if anchors.matches(st[0])]
    if largest and c.stats and max(n for _, n, _ in c.stats) >= 0:
        shown.append(max(range(len(c.stats)), key=lambda k: (c.stats[k][1], -k)))
    keep.update(c.stats_at[k] for k in shown)
    named = [k for k, (_, p, _) in enumerate(c.summary) if anchors.matches(p)]
    rest = [k for k in range(len(c.summary)) if k not in named]
    keep.update(c.summary_at[k] for k in named + rest[:max(0, _PATHS_PER_COMMIT - len(named))])
    keep.update(c.other_at)
    keep.update(c.notes_at[:_NOTE_LINES + 1])  # what a reviewer or a deploy attached, as git prints it
    return keep


_FOLD_MIN_COMMITS = 30  # a log of at most this many commits shows every one
_FOLD_SHARE = 0.3  # of the log's characters its commits' kept lines may take before whole commits go
_ENDS = 3  # newest and oldest commits always shown
_RARE_COMMITS = 2  # a commit whose unknown lines' shapes at most this many commits share is rare


def _shown_commits(commits: list[Commit], kept_of: list[set[int]], lines: list[str], inp: CompressInput,
                   largest: bool) -> set[int]:
    """Which commits show their lines. All in a log of at most ``_FOLD_MIN_COMMITS``, or
    while their kept lines take at most ``_FOLD_SHARE`` of the log; else the ones a reader
    asks for or cannot see otherwise — a line the question names, notes, a rare shape of
    unknown lines (a signature check that failed among good ones, or none where every other
    commit has one), the largest when the question asks for extremes, the newest and oldest
    — and the newest of the rest while the share lasts. The others are left out whole, one
    marker a run."""
    n = len(commits)
    if n <= _FOLD_MIN_COMMITS:
        return set(range(n))
    cost = [sum(len(lines[i]) + 1 for i in kept) for kept in kept_of]
    room = _FOLD_SHARE * len(inp.text)
    if sum(cost) <= room:
        return set(range(n))
    must = set(range(min(_ENDS, n))) | set(range(max(0, n - _ENDS), n))
    shapes = [frozenset(key_of(line) for line in c.other) for c in commits]
    held = Counter(shapes)
    anchors = inp.anchors
    for k, c in enumerate(commits):
        if c.notes or held[shapes[k]] <= _RARE_COMMITS or (
                anchors and any(anchors.matches(lines[i]) for i in kept_of[k] if i != c.line)):
            must.add(k)
    if largest:
        must |= _extreme_commits(commits)
    spent = sum(cost[k] for k in must)
    for k in range(n):  # then the newest while the share lasts: one run of left-out commits, one marker
        if k not in must:
            if spent + cost[k] > room:
                break
            must.add(k)
            spent += cost[k]
    return must


def _extreme_commits(commits: list[Commit]) -> set[int]:
    """Positions of the commits with the most files, insertions and deletions."""
    numbers = [_TOTAL_NUMBERS.match(c.totals.strip()) for c in commits]
    out: set[int] = set()
    for group in (1, 2, 3):
        values = [int(m[group] or 0) if m else -1 for m in numbers]
        if values and max(values) > 0:
            out.add(values.index(max(values)))
    return out


def _render(lines: list[str], first: int, keep: set[int], said: set[int],
            omitted: list[tuple[int, int]] = ()) -> list[str]:
    """Lines ``first`` onwards: the kept ones verbatim, each run of left-out nonblank lines
    as one marker at the run's indentation, each run of left-out commits (``omitted``: their
    line spans) as one marker counting them; blank lines and the lines the header says
    (``said``: the one author's ``Author:`` lines) are left out and not counted."""
    out: list[str] = []
    run, lead = 0, ""
    dropped: dict[int, int] = {a: b for a, b in omitted}
    i, commits_run = first, 0
    while i < len(lines):
        if i in dropped:
            if run:
                out.append(f"{lead}… {run} line{'s' if run != 1 else ''} omitted")
                run = 0
            commits_run += 1
            i = dropped[i]
            continue
        if commits_run:
            out.append(f"… {commits_run} commit{'s' if commits_run != 1 else ''} omitted")
            commits_run = 0
        ln = lines[i]
        i += 1
        if i - 1 in said:
            continue
        if i - 1 in keep:
            if run:
                out.append(f"{lead}… {run} line{'s' if run != 1 else ''} omitted")
                run = 0
            out.append(ln)
        elif ln.strip():
            if not run:
                lead = ln[:len(ln) - len(ln.lstrip())]
            run += 1
    if run:
        out.append(f"{lead}… {run} line{'s' if run != 1 else ''} omitted")
    if commits_run:
        out.append(f"… {commits_run} commit{'s' if commits_run != 1 else ''} omitted")
    return out


class GitLogCompressor:
    name = "git_log"

    def compress(self, inp: CompressInput) -> Compressed | None:
        preamble, commits = parse_git_log(inp.text)
        if len(commits) < _MIN_COMMITS:
            return None
        authors: dict[str, int] = {}
        for c in commits:
            a = c.headers.get("Author", "")
            authors[a] = authors.get(a, 0) + 1
        one_author = len(authors) == 1 and "" not in authors
        dates = [commit_date(c) for c in commits]
        head = f"[git log: {len(commits)} commits"
        if one_author:
            head += f" by {next(iter(authors))}"
        if dates[0] and dates[-1]:
            head += f", {time_span(dates[-1], dates[0])}"
        largest = "extreme" in intents_of(inp.query)
        when = asks_when(inp.query)
        lines = inp.text.splitlines()
        kept_of: list[set[int]] = []
        prev_day = None
        for c, date in zip(commits, dates):
            day = _day(date)
            kept_of.append(_kept_lines(c, one_author=one_author, anchors=inp.anchors, largest=largest,
                                       dated=when or day != prev_day))
            prev_day = day
        shown = _shown_commits(commits, kept_of, lines, inp, largest)
        keep = set().union(*(kept_of[k] for k in shown))
        # Lines the header says, left out without a marker: the one author's, and the date
        # lines of commits made on the day of the commit above (the header gives the span;
        # a commit's own time stays when the question asks when).
        said = {c.header_at["Author"] for c in commits if "Author" in c.header_at} if one_author else set()
        said |= {c.header_at[h] for c in commits for h in _DATE_HEADERS if h in c.header_at} - keep
        bounds = [c.line for c in commits] + [len(lines)]
        omitted = [(bounds[k], bounds[k + 1]) for k in range(len(commits)) if k not in shown]
        out = [ln for ln in preamble if ln.strip()] + [head + "]"] + _render(lines, commits[0].line, keep, said, omitted)
        return Compressed(
            text="\n".join(out),
            items_before=len(commits),
            items_after=len(shown),
            strategy="git_log_commits",
            lossy=True,
            summary=" Per-file stats and message bodies left out.",
        )
