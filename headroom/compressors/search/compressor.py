"""SearchCompressor: grep / ripgrep / git grep output (``file:line:content``).

What stays in view, in this order of precedence:

1. the **definition sites** of the searched symbol (:mod:`.symbol` finds the symbol,
   :mod:`.definitions` recognises a definition by the line's shape in its file's
   language), always, within a generous cap;
2. hits that name a selective anchor of the question;
3. a few representative hits: the best of each file (relevance to the question, earlier
   lines on ties), then the best overall, within ``search_max_total`` and
   ``search_max_per_file``.

Everything else is summarised **per file** with its count and line range, in the files'
own order (``… path: 37 more hits (lines 12-940)``), and the retrieval marker says how to
get one file's hits back: ``headroom_retrieve`` with the file path as the query (the CCR
store answers such a query with exactly that file's lines).

Every kept line is an original line: rg's heading mode stays heading mode (the path line,
then the file's own ``12:text`` lines), and a vimgrep column is printed back.
"""

from __future__ import annotations

from ...query.anchors import Anchors
from ...toin import steer as toin_steer
from ..base import Compressed, CompressInput
from ..line_shapes import rare_shape_lines
from ..text import anchored_indices
from .definitions import STRONG, DefinitionFinder, family_of
from .parse import FileHits, Hit, parse_search
from .relevance import bm25_scores
from .symbol import searched_symbols

_MAX_DEFINITIONS = 40  # strong definition lines kept (a symbol defined in 40+ places is a method name)
_MAX_WEAK = 12  # weak ones (assignments, prototypes, enumerators, impl blocks) when no strong one
_MAX_WEAK_BESIDE_STRONG = 4  # ... and beside strong ones, where they are mostly aliases and impls
_MAX_FILE_LINES = 40  # files summarised one line each; the rest one line per directory
_MAX_DIR_LINES = 20
# A hit line longer than this (minified JavaScript, a data file) is kept only as a
# definition or for an anchor, never as a representative hit: it would cost more than the
# rest of the output together.
_MAX_FILLER_CHARS = 400
_COMMON_HIT_SHAPES = 8  # common shapes of hit lines among which a shape of a few hits is rare


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


def definition_hits(matches: list[Hit], symbols: list[str]) -> list[Hit]:
    """The matches that define one of ``symbols``: strong shapes first (at most
    ``_MAX_DEFINITIONS``), then weak ones (``_MAX_WEAK``, fewer beside strong ones), each
    in output order."""
    return [matches[m] for m in definition_indices(matches, symbols)]


def definition_indices(matches: list[Hit], symbols: list[str], spans: list[range] | None = None) -> list[int]:
    """:func:`definition_hits` as positions in ``matches``; ``spans``: where each file's
    matches lie in ``matches``, when the caller knows (a file's language is then looked up
    once per file, not per match)."""
    strong: list[int] = []
    weak: list[int] = []
    keys: list[tuple[str, str] | None] = []
    if spans is not None:
        for span in spans:
            if span:
                fam = family_of(matches[span.start].path)
                # No language: defines nothing.
                keys += [(matches[m].text, fam) for m in span] if fam is not None else [None] * len(span)
    else:
        families: dict[str, str | None] = {}
        for h in matches:
            fam = families.get(h.path, "?")
            if fam == "?":
                fam = families[h.path] = family_of(h.path)
            keys.append(None if fam is None else (h.text, fam))  # no language: defines nothing
    distinct = [k for k in dict.fromkeys(keys) if k is not None]  # a line repeated across files is judged once
    rank_of = dict(zip(distinct, DefinitionFinder(frozenset(symbols)).ranks(distinct))).get
    for m, key in enumerate(keys):
        rank = rank_of(key) if key is not None else None
        if rank is not None:
            (strong if rank == STRONG else weak).append(m)
    return strong[:_MAX_DEFINITIONS] + weak[:_MAX_WEAK_BESIDE_STRONG if strong else _MAX_WEAK]


def anchored_hits(anchors: Anchors, matches: list[Hit], limit: int) -> set[int]:
    """:func:`..text.anchored_indices` of the matches' ``path:line:text`` lines, the same
    set: the lines are lower-cased in one call and each anchor is looked for in all of them
    in one pass, instead of every anchor in every line one line at a time. The line number
    is part of a hit's name: "what overflowed at fees.c:405" names the hit on line 405."""
    lines = [f"{h.path}:{h.line}:{h.text}" if h.line is not None else f"{h.path}:{h.text}" for h in matches]
    lowered = "\n".join(lines).lower().split("\n")
    if len(lowered) != len(lines):  # a line holding a line break: the plain way
        return anchored_indices(anchors, lines, limit)
    out: set[int] = set()
    for term in anchors.terms:
        idx = [i for i, low in enumerate(lowered) if term in low]
        if len(idx) <= limit:
            out.update(idx)
    return out


def _span(hits: list[Hit]) -> str:
    lines = [h.line for h in hits if h.line is not None]
    if not lines:
        return ""
    lo, hi = min(lines), max(lines)
    return f" (line {lo})" if lo == hi else f" (lines {lo}-{hi})"


def _hits_word(n: int) -> str:
    return "hit" if n == 1 else "hits"


def summary_lines(files: list[FileHits], kept: dict[int, list[Hit]],
                  matches: list[list[Hit]] | None = None) -> dict[int, str]:
    """file index -> the line that summarises its hits not in view. Files with nothing
    in view: one line each for the ``_MAX_FILE_LINES`` with most hits; the rest one line per
    directory, under the first of its files (and a last line counting what is left).
    ``matches``: each file's matches (its hits less context lines), when the caller has them."""
    out: dict[int, str] = {}
    unseen: list[int] = []
    if matches is None:
        matches = [[h for h in f.hits if not h.context] for f in files]  # each file's, taken once
    counts = [len(fm) for fm in matches]
    for i, f in enumerate(files):
        fm = matches[i]
        k = len(kept.get(i, ()))
        if k and k < len(fm):
            seen = {id(h) for h in kept[i]}
            rest = [h for h in fm if id(h) not in seen]
            out[i] = f"… {f.path}: {len(rest)} more {_hits_word(len(rest))}{_span(rest)}"
        elif not k:
            unseen.append(i)

    n_of = counts.__getitem__
    listed = set(sorted(unseen, key=lambda i: (-n_of(i), i))[:_MAX_FILE_LINES])
    for i in listed:
        fm = matches[i]
        out[i] = f"… {files[i].path}: {len(fm)} {_hits_word(len(fm))}{_span(fm)}"
    by_dir: dict[str, list[int]] = {}
    for i in unseen:
        if i not in listed:
            by_dir.setdefault(files[i].path.rsplit("/", 1)[0] + "/" if "/" in files[i].path else "./", []).append(i)
    for d, idx in list(by_dir.items())[:_MAX_DIR_LINES]:
        n = sum(n_of(i) for i in idx)
        out[idx[0]] = f"… {d}: {n} {_hits_word(n)} in {len(idx)} more files" if len(idx) > 1 else \
            f"… {files[idx[0]].path}: {n} {_hits_word(n)}{_span(matches[idx[0]])}"
    rest = list(by_dir.items())[_MAX_DIR_LINES:]
    if rest:
        n = sum(n_of(i) for _, idx in rest for i in idx)
        last = max(i for _, idx in rest for i in idx)
        out[last] = f"… and {n} {_hits_word(n)} in {sum(len(idx) for _, idx in rest)} files under " \
                    f"{len(rest)} more directories"
    return out


class SearchCompressor:
    name = "search"

    def compress(self, inp: CompressInput) -> Compressed | None:
        files, other = parse_search(inp.text)
        # Context lines ride along with the matches they surround; they are not items.
        # A match is known by its position in ``matches``; each file holds a run of them.
        matches: list[Hit] = []
        spans: list[range] = []
        for f in files:
            start = len(matches)
            matches += [h for h in f.hits if not h.context]
            spans.append(range(start, len(matches)))
        if len(matches) < 2 or other > len(matches):
            return None  # not really search output
        cfg = inp.config.router
        scale = 1.5 - min(1.0, max(0.0, float(inp.aggressiveness)))
        per_file = max(1, round(cfg.search_max_per_file * scale))
        total = toin_steer.budget(inp.toin, max(1, round(cfg.search_max_total * scale)))  # learned (headroom.toin)

        texts = [h.text for h in matches]
        symbols = searched_symbols(inp.tool_arguments, inp.query, texts)
        defs = definition_indices(matches, symbols, spans) if symbols else []

        # Grep output repeats the same line content across files (every call site of a
        # function reads alike); score each distinct content once.
        # Lines too long to be filler are not scored (tokenizing minified bundles was most of
        # the cost of a JavaScript search); they count as 0.
        unique = dict.fromkeys(texts)
        distinct = [t for t in unique if len(t) <= _MAX_FILLER_CHARS]
        scores = bm25_scores(inp.query, distinct) if inp.relevance is None else inp.relevance_scores(distinct)
        score_of = dict(zip(distinct, scores)).get
        # No anchors, nothing anchored: the "path:text" strings are not built at all.
        anchored = anchored_hits(inp.anchors, matches, total) if inp.anchors else set()

        # Per file: its matches keyed best first (anchored, then relevance, then line order),
        # the file's index, then the match's position; the keys before the position are
        # unique, so no two entries ever tie.
        ranked: list[list[tuple[bool, float, int, int, int]]] = []
        neg_score = [-score_of(t, 0.0) for t in texts]
        some_too_long = len(distinct) < len(unique)  # else every match may be filler
        for i, span in enumerate(spans):
            fm = [m for m in span if m in anchored or len(texts[m]) <= _MAX_FILLER_CHARS] if some_too_long else span
            ranked.append([(m not in anchored, neg_score[m], k, i, m) for k, m in enumerate(fm)])

        # Definitions always stay, outside the caps (but they use up the total); anchored
        # matches always stay too, inside the total cap. Then one match per file (best files first), then the best remaining
        # matches overall, within both caps.
        # Definitions also take the place of filler: with many of them (a struct defined
        # per platform) the representative hits would only repeat what they show.
        # Hits of a rare shape among hits of a few common ones (a sanitizer's one negation among
        # a hundred and sixty overflows, all "path:line:col: runtime error: …") stay too.
        odd = rare_shape_lines(texts, _COMMON_HIT_SHAPES) - anchored - set(defs)
        chosen: set[int] = anchored | set(defs) | odd
        filled = len(anchored) + len(defs) + len(odd)
        per_count = [sum(1 for e in hs if e[4] in chosen) for hs in ranked] if chosen else [0] * len(ranked)
        best = [min(hs) if hs else None for hs in ranked]
        file_order = sorted(b[:2] + (i,) for i, b in enumerate(best) if b is not None)
        for *_, i in file_order:
            if filled >= total:
                break
            if per_count[i] == 0:
                chosen.add(best[i][4])
                per_count[i] += 1
                filled += 1
        if filled < total:
            # The best remaining matches overall, at most a file's remaining share of each:
            # the first of them in one sort of each file's best remaining ones (what merging
            # the files' sorted lists, a file leaving at its cap, takes in turn).
            pool: list[tuple[bool, float, int, int, int]] = []
            for i, hs in enumerate(ranked):
                room = per_file - per_count[i]
                if room > 0:
                    pool += sorted(e for e in hs if e[4] not in chosen)[:room]
            pool.sort()
            chosen.update(e[4] for e in pool[:total - filled])
        if len(chosen) >= len(matches):
            return None
        # Without context lines (grep -n, rg -n) a file shows exactly its chosen matches.
        plain = len(matches) == sum(len(f.hits) for f in files)

        kept: dict[int, list[Hit]] = {}
        for i, span in enumerate(spans):
            k = [matches[m] for m in span if m in chosen]
            if k:
                kept[i] = k
        summaries = summary_lines(files, kept, [matches[span.start:span.stop] for span in spans])
        chosen_ids = None if plain else {id(matches[m]) for m in chosen}
        out: list[str] = []
        for i, f in enumerate(files):
            if i in kept:
                shown = kept[i] if plain else _with_context(f.hits, chosen_ids)
                heading = shown[0].heading
                if heading:  # rg --heading: the path line, then the file's own "12:text" lines
                    out.append(f.path)
                out.extend(h.render() for h in shown)
            if i in summaries:
                out.append(summaries[i])
            if i in kept and heading:
                out.append("")
        while out and not out[-1]:
            out.pop()
        n_defs = len(defs)
        what = f"{len(chosen)} of {len(matches)} hits in view, in {len(kept)} of {len(files)} files"
        if symbols and n_defs:
            what += f"; {n_defs} definition {'line' if n_defs == 1 else 'lines'} of {symbols[0]} kept"
        what += "; the rest counted per file. One file's hits: headroom_retrieve with query=<its path>"
        return Compressed(
            text="\n".join(out),
            items_before=len(matches),
            items_after=len(chosen),
            strategy="search_definitions_per_file",
            lossy=True,
            summary=what,
        )
