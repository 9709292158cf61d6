"""DiffCompressor: unified diffs (``git diff``, ``diff -u``).

Every file header and every added/removed line is kept; unchanged context is trimmed to
``diff_context_lines`` around each change, and a hunk whose context gap is trimmed is
split into smaller hunks with recomputed ``@@ -a,b +c,d @@`` headers, so the output is
still a valid unified diff (``git apply`` accepts it with reduced context). Generated and
lock files (package-lock.json, *.lock, *.min.js, vendored trees, …) with large changes
collapse to a one-line stat. A ``--stat``-like header gives per-file +/- counts (the
largest files when there are many). ``index <blob>..<blob>`` lines are dropped: blob
hashes cost tokens and answer nothing an agent asks (the original stays in CCR).

A large diff (``_BUDGET_MIN_TOKENS`` and up) keeps every file header and a per-file
count of its hunks, but only as many (context-trimmed) hunk bodies as fit a budget of
``_BODY_SHARE`` of its tokens: hunks naming something the question names first, then one
hunk per file in turn, so every touched file shows some of its change. The omitted hunks
are listed by their new-side line numbers and +/- counts; the original is in CCR.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import translate

from .base import Compressed, CompressInput

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_GENERATED = (
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "*.lock", "go.sum",
    "*.min.js", "*.min.css", "*.map", "*_pb2.py", "*.pb.go", "*.snap", "*.generated.*",
    "vendor/*", "*/vendor/*", "node_modules/*", "*/node_modules/*", "third_party/*", "dist/*",
)
# The globs as one case-sensitive regex (fnmatchcase semantics): one match per path, not
# one per pattern.
_GENERATED_RE = re.compile("|".join(f"(?:{translate(p)})" for p in _GENERATED))
# A generated file with at most this many changed lines is shown normally.
_GENERATED_MIN_CHANGES = 30
# The stat header lists at most this many files (largest first); it repeats what the
# hunks show, so on a 100-file diff a full list would cost more than it tells.
_STAT_MAX_FILES = 12
# Diffs at least this large get a hunk-body budget; below it every change is shown.
_BUDGET_MIN_TOKENS = 3000
# Share of the diff's tokens spent on hunk bodies in budget mode (headers come on top).
_BODY_SHARE = 0.10
# Line numbers of omitted hunks listed per file before the rest is only counted.
_OMITTED_LINES_LISTED = 8


@dataclass
class Hunk:
    old_start: int
    new_start: int
    section: str
    lines: list[str] = field(default_factory=list)


@dataclass
class FileDiff:
    header: list[str] = field(default_factory=list)
    hunks: list[Hunk] = field(default_factory=list)
    path: str = ""

    @property
    def added(self) -> int:
        return sum(1 for h in self.hunks for ln in h.lines if ln.startswith("+"))

    @property
    def removed(self) -> int:
        return sum(1 for h in self.hunks for ln in h.lines if ln.startswith("-"))


def _path_from_header(line: str) -> str | None:
    if line.startswith("diff --git "):
        parts = line.split(" b/", 1)
        return parts[1].strip() if len(parts) == 2 else None
    if line.startswith(("+++ ", "--- ")):
        p = line[4:].split("\t")[0].strip()
        if p == "/dev/null":
            return None
        return p[2:] if p.startswith(("a/", "b/")) else p
    return None


def parse_diff(text: str) -> tuple[list[str], list[FileDiff]]:
    """Preamble lines (e.g. a commit message) and the files of a unified diff.

    A hunk's body is exactly as long as its header's line counts say, so a removed line
    that happens to start with "--- " is never mistaken for a new file header.
    """
    preamble: list[str] = []
    files: list[FileDiff] = []
    cur: FileDiff | None = None
    hunk: Hunk | None = None
    old_left = new_left = 0
    for line in text.splitlines():
        tag = line[:1]
        if hunk is not None and (old_left > 0 or new_left > 0) and tag in (" ", "+", "-", ""):
            hunk.lines.append(line)
            if tag in (" ", ""):
                old_left, new_left = old_left - 1, new_left - 1
            elif tag == "-":
                old_left -= 1
            else:
                new_left -= 1
            continue
        if hunk is not None and tag == "\\":
            hunk.lines.append(line)
            continue
        m = _HUNK.match(line)
        if m and cur is not None:
            hunk = Hunk(int(m[1]), int(m[3]), m[5])
            old_left = int(m[2]) if m[2] is not None else 1
            new_left = int(m[4]) if m[4] is not None else 1
            cur.hunks.append(hunk)
            continue
        hunk = None
        if line.startswith("diff --git ") or (line.startswith("--- ") and (cur is None or cur.hunks)):
            cur = FileDiff(header=[line])
            files.append(cur)
        elif cur is None:
            preamble.append(line)
        elif cur.hunks:
            # Text after a file's hunks that is not diff syntax (a second commit's
            # message, say): kept in place as a header-only pseudo-file.
            cur = FileDiff(header=[line])
            files.append(cur)
        else:
            cur.header.append(line)
        if cur is not None and not cur.path:
            cur.path = _path_from_header(line) or ""
    return preamble, files


def _is_generated(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return _GENERATED_RE.match(path) is not None or _GENERATED_RE.match(name) is not None


def trim_hunk(h: Hunk, context: int) -> list[Hunk]:
    """Split ``h`` into hunks that keep only ``context`` unchanged lines around changes."""
    changed = [i for i, ln in enumerate(h.lines) if ln[:1] in ("+", "-")]
    if not changed:
        return []
    keep = [False] * len(h.lines)
    for i in changed:
        for k in range(max(0, i - context), min(len(h.lines), i + context + 1)):
            keep[k] = True
    # "\ No newline at end of file" belongs to the line above it.
    for i, ln in enumerate(h.lines):
        if ln.startswith("\\") and i > 0 and keep[i - 1]:
            keep[i] = True
    out: list[Hunk] = []
    # Track the number of the next line on each side. A side with no lines in the hunk
    # names the line *before* the change in its header ("@@ -0,0 +1 @@"), so it is one less.
    old = h.old_start if any(ln[:1] in (" ", "-", "") for ln in h.lines) else h.old_start + 1
    new = h.new_start if any(ln[:1] in (" ", "+", "") for ln in h.lines) else h.new_start + 1
    cur: Hunk | None = None
    for i, ln in enumerate(h.lines):
        tag = ln[:1]
        if keep[i]:
            if cur is None:
                cur = Hunk(old, new, h.section if not out else "")
                out.append(cur)
            cur.lines.append(ln)
        else:
            cur = None
        if tag in (" ", ""):
            old += 1
            new += 1
        elif tag == "-":
            old += 1
        elif tag == "+":
            new += 1
    return out


def _useful_header(header: list[str]) -> list[str]:
    return [ln for ln in header if not ln.startswith("index ")]


def render_hunk(h: Hunk) -> list[str]:
    old_n = sum(1 for ln in h.lines if ln[:1] in (" ", "-", ""))
    new_n = sum(1 for ln in h.lines if ln[:1] in (" ", "+", ""))
    # Unified-diff convention: an empty side starts one line earlier.
    old_s = h.old_start if old_n else h.old_start - 1
    new_s = h.new_start if new_n else h.new_start - 1
    return [f"@@ -{old_s},{old_n} +{new_s},{new_n} @@{h.section}", *h.lines]


def _changes(lines: list[str]) -> tuple[int, int]:
    return (sum(1 for ln in lines if ln.startswith("+")), sum(1 for ln in lines if ln.startswith("-")))


def choose_hunks(files: list[FileDiff], pieces: list[list[list[Hunk]]], inp: CompressInput,
                 budget: int) -> set[tuple[int, int]]:
    """(file, hunk) pairs whose bodies fit ``budget`` tokens: hunks of a file the question
    names or naming a question anchor themselves first, then round-robin over the files
    in hunk order."""
    # Token costs estimated from characters (the diff's own count is known): counting
    # thousands of hunks one by one cost more than the rest of the compression.
    per_char = inp.text_tokens() / max(1, len(inp.text))
    cost = {(fi, hi): round(per_char * sum(len(ln) + 1 for p in ps for ln in render_hunk(p)))
            for fi, per_file in enumerate(pieces) for hi, ps in enumerate(per_file)}
    anchored = [(fi, hi) for fi, f in enumerate(files) for hi, h in enumerate(f.hunks)
                if inp.anchors and _names(inp.anchors, f, h)]
    order = list(anchored)
    depth = 0
    while True:
        layer = [(fi, depth) for fi, f in enumerate(files) if depth < len(f.hunks)]
        if not layer:
            break
        order.extend(layer)
        depth += 1
    chosen: set[tuple[int, int]] = set()
    used = 0
    for key in order:
        if key in chosen or not cost[key]:
            continue
        if used + cost[key] > budget and key not in anchored:
            continue
        chosen.add(key)
        used += cost[key]
    return chosen


def _names(anchors, f: FileDiff, h: Hunk) -> bool:
    """The question names the file, or something in the hunk (one lower-casing per hunk)."""
    return anchors.matches(f.path) or anchors.matches(h.section) or anchors.matches("\n".join(h.lines))


def omitted_line(hunks: list[Hunk]) -> str:
    added = sum(_changes(h.lines)[0] for h in hunks)
    removed = sum(_changes(h.lines)[1] for h in hunks)
    at = ", ".join(str(h.new_start) for h in hunks[:_OMITTED_LINES_LISTED])
    if len(hunks) > _OMITTED_LINES_LISTED:
        at += ", …"
    return f"@@ {len(hunks)} more hunk{'s' if len(hunks) != 1 else ''} not shown: +{added} -{removed} (at +{at}) @@"


class DiffCompressor:
    name = "diff"

    def compress(self, inp: CompressInput) -> Compressed | None:
        preamble, files = parse_diff(inp.text)
        hunks_before = sum(len(f.hunks) for f in files)
        if not hunks_before:
            return None
        context = inp.config.router.diff_context_lines
        tokens = inp.text_tokens()
        chosen: set[tuple[int, int]] | None = None
        pieces = [[trim_hunk(h, context) for h in f.hunks] for f in files]
        if tokens >= _BUDGET_MIN_TOKENS:
            chosen = choose_hunks(files, pieces, inp, int(tokens * _BODY_SHARE))
        out: list[str] = list(preamble)
        stat: list[tuple[int, str]] = []  # (changed lines, stat line)
        hunks_after = 0
        collapsed = 0
        changed_anything = False
        omitted_hunks = 0
        for fi, f in enumerate(files):
            added, removed = f.added, f.removed
            name = f.path or (f.header[0] if f.header else "?")
            anchored = bool(inp.anchors) and any(inp.anchors.matches("\n".join(h.lines)) for h in f.hunks)
            if f.hunks and _is_generated(f.path) and added + removed > _GENERATED_MIN_CHANGES and not anchored:
                out.extend(_useful_header(f.header))
                out.append(f"… {len(f.hunks)} hunk{'s' if len(f.hunks) != 1 else ''} collapsed (generated/lock file): +{added} -{removed} lines")
                stat.append((added + removed, f" {name} | +{added} -{removed} (collapsed)"))
                collapsed += 1
                changed_anything = True
                continue
            header = _useful_header(f.header)
            changed_anything |= len(header) != len(f.header)
            out.extend(header)
            skipped: list[Hunk] = []
            for hi, h in enumerate(f.hunks):
                if chosen is not None and (fi, hi) not in chosen:
                    skipped.append(h)
                    continue
                if skipped:
                    out.append(omitted_line(skipped))
                    omitted_hunks += len(skipped)
                    skipped = []
                kept = pieces[fi][hi]
                if len(kept) != 1 or len(kept[0].lines) != len(h.lines):
                    changed_anything = True
                for p in kept:
                    out.extend(render_hunk(p))
                hunks_after += len(kept)
            if skipped:
                out.append(omitted_line(skipped))
                omitted_hunks += len(skipped)
                changed_anything = True
            if f.hunks:
                stat.append((added + removed, f" {name} | +{added} -{removed}"))
        if not changed_anything:
            return None
        total_add = sum(f.added for f in files)
        total_rem = sum(f.removed for f in files)
        shown = sorted(range(len(stat)), key=lambda k: (-stat[k][0], k))[:_STAT_MAX_FILES]
        header = [(f"[diff: {len(stat)} files, +{total_add} -{total_rem}; context trimmed to {context} "
                   f"line{'s' if context != 1 else ''}"
                   + (f"; {omitted_hunks} of {hunks_before} hunks not shown" if omitted_hunks else "") + "]")]
        header += [stat[k][1] for k in sorted(shown)]
        if len(stat) > len(shown):
            header.append(f" … and {len(stat) - len(shown)} more files")
        summary = f"{len(stat)} files, +{total_add} -{total_rem}"
        if omitted_hunks:
            summary += f", {omitted_hunks} hunks not shown"
        if collapsed:
            summary += f", {collapsed} generated file{'s' if collapsed != 1 else ''} collapsed"
        return Compressed(
            text="\n".join(header + out),
            items_before=hunks_before,
            items_after=hunks_after,
            strategy="diff_trim_context",
            lossy=True,
            summary=summary,
        )
