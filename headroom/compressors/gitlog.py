"""GitLogCompressor: ``git log`` output (with or without ``--stat`` / ``--summary``).

A commit is read by its structure — the ``commit <hash>`` line, ``Author:``/``Date:``
(and ``Merge:``) headers, the indented message, the per-file ``--stat`` lines, the totals
line and the ``--summary`` lines (create/delete mode, rename, mode change). What stays in
view for every commit: an abbreviated hash (still unique in this log), its date, the
subject line verbatim, the totals (as counts; verbatim, with the whole hash, for a commit
whose path the question names or whose size it asks the extreme of), every created/deleted/renamed path
(capped per commit, the rest counted) and the largest file it touched. An author shared
by every commit is said once. Per-file stat lines beyond the largest, message bodies and
the ``+++---`` bars are summarised (counts), except lines naming something the question
names. The exact original goes to CCR, so nothing is lost.

``--name-status`` and ``--name-only`` lines are read the same way: added, deleted and
renamed paths join the created/deleted/renamed lists, modified ones are counted.

``git log -p`` (patches) is a diff and goes to the diff compressor instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from ..query.intent import intents_of
from .base import Compressed, CompressInput

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

    @property
    def subject(self) -> str:
        return next((m.strip() for m in self.message if m.strip()), "")


def parse_git_log(text: str) -> tuple[list[str], list[Commit]]:
    """Lines before the first commit, and the commits (None of their lines is dropped:
    each lands in exactly one field)."""
    preamble: list[str] = []
    commits: list[Commit] = []
    cur: Commit | None = None
    for line in text.splitlines():
        m = COMMIT_LINE.match(line)
        if m:
            cur = Commit(m[1], m[2])
            commits.append(cur)
            continue
        if cur is None:
            preamble.append(line)
            continue
        if not line.strip():
            continue
        if cur.notes and line.startswith("    "):
            cur.notes.append(line)
            continue
        if _NOTES.match(line):
            cur.notes.append(line)
            continue
        h = _HEADER.match(line)
        if h and not cur.message and not cur.stats:
            cur.headers[h[1]] = h[2]
        elif line.startswith("    "):
            cur.message.append(line[4:])
        elif (s := _STAT.match(line)) is not None:
            cur.stats.append((s[1] or s[3], int(s[2] or 0), line))
        elif _TOTALS.match(line):
            cur.totals = line.strip()
        elif (s := _SUMMARY.match(line)) is not None:
            kind = s[1] or s[3] or "mode change"
            cur.summary.append((kind, s[2] or s[4] or s[5], line))
        elif (s := _NAME_STATUS.match(line)) is not None:
            _name_status(cur, s, line)
        elif cur.message and _NAME_ONLY.match(line):
            cur.stats.append((line, -1, line))  # --name-only: a path, size unknown
        else:
            cur.other.append(line)
    return preamble, commits


def _name_status(c: Commit, m: re.Match, line: str) -> None:
    status, path, new = m[1], m[3], m[4]
    if status == "A":
        c.summary.append(("create", path, line))
    elif status == "D":
        c.summary.append(("delete", path, line))
    elif status in "RC" and new:
        c.summary.append(("rename" if status == "R" else "copy", f"{path} => {new}", line))
    else:
        c.stats.append((path, -1, line))  # modified: size unknown


def _short_hashes(commits: list[Commit]) -> list[str]:
    """Hashes cut to 7 hex digits (git's own default abbreviation; git accepts any
    unique prefix), longer where two commits of this log would share one."""
    n = _SHORT_HASH
    while n < 64 and len({c.hash[:n] for c in commits}) < len({c.hash for c in commits}):
        n += 2
    return [c.hash[:n] for c in commits]


def _paths_line(kind: str, paths: list[str], anchored: set[str]) -> str:
    shown = [p for p in paths if p in anchored]
    shown += [p for p in paths if p not in anchored][: max(0, _PATHS_PER_COMMIT - len(shown))]
    order = {p: i for i, p in enumerate(paths)}
    shown.sort(key=order.__getitem__)
    more = len(paths) - len(shown)
    return f" {kind}: {', '.join(fold_dirs(shown, anchored))}" + (f" (+{more} more)" if more else "")


def fold_dirs(paths: list[str], keep: set[str] = frozenset()) -> list[str]:
    """Consecutive paths in one directory written once, the shell's brace form:
    "lib/{argument.js,command.js}" for "lib/argument.js, lib/command.js". Paths in
    ``keep`` (named by the question) and rename lines ("{a => b}") stay whole."""
    out: list[str] = []
    j = 0
    while j < len(paths):
        p = paths[j]
        head, sep, _ = p.rpartition("/")
        end = j + 1
        if sep and p not in keep and "{" not in p:
            while (end < len(paths) and paths[end] not in keep and "{" not in paths[end]
                   and paths[end].rpartition("/")[0] == head and "/" in paths[end]):
                end += 1
        if end - j < 2:
            out.append(p)
        else:
            out.append(f"{head}/{{{','.join(q[len(head) + 1:] for q in paths[j:end])}}}")
        j = end
    return out


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


def _totals(c: Commit) -> str:
    m = _TOTAL_NUMBERS.match(c.totals)
    if not m:
        return c.totals
    return f"{m[1]} file{'s' if m[1] != '1' else ''} +{m[2] or 0} -{m[3] or 0}"


def commit_date(c: Commit) -> str:
    return short_date(c.headers.get("Date") or c.headers.get("AuthorDate") or "")


def _asked(c: Commit, anchors) -> bool:
    """The question names a path this commit created, deleted, renamed or changed."""
    if not anchors:
        return False
    return (any(anchors.matches(p) for _, p, _ in c.summary) or any(anchors.matches(p) for p, _, _ in c.stats))


def _extreme_commits(commits: list[Commit]) -> set[int]:
    """Positions of the commits with the most files, insertions and deletions."""
    numbers = [_TOTAL_NUMBERS.match(c.totals.strip()) for c in commits]
    out: set[int] = set()
    for group in (1, 2, 3):
        values = [int(m[group] or 0) if m else -1 for m in numbers]
        if values and max(values) > 0:
            out.add(values.index(max(values)))
    return out


def render_commit(c: Commit, short: str, day: str, *, show_author: bool, anchors, largest: bool,
                  full: bool = False) -> list[str]:
    """One line per commit (hash, day, subject, totals) and the lines that say which
    paths it created, deleted or renamed. ``day`` is empty when it repeats the previous
    commit's (the header gives the exact first and last times). A ``full`` commit (one the
    question names or asks the extreme of) keeps its whole hash and its totals line as git
    wrote it: the answer is quoted from it, and a prefix or a rewrite is not a quote."""
    head = f"{c.hash if full else short}{c.decoration}"
    if "Merge" in c.headers:
        head += f" (merge of {c.headers['Merge']})"
    if day:
        head += f" {day}"
    if show_author and "Author" in c.headers:
        head += f" <{c.headers['Author'].split(' <')[0]}>"
    body = [m for m in c.message if m.strip()]
    head += f" {body[0].strip()}" if body else ""
    if c.totals:
        head += f" | {c.totals.strip() if full else _totals(c)}"
    elif c.stats or c.summary:  # --name-status / --name-only: no totals line, count the files
        files = len(c.stats) + len(c.summary)
        head += f" | {files} file{'s' if files != 1 else ''}"
    out = [head]
    # A commit the question names by its subject ("the commit 'fix the cache, step 12'")
    # shows its whole message; others the lines the question names.
    rest = body[1:] if body and anchors.matches(body[0]) else [m for m in body[1:] if anchors.matches(m)]
    out.extend(f"    {m}" for m in rest)
    if len(body) - 1 > len(rest):
        out.append(f"    (+{len(body) - 1 - len(rest)} more message lines)")
    # The largest file when the question asks for extremes, and any file it names.
    shown = [k for k, s in enumerate(c.stats) if anchors.matches(s[0])]
    if largest and c.stats and max(n for _, n, _ in c.stats) >= 0:
        shown.append(max(range(len(c.stats)), key=lambda k: (c.stats[k][1], -k)))
    for k in sorted(set(shown)):
        path, n, line = c.stats[k]
        out.append(f" {path} | {n}" if n >= 0 else line)
    by_kind: dict[str, list[str]] = {}
    for kind, path, _ in c.summary:
        by_kind.setdefault(kind, []).append(path)
    anchored = {p for _, p, _ in c.summary if anchors.matches(p)}
    for kind, paths in by_kind.items():
        label = {"create": "created", "delete": "deleted", "rename": "renamed", "copy": "copied"}.get(kind, kind)
        out.append(_paths_line(label, paths, anchored))
    out.extend(c.other)
    # Notes are what a reviewer or a deploy attached to this commit alone: in view, as
    # git prints them, up to a few lines each.
    out.extend(c.notes[:_NOTE_LINES + 1])
    if len(c.notes) > _NOTE_LINES + 1:
        out.append(f"    (+{len(c.notes) - _NOTE_LINES - 1} more note lines)")
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
        out = [ln for ln in preamble if ln.strip()] + [head + "]"]
        largest = "extreme" in intents_of(inp.query)
        extremes = _extreme_commits(commits) if largest else set()
        prev_day = None
        for k, (c, short, date) in enumerate(zip(commits, _short_hashes(commits), dates)):
            day = _day(date)
            out.extend(render_commit(c, short, day if day != prev_day else "", show_author=not one_author,
                                     anchors=inp.anchors, largest=largest,
                                     full=k in extremes or _asked(c, inp.anchors)))
            prev_day = day
        return Compressed(
            text="\n".join(out),
            items_before=len(commits),
            items_after=len(commits),
            strategy="git_log_commits",
            lossy=True,
            summary=" Per-file stats and message bodies summarised.",
        )
