"""TextCrusher: extractive compression of prose (docs, READMEs, web pages as text).

The text is split into paragraphs and sentences (headings and list items are units of
their own). Near-identical sentences are dropped after their first occurrence. Each
sentence is scored by relevance to the question (BM25 unless the pipeline supplies an
embedding scorer), position (the opening and the end of the document, the first sentence
of a paragraph), and content that agents ask about (numbers, error words). Sentences
naming an anchor are always kept. The best sentences are kept, in original order, until
``text_target_ratio`` of the tokens is reached (each sentence's tokens estimated from its
words and symbols); a dropped stretch shows as "…".

Nothing is paraphrased: every kept sentence is the original's bytes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import repeat

from .base import Compressed, CompressInput
from .bm25_fast import alnum_runs, bm25_scores
from .kv_extremes import extreme_lines

_MIN_UNITS = 6  # fewer sentences than this: nothing worth selecting
_NEAR_WINDOW = 32  # near-duplicate check against this many previous units (exact: all)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n+")
# A sentence ends at . ! ? (optionally closed by a quote/bracket) before whitespace and
# an upper-case letter, digit or opening quote. Abbreviations like "e.g. the" do not
# split because the next word is lower-case.
# The end mark is matched (and captured, to be put back) rather than looked behind for:
# a pattern that starts with a character set is searched for by the regex engine's fast
# scan, a look-behind is tried at every position.
_SENTENCE_END = re.compile(r"([.!?])[\"')\]]?\s+(?=[A-Z0-9\"'(\[])")
# Possessive: no alternative starts with a space, so giving back leading spaces can never
# make a line match (backtracking through a man page's deep indents cost 4x).
# The indent is taken whole, as a possessive ``\s*+`` would (Python 3.11+; the package
# supports 3.10): a lookahead captures it and the backreference consumes it, so a line
# that is no unit fails once instead of backtracking through a man page's deep indent.
_LINE_UNIT = re.compile(r"^(?=(\s*))\1(?:#{1,6}\s|[-*+•]\s|\d+[.)]\s|>\s|\|)")
_NUMBER = re.compile(r"\d")
# Hard-wrapped prose has 10+ words a line; listings, CSV rows and config lines have few.
_LISTING_WORDS_PER_LINE = 6
_IMPORTANT = re.compile(
    r"\b(?:error|fail(?:ed|ure|s)?|exception|warning|must|never|always|important|note|deprecated|"
    r"required|breaking|security|limit|default)\b",
    re.IGNORECASE,
)
_IMPORTANT_WORDS = frozenset(
    "error fail failed failure fails exception warning must never always important note deprecated "
    "required breaking security limit default".split()
)
# Letters that IGNORECASE matches to an ASCII letter but lower() does not turn into one.
_CASE_FOLDED = "\u0130\u0131\u017f"
# A line of a hex dump (key, signature and fingerprint bytes in openssl's and ssh-keygen's
# reports: "04:03:47:7b:2f:75:c9:82:15:85:fb:75:e4:91:16:"): no word a reader asks about.
_HEX_DUMP = re.compile(r"\s*(?:[0-9A-Fa-f]{2}:){6,}[0-9A-Fa-f]{0,2}\s*")
# Longer than any sentence of prose (the longest in the corpus's prose is a few hundred
# characters): a "sentence" this long is lines that never end one.
_MAX_SENTENCE_CHARS = 2000


def anchored_indices(anchors, texts: list[str], limit: int) -> set[int]:
    """Indices of ``texts`` that name a *selective* anchor of the question.

    An anchor found in more than ``limit`` items is usually the search pattern itself
    (ask about ``compute_total``, grep for ``compute_total``: every hit names it), so
    forcing all of them would disable compression; such anchors are left to relevance
    scoring instead.
    """
    if not anchors:
        return set()
    hits: dict[str, list[int]] = {}
    for i, t in enumerate(texts):
        for term in anchors.matching(t):
            hits.setdefault(term, []).append(i)
    return {i for idx in hits.values() if len(idx) <= limit for i in idx}


@dataclass(slots=True)
class Unit:
    text: str
    paragraph: int
    line_unit: bool  # heading/list/table line: rendered on its own line


def split_units(text: str) -> list[Unit]:
    """Sentences (and heading/list lines) with the paragraph each belongs to."""
    units: list[Unit] = []
    append, extend, line_unit = units.append, units.extend, _LINE_UNIT.match
    for p, para in enumerate(_PARAGRAPH_BREAK.split(text.strip())):
        rows = para.splitlines()
        if len(rows) == 1:
            # One line (a third of a man page's paragraphs): a unit line or prose.
            line = rows[0]
            if line.isspace():
                continue
            if line_unit(line):
                append(Unit(line.rstrip(), p, True))
            else:
                extend(_sentences(rows, p))
            continue
        rows = [ln for ln in rows if ln and not ln.isspace()]
        # Every line break is whitespace to str.split(), so the paragraph's words are its
        # lines' words, counted in one call instead of a list per line.
        if len(rows) >= 3 and len(para.split()) < _LISTING_WORDS_PER_LINE * len(rows):
            # Short lines (a listing, a CSV, a config file) are not hard-wrapped prose:
            # each line is a unit, so they are never glued into one giant "sentence".
            extend([Unit(ln.rstrip(), p, True) for ln in rows])
            continue
        buf: list[str] = []  # prose lines waiting to be split into sentences
        for line in rows:
            if line_unit(line):
                if buf:
                    extend(_sentences(buf, p))
                    buf = []
                append(Unit(line.rstrip(), p, True))
            else:
                buf.append(line)
        if buf:
            extend(_sentences(buf, p))
    return units


def _sentences(lines: list[str], paragraph: int) -> list[Unit]:
    joined = " ".join(map(str.strip, lines))
    # The split keeps each sentence's end mark (the captured group) and drops what follows
    # it: a closing quote or bracket and the spaces.
    parts = _SENTENCE_END.split(joined)
    if len(parts) > 1:
        pieces = list(map(str.__add__, parts[0::2], parts[1::2]))
        pieces.append(parts[-1])
    else:
        pieces = parts
    if len(lines) >= 3 and max(map(len, pieces)) > _MAX_SENTENCE_CHARS:
        # No prose sentence is this long: lines without sentence ends (a profile table,
        # a word-heavy listing) would be kept or dropped as one unit, and a marker
        # counting units would call a dropped 2 000-line block one sentence. Each line
        # is a unit instead.
        return [Unit(ln.rstrip(), paragraph, True) for ln in lines]
    return [Unit(s, paragraph, False) for s in pieces if s and not s.isspace()]


class TextCrusher:
    name = "text"

    def compress(self, inp: CompressInput) -> Compressed | None:
        units = split_units(inp.text)
        if len(units) < _MIN_UNITS:
            return None
        texts = [u.text for u in units]
        # Hex dumps give way to the words around them ("Not After : …", "Subject: …"): like
        # duplicates they are never kept, and a dropped run reads "…"; their share of the
        # budget is estimated at two characters a token.
        hexdump = [":" in t and _HEX_DUMP.fullmatch(t) is not None for t in texts]
        # A unit's tokens are estimated from its words and symbols, never counted: the
        # budget is a share of the whole, so only the units' relative sizes matter, and
        # counting every unit cost as much as counting the text (issue 34). The words,
        # lower-cased, are found once: the near-duplicate test, the important-word test
        # and BM25 read them too.
        # (map() over bound methods: a man page has thousands of units, and a Python-level
        # call or attribute look-up per unit and step adds up to a tenth of the call.)
        lowered = list(map(str.lower, texts))
        words = alnum_runs(lowered)  # _WORD.findall of each
        # A unit's tokens, estimated: a run of letters and digits is about one token, any
        # other character that is not a space about 0.4 (punctuation and symbols merge in
        # pairs and threes). On the corpus's man pages the kept share of the tokens stays
        # within 0.3 points of the exact counts' (by characters alone it fell by 1.5).
        # The three counts are taken by map() in C.
        alnum = map(len, map("".join, words))
        spaces = map(str.count, texts, repeat(" "))
        tokens = [int(len(w) + 0.4 * (len(t) - a - sp)) + 1 for t, w, a, sp in zip(texts, words, alnum, spaces)]
        for i, h in enumerate(hexdump):
            if h:
                tokens[i] = len(texts[i]) // 2
        total = sum(tokens)
        ratio = inp.config.router.text_target_ratio * (1.5 - min(1.0, max(0.0, float(inp.aggressiveness))))
        budget = max(1, int(total * min(0.9, ratio)))

        # Near-duplicates: the same set of words as any earlier unit, or >= 85 % overlap
        # with one of the recent ones (repeated boilerplate, reworded repeats).
        keys = list(map(frozenset, words))
        duplicate = near_duplicates(keys)
        for i, h in enumerate(hexdump):
            duplicate[i] = duplicate[i] or h

        # Duplicates are never kept, so only the distinct units are scored.
        distinct = [i for i in range(len(units)) if not duplicate[i]]
        rel = [0.0] * len(units)
        if inp.relevance is None and inp.query:
            scored = bm25_scores(inp.query, [texts[i] for i in distinct], [lowered[i] for i in distinct],
                                 [words[i] for i in distinct], [keys[i] for i in distinct])
        else:
            scored = inp.relevance_scores([texts[i] for i in distinct])
        for i, r in zip(distinct, scored):
            rel[i] = r
        top = max(rel) if rel and max(rel) > 0 else 1.0
        n = len(units)
        # _IMPORTANT needs one of its words as a whole word, which is then one of the
        # unit's [a-z0-9]+ runs too: only units holding one are searched. Four letters that
        # match an ASCII letter only under IGNORECASE ("ſ" for "s") would slip past that
        # test: a text with any of them is searched unit by unit.
        prefilter = not any(ch in inp.text for ch in _CASE_FOLDED)
        number, important = _NUMBER.search, _IMPORTANT.search
        # Duplicates are never kept: only the distinct units are scored and ranked.
        scores = [0.0] * n
        for i in distinct:
            u = units[i]
            t = texts[i]
            s = 2.0 * (rel[i] / top)
            if i < 2:
                s += 1.0
            elif i == n - 1:
                s += 0.6
            if i == 0 or units[i - 1].paragraph != u.paragraph:
                s += 0.4  # topic sentence
            if u.line_unit and t.lstrip().startswith("#"):
                s += 0.8  # headings are cheap and carry structure
            if number(t):
                s += 0.3
            if (not prefilter or not keys[i].isdisjoint(_IMPORTANT_WORDS)) and important(t):
                s += 0.4
            # Mild preference for short units: same information, fewer tokens.
            s -= 0.002 * tokens[i]
            scores[i] = s

        keep = [False] * n
        used = 0
        for i in sorted(anchored_indices(inp.anchors, texts, max(2, int(n * ratio)))):
            if not duplicate[i]:
                keep[i] = True
                used += tokens[i]
        # Lines of key=value numbers holding the extremes the question asks for (redis
        # INFO's command statistics): a few lines, found only among line units.
        for i in extreme_lines(texts, inp.query, lambda i: units[i].line_unit) if inp.query else ():
            if not keep[i]:
                keep[i] = True
                used += tokens[i]
        # Best first, ties in text order (a stable sort keeps them so, reversed or not).
        for i in sorted(distinct, key=scores.__getitem__, reverse=True):
            if keep[i]:
                continue
            if used + tokens[i] > budget:
                continue
            keep[i] = True
            used += tokens[i]
        kept = sum(keep)
        if kept == n or kept == 0:
            return None
        return Compressed(
            text=_render(units, keep),
            items_before=n,
            items_after=kept,
            strategy="text_extract",
            lossy=True,
            summary=f"{kept} of {n} sentences kept",
        )


def near_duplicates(keys: list[frozenset[str]], window: int = _NEAR_WINDOW, threshold: float = 0.85) -> list[bool]:
    """For each word set, whether it is a near-duplicate: equal to any earlier set that was
    not one itself, or ``_near_any`` one of the last ``window`` such sets. Empty sets are
    never duplicates (but take a place in the window).

    The same verdicts as calling ``_near_any`` on the window, found without walking it:
    only the window's sets are filed, by size (the oldest leaves as a new one comes), and
    only the sizes that can reach the threshold are looked at (a man page's 2 700
    sentences had every one walk 32 sets to skip 26 by size). For each pair of sizes the
    words two sets must share are worked out once (``_overlap_tests``): sets of one size
    below a dozen words must be equal (which the look-up of every earlier set has ruled
    out), a set one word longer must hold the other whole (a subset test, which stops at
    the first word missing and builds nothing), and only the rest are intersected
    (issue 34: 14 000 intersections on a man page, two thirds of them needless).
    """
    out: list[bool] = []
    exact: set[frozenset[str]] = set()
    by_size: dict[int, list[frozenset[str]]] = {}  # the window's sets, oldest first
    sizes_in_order: list[int] = []  # the size of every set filed so far, in order
    tests_for: dict[int, list[tuple[int, int, int]]] = {}  # per size: _overlap_tests
    for key in keys:
        n = len(key)
        if n:
            if key in exact:
                out.append(True)
                continue
            tests = tests_for.get(n)
            if tests is None:
                tests = tests_for[n] = _overlap_tests(n, threshold)
            if _near_filed(key, tests, by_size):
                out.append(True)
                continue
        out.append(False)
        exact.add(key)
        by_size.setdefault(n, []).append(key)
        sizes_in_order.append(n)
        if len(sizes_in_order) > window:  # the oldest set of the window leaves it
            del by_size[sizes_in_order[-window - 1]][0]
    return out


_SUBSET, _SUPERSET, _SHARED = 0, 1, 2  # how a pair of sizes is tested (_overlap_tests)


def _overlap_tests(n: int, threshold: float) -> list[tuple[int, int, int]]:
    """For a set of ``n`` words, (m, how, least) for each size m of the sets it may be near:
    the least words two such sets must share for ``_near_any``'s test to pass (the test
    grows with the words shared, so passing it is sharing at least that many), and how
    to test it: the ``n`` words all in the other set, its ``m`` words all in this one, or an
    intersection. Sizes no overlap passes at, and the size ``n`` itself when only equal
    sets pass (ruled out before: an equal set was filed), are left out."""
    tests = []
    for m in range(math.ceil(n * threshold - 1e-9), math.floor(n / threshold + 1e-9) + 1):
        least = next((o for o in range(min(n, m) + 1) if o / (n + m - o) >= threshold), None)
        if least is None or (m == n and least == n):
            continue
        tests.append((m, _SUBSET if least == n else _SUPERSET if least == m else _SHARED, least))
    return tests


def _near_filed(key: frozenset[str], tests: list[tuple[int, int, int]],
                by_size: dict[int, list[frozenset[str]]]) -> bool:
    """Whether ``key`` shares enough words with a filed set, by ``_overlap_tests``."""
    for m, how, least in tests:
        filed = by_size.get(m)
        if not filed:
            continue
        if how == _SUBSET:
            for s in filed:
                if key <= s:
                    return True
        elif how == _SUPERSET:
            for s in filed:
                if key >= s:
                    return True
        else:
            for s in filed:
                if len(key & s) >= least:
                    return True
    return False


def _near_any(key: frozenset[str], recent: list[frozenset[str]], threshold: float = 0.85) -> bool:
    """Whether the Jaccard similarity of ``key`` (not empty) and any of ``recent`` reaches
    ``threshold``. |a | b| = |a| + |b| - |a & b|, so only the intersection is built; one
    expression instead of a call per pair (this runs 32 times per sentence)."""
    n = len(key)
    # Jaccard <= min(|a|, |b|) / max(|a|, |b|): sets whose sizes differ by more than the
    # threshold allows cannot reach it, so their intersection is not built (half the pairs
    # on a certificate report). The bounds are widened by a hair so that float rounding
    # never skips a pair that the exact test would pass.
    lo, hi = n * threshold - 1e-9, n / threshold + 1e-9
    return any((both := len(key & s)) / (n + len(s) - both) >= threshold for s in recent if lo <= len(s) <= hi)


def _render(units: list[Unit], keep: list[bool]) -> str:
    """Kept units in order; paragraphs stay paragraphs; a dropped stretch becomes "…".

    Sentences of a paragraph join with a space, line units (headings, list items, rows)
    each take a line, and a gap marker sits inline or on its own line to match.
    """
    paras: list[list[tuple[str, bool]]] = []
    cur_para = -1
    gap = not keep[0]
    for u, k in zip(units, keep):
        if not k:
            gap = True
            continue
        if u.paragraph != cur_para:
            if gap and paras:
                paras[-1].append(("…", paras[-1][-1][1]))
            elif gap:
                paras.append([("…", u.line_unit)])
            paras.append([])
            cur_para = u.paragraph
        elif gap:
            paras[-1].append(("…", u.line_unit or paras[-1][-1][1]))
        paras[-1].append((u.text, u.line_unit))
        gap = False
    if gap and paras:
        paras[-1].append(("…", paras[-1][-1][1]))
    out = []
    for items in paras:
        pieces: list[str] = []
        for k, (text, is_line) in enumerate(items):
            if k:
                pieces.append("\n" if is_line or items[k - 1][1] else " ")
            pieces.append(text)
        out.append("".join(pieces))
    return "\n\n".join(p for p in out if p)
