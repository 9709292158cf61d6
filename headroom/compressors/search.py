"""SearchCompressor: grep / ripgrep output (``file:line:content``).

Matches are grouped by file. Each file keeps its best matches (relevance to the question,
anchors always kept, earlier lines on ties), the whole result keeps at most
``search_max_total`` matches with every file represented while room lasts, and what was
dropped is listed per file, so the model knows where else to look.

Accepted shapes: ``path:12:text`` (grep -n, rg), ``path:12-text`` (context lines),
``path:text`` (no line numbers), and rg's heading mode (a path line, then ``12:text``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..toin import steer as toin_steer
from .base import Compressed, CompressInput
from .text import anchored_indices

# A path: no spaces, has a dot-extension or a slash, no leading colon.
_WITH_LINE = re.compile(r"^(?P<path>[^\s:][^:\n]*?):(?P<line>\d+)(?P<sep>[:-])(?P<text>.*)$")
_NO_LINE = re.compile(r"^(?P<path>[^\s:]+?\.[A-Za-z0-9_]{1,10}|[^\s:]*/[^\s:]+):(?P<text>.*)$")
_HEADING_HIT = re.compile(r"^(?P<line>\d+)(?P<sep>[:-])(?P<text>.*)$")
_HEADING_PATH = re.compile(r"^[^\s:]*(?:/|\.[A-Za-z0-9_]{1,10}$)[^\s:]*$")
_MAX_FILES_LISTED = 15  # dropped-files list beyond this becomes a count


@dataclass
class Hit:
    path: str
    line: int | None
    text: str
    context: bool = False  # a ``-`` context line, not a match

    def render(self) -> str:
        if self.line is None:
            return f"{self.path}:{self.text}"
        return f"{self.path}:{self.line}{'-' if self.context else ':'}{self.text}"


@dataclass
class FileHits:
    path: str
    hits: list[Hit] = field(default_factory=list)


def parse_search(text: str) -> tuple[list[FileHits], int]:
    """Files in first-seen order, and the number of lines that were not hits."""
    files: dict[str, FileHits] = {}
    heading: str | None = None
    other = 0
    for raw in text.splitlines():
        if not raw.strip() or raw == "--":
            heading = None if not raw.strip() else heading
            continue
        hit = None
        m = _WITH_LINE.match(raw)
        if m and (heading is None or not _HEADING_HIT.match(raw)):
            hit = Hit(m["path"], int(m["line"]), m["text"], m["sep"] == "-")
        elif heading is not None and (m := _HEADING_HIT.match(raw)):
            hit = Hit(heading, int(m["line"]), m["text"], m["sep"] == "-")
        elif (m := _NO_LINE.match(raw)) is not None:
            hit = Hit(m["path"], None, m["text"])
        elif _HEADING_PATH.match(raw.strip()):
            heading = raw.strip()
            continue
        if hit is None:
            other += 1
            continue
        files.setdefault(hit.path, FileHits(hit.path)).hits.append(hit)
    return list(files.values()), other


def _with_context(hits: list[Hit], chosen: set[int]) -> list[Hit]:
    """Chosen matches in order, each with the context lines (``rg -C``) around it.

    A context line belongs to a match when it is in the same unbroken run of line
    numbers; context around dropped matches goes with them.
    """
    out: list[Hit] = []
    run: list[Hit] = []

    def flush() -> None:
        if any(not h.context and id(h) in chosen for h in run):
            out.extend(h for h in run if h.context or id(h) in chosen)

    for h in hits:
        if run and (h.line is None or run[-1].line is None or h.line != run[-1].line + 1):
            flush()
            run = []
        run.append(h)
    flush()
    return out


class SearchCompressor:
    name = "search"

    def compress(self, inp: CompressInput) -> Compressed | None:
        files, other = parse_search(inp.text)
        # Context lines ride along with the matches they surround; they are not items.
        matches = [h for f in files for h in f.hits if not h.context]
        if len(matches) < 2 or other > len(matches):
            return None  # not really search output
        cfg = inp.config.router
        scale = 1.5 - min(1.0, max(0.0, float(inp.aggressiveness)))
        per_file = max(1, round(cfg.search_max_per_file * scale))
        total = toin_steer.budget(inp.toin, max(1, round(cfg.search_max_total * scale)))  # learned (headroom.toin)

        # Grep output repeats the same line content across files (every call site of a
        # function reads alike); score each distinct content once.
        distinct = list(dict.fromkeys(h.text for h in matches))
        by_text = dict(zip(distinct, inp.relevance_scores(distinct)))
        score_of = {id(h): by_text[h.text] for h in matches}
        anchored = {id(matches[i]) for i in anchored_indices(inp.anchors, [f"{h.path}:{h.text}" for h in matches], total)}

        # Per file: its matches best first (anchored, then relevance, then line order).
        ranked: list[list[tuple[tuple, Hit]]] = []
        for f in files:
            fm = [h for h in f.hits if not h.context]
            ranked.append(sorted((((id(h) not in anchored, -score_of[id(h)], k), h) for k, h in enumerate(fm)),
                                 key=lambda kh: kh[0]))

        # Anchored matches always stay. Then one match per file (best files first), then
        # the best remaining matches overall, within both caps.
        chosen: set[int] = set(anchored)
        per_count = [sum(1 for _, h in hs if id(h) in anchored) for hs in ranked]
        file_order = sorted((hs[0][0][:2] + (i,) for i, hs in enumerate(ranked) if hs))
        for *_, i in file_order:
            if len(chosen) >= total:
                break
            if per_count[i] == 0:
                chosen.add(id(ranked[i][0][1]))
                per_count[i] += 1
        if len(chosen) < total:
            pool = sorted((key + (i,), h) for i, hs in enumerate(ranked) for key, h in hs if id(h) not in chosen)
            for key, h in pool:
                if len(chosen) >= total:
                    break
                i = key[-1]
                if per_count[i] < per_file:
                    chosen.add(id(h))
                    per_count[i] += 1
        if len(chosen) >= len(matches):
            return None

        out: list[str] = []
        dropped_files: list[tuple[str, int]] = []
        for f in files:
            fm = [h for h in f.hits if not h.context]
            kept = [h for h in fm if id(h) in chosen]
            if not kept:
                dropped_files.append((f.path, len(fm)))
                continue
            out.extend(h.render() for h in _with_context(f.hits, chosen))
            if len(kept) < len(fm):
                out.append(f"  … +{len(fm) - len(kept)} more in this file")
        if dropped_files:
            shown = ", ".join(f"{p} ({n})" for p, n in dropped_files[:_MAX_FILES_LISTED])
            more = len(dropped_files) - _MAX_FILES_LISTED
            tail = f", and {more} more files" if more > 0 else ""
            out.append(f"… {sum(n for _, n in dropped_files)} matches in {len(dropped_files)} other files: {shown}{tail}")
        n_files_kept = len(files) - len(dropped_files)
        return Compressed(
            text="\n".join(out),
            items_before=len(matches),
            items_after=len(chosen),
            strategy="search_top_per_file",
            lossy=True,
            summary=f"{len(chosen)} of {len(matches)} matches in {n_files_kept} of {len(files)} files kept",
        )
