"""Which lines of a structured text stay: the key path the question asks, its parents,
and an outline; elided runs become one comment line each.

1. Nodes whose key the question names win, scored by how much of the asked path they
   match (the key itself counts double, each ancestor's key once): ``timeout`` under
   ``server`` keeps ``server:`` → ``timeout:``, not every ``timeout``. A matched node is
   kept whole when small, else its header and its children's headers.
2. Lines holding a selective anchor of the question (an id, a number, a quoted string)
   stay, with their parents.
3. The outline: headers level by level (top-level keys, sections, targets) while the
   line budget allows.
4. Everything kept takes its ancestors' headers and its own closers (``</tag>``,
   ``{% endif %}``), so the output nests like the input. Runs of at least ``MIN_RUN``
   dropped lines become one comment at the run's indentation; shorter runs stay.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from functools import lru_cache, partial
from itertools import accumulate, groupby

from ...query.names import letters_in_order
from ...query.options import asked_options, defining_lines
from ...query.order import asks_neighbour, neighbours, pointed_lines
from ...query.terms import STOP_WORDS as _STOP
from ...query.terms import past_tense_roots as _past_tense_roots
from ...query.terms import question_terms
from ...query.terms import stem as _stem
from ..flat_paths import flat_path_lines
from ..line_shapes import COMMON_SHAPES as _COMMON_SHAPES
from ..line_shapes import RARE_KEPT as _RARE_KEPT
from ..line_shapes import RARE_SIBLINGS_MIN as _RARE_SIBLINGS_MIN
from ..line_shapes import rare_assigned_values, rare_marks, rare_shape_lines
from ..odd_members import odd_members
from ..text_records import (
    RECORD_LINES,
    graph_heads,
    rare_headlines,
    record_bodies,
    record_mates,
    record_starts,
)
from ..text_records import SHAPE_RARE as _SKELETON_RARE
from .formats import Format, comment_line
from .tree import LineKeys, Node, key_of

MIN_RUN = 3  # an elision comment costs about a line: shorter runs are kept
WHOLE_MAX_LINES = 40  # a matched node this small is kept whole
_KEY_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@lru_cache(maxsize=8192)  # keys repeat (``type:`` on 200 lines of a schema)
def _key_words(key: str) -> frozenset[str]:
    words = {w.lower() for w in _KEY_WORD.findall(key)}
    # camelCase keys: "maxRetries" is asked as "max retries"
    for w in _CAMEL.findall(key):
        words.add(w.lower())
    whole = key.lower().strip()
    if whole:
        words.add(whole)
    return frozenset(_stem(w) for w in words)


def select(lines: list[str], nodes: list[Node], query: str, anchors, budget_lines: int, fmt: Format) -> list[bool]:
    """Which lines to keep (True) for ``nodes`` of ``lines`` (built for ``fmt``) and the question."""
    n = len(lines)
    keep = [False] * n
    if not nodes:
        return [True] * n
    # Two-letter words name keys too ("which xz binary" is SHOP_XZ_PROGRAM): a key's words
    # must hold the word whole, which few keys' words do.
    terms = question_terms(query) | _two_letter_words(query) if query else set()
    starts = [nd.start for nd in nodes]  # ascending: a line's node by bisection
    offsets = _line_offsets(lines)
    line_keys = LineKeys(fmt, lines)  # one-line keys, worked out once for the passes below
    own, named = _named_nodes(lines, starts, offsets, terms, query, line_keys)
    wanted = _best_named(lines, nodes, own, named, terms, fmt) if terms else []
    if query and "." in query:
        wanted += [i for i in _qualified_nodes(lines, nodes, query) if i not in wanted]
    # An option the question names ("what is -s for?"): the line defining it, with its
    # description (a help text's or manual page's entry, nested under it by indentation).
    if query and (options := asked_options(query)):
        wanted += [i for i in _nodes_starting_on(starts, set(defining_lines(lines, options))) if i not in wanted]
    whole = {i for i in wanted if nodes[i].end - nodes[i].start <= WHOLE_MAX_LINES}
    anchored: list[int] = []  # nodes starting on a line that holds an anchor
    if anchors:
        for i in _nodes_starting_on(starts, _anchor_lines(lines, offsets, anchors)):
            if len(wanted) >= 64:
                break
            wanted.append(i)
            anchored.append(i)
    children = _children_of(nodes)

    take_with_ancestors = partial(keep_with_ancestors, nodes, keep)

    # A node an anchor names brings its record: the value asked for is another field of it.
    for r in _records_of(anchored, nodes, children, lines, fmt):
        whole.add(r)
        wanted.append(r)
    wanted += _prefix_mates(nodes, wanted, fmt, line_keys)
    for i in wanted:
        take_with_ancestors(i)
        if i in whole:
            for k in range(nodes[i].start, nodes[i].end):
                keep[k] = True
        else:
            for c in children.get(i, ()):
                keep_header(nodes[c], keep)
    _outline(nodes, children, keep, budget_lines, take_with_ancestors, opaque_lines(lines))
    # Among many one-line siblings whose values mostly repeat, the ones of a rare value;
    # among the same setting of many things (sysctl's per-interface keys), the odd ones.
    for i in (_rare_siblings(lines, nodes, children, fmt, line_keys)
              + _odd_in_families(lines, nodes, children, fmt, line_keys)):
        take_with_ancestors(i)
    # Plain lines may interleave a few messages; a keyed format's headers and brackets are
    # of rare shapes by nature, so there only one dominant shape makes the others rare.
    rare = rare_shape_lines(lines, _COMMON_SHAPES if fmt.name == "lines" else 1)
    if fmt.name == "lines":
        rare |= rare_assigned_values(lines) | rare_marks(lines)
    for i in _nodes_starting_on(starts, rare):
        take_with_ancestors(i)
    fill_short_runs(lines, keep)
    return keep



def with_named_lines(lines: list[str], nodes: list[Node], keep: list[bool], query: str, anchors,
                     fmt: Format) -> list[bool] | None:
    """``keep`` with the lines a question word few lines hold, in a value as much as in a
    key ("which library was not found", "which entry is a zip archive"), each under its
    parents; for plain lines, with the rest of their records too. None when that adds
    nothing. (The caller falls back to ``keep`` when the output would not parse: a line
    inside a bracketed value may cut it.)"""
    terms = question_terms(query) if query else set()
    if anchors:
        terms = terms | anchors.terms
    offsets = _line_offsets(lines)
    named = named_lines(lines, offsets, terms | _not_found_terms(query)) \
        | _root_lines(lines, offsets, _past_tense_roots(terms)) | rare_forms(lines, offsets, terms)
    if fmt.name == "lines":
        named |= rare_headlines(lines, terms | _two_letter_words(query or ""))
    mates = record_mates(lines, named) | record_bodies(lines, named, terms) | graph_heads(lines, named) \
        if fmt.name == "lines" else set()
    if fmt.name in ("lines", "properties"):  # gron's and jq's `a.b.3.c = v` listings
        mates |= flat_path_lines(lines, named, query or "")
    if fmt.name == "lines" and query:
        # Two-letter words count here ("which answers count as no" over ``noexpr``): a
        # field's name must open a line of every record, which few such words do.
        named |= asked_field_lines(lines, offsets, terms | _two_letter_words(query))
    if anchors and asks_neighbour(query):
        named |= neighbours(lines, pointed_lines(_lowered(lines), offsets, anchors.terms))
    named = [i for i in named if not keep[i]]
    mates = [i for i in mates if not keep[i]]
    if not named and not mates:
        return None
    out = list(keep)
    starts = [nd.start for nd in nodes]

    take_with_ancestors = partial(keep_with_ancestors, nodes, out)

    for line in named:
        out[line] = True
        i = _node_holding(nodes, starts, line)
        if i >= 0 and nodes[i].head_end - nodes[i].start > _LONG_HEAD:
            # A long header unit (a plain scalar over many lines): its first line, not all
            out[nodes[i].start] = True
            i = nodes[i].parent
        take_with_ancestors(i)
    for line in mates:  # a stanza the question names (dpkg status, sqlite3 -line) stays whole
        out[line] = True
    if fmt.name != "lines" and named:
        # A value the question's words name brings its record, as a named key does: the
        # kind and text of a Memcheck <error> say "possibly lost", its stack says where.
        for r in _records_of(_holders(nodes, starts, named), nodes, _children_of(nodes), lines, fmt):
            for k in range(nodes[r].start, nodes[r].end):
                out[k] = True
            take_with_ancestors(r)
    fill_short_runs(lines, out)
    return out


def _holders(nodes: list[Node], starts: list[int], lines_at: list[int]) -> list[int]:
    """The innermost node holding each line, in order, once each (none for a line no node holds)."""
    out: list[int] = []
    for line in sorted(lines_at):
        i = _node_holding(nodes, starts, line)
        if i >= 0 and i not in out:
            out.append(i)
    return out


def _children_of(nodes: list[Node]) -> dict[int, list[int]]:
    """Each node's children, ascending: grouped after a stable sort by parent (in C; a dict
    append per node was a quarter of the selection's time)."""
    parent_of = [nd.parent for nd in nodes].__getitem__
    return {p: list(group) for p, group in groupby(sorted(range(len(nodes)), key=parent_of), key=parent_of)}

_PAIRED_HITS = 32  # lines a common word may hold and still be paired with another


def _first_hits(low: str, offsets: list[int], term: str, skip: bool) -> Iterator[tuple[int, int]]:
    """(line, position) of ``term``'s first hit on each line of ``low`` (the lines joined
    and lowered; ``offsets`` their starts), in order. With ``skip`` (lower case kept every
    offset) the next find starts on the next line: a word repeated a million times on one
    line is one find."""
    pos = low.find(term)
    last = -1
    while pos >= 0:
        line = bisect_right(offsets, pos) - 1
        if line != last:
            yield line, pos
            last = line
        nxt = offsets[line + 1] if skip and line + 1 < len(offsets) else pos + 1
        pos = low.find(term, nxt)


def named_lines(lines: list[str], offsets: list[int], terms) -> set[int]:
    """Lines holding a selective word or anchor of the question: one that names a record,
    not a field every record has (in at most one line of 100, or three, or in lines that all
    fall within one record's reach: a package's name in its own URLs). One lower-cased copy
    of the text, one find per hit."""
    if not terms or not lines:
        return set()
    low = _lowered(lines)
    skip = len(low) == offsets[-1] + len(lines[-1])  # lower case kept every offset
    limit = max(3, len(lines) // 100)
    paired = max(_PAIRED_HITS, len(lines) // 25)
    out: set[int] = set()
    common: list[set[int]] = []  # the lines of words too common alone, when few enough to pair
    for term in terms:
        hits: list[int] = []
        for line, _ in _first_hits(low, offsets, term, skip):
            hits.append(line)
            if len(hits) > paired and hits[-1] - hits[0] >= RECORD_LINES:
                break  # a common word: no need to find the rest
        if _few(hits, limit):
            out.update(hits)
        elif len(hits) <= paired:
            common.append(set(hits))
    # Two words each too common alone may name one line together ("edge" and "ratelimit" in
    # `diff -r old/edge/ratelimit.conf …`, among four ratelimit files and six edge ones;
    # "South Cedar Croft" among farms named by the same words).
    for k, a in enumerate(common):
        for b in common[k + 1:]:
            both = a & b
            if 0 < len(both) <= limit:
                out.update(both)
    return out


_FORM_SHARE = 0.8  # of the lines holding a word one form of it must hold for the others to be rare
_FORM_LINES_MIN = 20  # lines that must hold a word before one of its forms is its usual one
_FORM_HITS_MAX = 5_000  # lines holding a word that are looked at (a word on every line of a long text)


def rare_forms(lines: list[str], offsets: list[int], terms) -> set[int]:
    """The lines where a question word too common to name lines by itself comes in a rare
    form: the blank-separated token holding it differs from the one nearly every other line
    holds it in. Among 75 ``ACL LIST`` users that carry ``flushdb``, 74 deny it
    (``-flushdb``) and one allows it (``+flushdb``): "which account may run FLUSHDB" asks
    for that one. A form is rare on at most ``_SKELETON_RARE`` lines where one form holds
    ``_FORM_SHARE`` of the word's lines."""
    if not terms or not lines:
        return set()
    low = _lowered(lines)
    skip = len(low) == offsets[-1] + len(lines[-1])  # lower case kept every offset
    out: set[int] = set()
    for term in terms:
        if len(term) < 3:
            continue
        most_lines = low.count(term)  # at least the lines holding it
        if most_lines < _FORM_LINES_MIN:
            continue  # few lines hold it: named_lines keeps them, or their forms say nothing
        # Once more lines hold it in other forms than the commonest so far than the share
        # allows of all the lines that can hold it, no form can be usual: stop reading.
        others_allowed = (1 - _FORM_SHARE) * most_lines
        form_of: dict[int, str] = {}  # line -> the token holding the word there (its first)
        forms: Counter[str] = Counter()
        top = 0
        for line, pos in _first_hits(low, offsets, term, skip):
            form = form_of[line] = _token_at(low, pos, pos + len(term))
            forms[form] += 1
            top = max(top, forms[form])
            if len(form_of) - top > others_allowed or len(form_of) > _FORM_HITS_MAX:
                break
        if len(form_of) < _FORM_LINES_MIN or len(form_of) - top > others_allowed:
            continue  # few lines hold it, or in no usual form
        usual, held = forms.most_common(1)[0]
        if held < _FORM_SHARE * len(form_of):
            continue
        out.update(i for i, f in form_of.items() if f != usual and forms[f] <= _SKELETON_RARE)
    return out


_TOKEN_REACH = 80  # characters looked at on each side of a word for its token's ends


def _token_at(low: str, start: int, end: int) -> str:
    """The blank-separated token holding ``low[start:end]``, at most ``_TOKEN_REACH``
    characters on each side (a minified line is one token: its ends say nothing)."""
    lo = max(0, start - _TOKEN_REACH)
    a = max(low.rfind(" ", lo, start), low.rfind("\n", lo, start), low.rfind("\t", lo, start))
    a = a + 1 if a >= 0 else lo
    hi = min(len(low), end + _TOKEN_REACH)
    ends = [e for e in (low.find(" ", end, hi), low.find("\n", end, hi), low.find("\t", end, hi)) if e >= 0]
    return low[a:min(ends) if ends else hi]


def _few(hits: list[int], limit: int) -> bool:
    """Whether ascending line ``hits`` are selective: at most ``limit`` lines, or all within
    one record's reach (a package's name in its own URLs)."""
    return len(hits) <= limit or hits[-1] - hits[0] < RECORD_LINES


_NOT_FOUND = re.compile(r"\b(?:not|never|n't|cannot)\s+(?:be\s+)?(?:find|found|locate|located)\b")


def _not_found_terms(query: str | None) -> set[str]:
    """"Which tool could it not find?": the ways tools write that something was not found
    (CMake's ``-NOTFOUND`` values, ldd's "not found", ``not_found`` flags)."""
    if not query or _NOT_FOUND.search(query.lower()) is None:
        return set()
    return {"notfound", "not found", "not_found", "not-found"}


def _root_lines(lines: list[str], offsets: list[int], roots: set[str]) -> set[int]:
    """The lines holding a root as a whole word ("open" is no part of "openssh"), when few
    lines do (``named_lines``'s rule)."""
    if not roots:
        return set()
    low = _lowered(lines)
    limit = max(3, len(lines) // 100)
    out: set[int] = set()
    for root in roots:
        hits = sorted({bisect_right(offsets, m.start()) - 1
                       for m in re.finditer(rf"(?<![a-z0-9_]){re.escape(root)}(?![a-z0-9_])", low)})
        if hits and _few(hits, limit):
            out.update(hits)
    return out


_TWO_LETTERS = re.compile(r"(?<![\w'’-])[a-z]{2}(?![\w'’-])")


def _two_letter_words(query: str) -> set[str]:
    return {w for w in _TWO_LETTERS.findall(query[:2000].lower()) if w not in _STOP and w not in _PRONOUNS}


_PRONOUNS = frozenset(("we", "us", "he", "so", "up", "go", "ok"))  # and filler: no field's name


_FIELD_PER_RECORD = 2  # lines of one record a word that names a field may hold
_FIELD_LINES_MAX = 48  # lines one asked field may bring over all the records


def asked_field_lines(lines: list[str], offsets: list[int], terms) -> set[int]:
    """In a text of records that each open alike (``record_starts``: ``locale -k`` per
    locale, ``time -v`` per command), the lines of the field a question word names in
    every record: the word starts a line's first token ("yes" in ``yesexpr=...``), at most
    ``_FIELD_PER_RECORD`` lines per record, in three records or more. A word in every
    record names a field, not a record; when the question names its record by a word the
    text does not hold ("the Japanese locale" over ``ja_JP``), the field's line in each
    record, with its record's opening line, is what answers it."""
    starts = record_starts(lines)
    if not starts:
        return set()
    low = _lowered(lines)
    out: set[int] = set()
    for term in terms:
        per_record: dict[int, int] = {}
        hits: list[int] = []
        pos = low.find(term)
        while pos >= 0 and len(hits) <= _FIELD_LINES_MAX:
            line = bisect_right(offsets, pos) - 1
            at = pos - offsets[line]
            head = lines[line][:at]
            # the word opens the line's first token: blanks (or nothing) before it
            if not head.strip() and line > starts[0]:
                rec = bisect_right(starts, line) - 1
                per_record[rec] = per_record.get(rec, 0) + 1
                hits.append(line)
            pos = low.find(term, offsets[line + 1] if line + 1 < len(offsets) else len(low))
        if (hits and len(hits) <= _FIELD_LINES_MAX and len(per_record) >= 3
                and max(per_record.values()) <= _FIELD_PER_RECORD):
            out.update(hits)
    return out


def _node_holding(nodes: list[Node], starts: list[int], line: int) -> int:
    """The innermost node whose lines hold ``line`` (-1: none)."""
    i = bisect_right(starts, line) - 1
    while i >= 0 and nodes[i].end <= line:
        i = nodes[i].parent
    return i


_LONG_HEAD = 8  # header lines a named line brings at most


def _rare_siblings(lines: list[str], nodes: list[Node], children: dict[int, list[int]], fmt: Format,
                   line_keys: dict[int, str]) -> list[int]:
    """One-line siblings whose value (the line without its key), or whose key, occurs at
    most twice among at least ``_RARE_SIBLINGS_MIN`` of them whose values (keys) mostly
    repeat (``file``'s "ASCII text" on 40 entries and "Zip archive data" on one): what is
    rare among repeats is what a reader asks about. Those seen once first, at most
    ``_RARE_KEPT``."""
    plain = fmt.name == "lines"  # a plain line's "key" is its first word (key_of: its first words)
    out: list[tuple[int, int]] = []
    for group in children.values():
        if len(group) < _RARE_SIBLINGS_MIN:
            continue
        values: dict[str, list[int]] = {}
        keys: dict[str, list[int]] = {}
        half = len(group) // 2
        for i in group:
            if len(keys) > half and (plain or len(values) > half):
                break  # more distinct than half the group, both ways: nothing can be rare
            nd = nodes[i]
            if nd.end - nd.start != 1:
                continue
            line = lines[nd.start]
            key = (line.split(None, 1) or [""])[0] if plain else line_keys[nd.start]
            if not key:
                continue
            if not plain:  # (a plain line's rest is no value: only its first word is read)
                at = line.find(key)
                values.setdefault(line[at + len(key):].strip(" \t:=\"',") if at >= 0 else line, []).append(i)
            keys.setdefault(key, []).append(i)
        leaves = sum(map(len, keys.values()))
        if leaves < _RARE_SIBLINGS_MIN:
            continue
        # Values mostly repeated (file's descriptions), or keys (git status's "modified:"
        # on a hundred paths and "deleted:" on one): the rare ones stay. Mostly distinct,
        # nothing is rare.
        # (For plain lines only the first word: the rest of a line is no value.)
        for seen in ((keys,) if plain else (values, keys)):
            if len(seen) <= leaves // 2:
                out += [(len(v), i) for v in seen.values() if len(v) <= 2 for i in v]
    return [i for _, i in sorted(set(out))[:_RARE_KEPT]]


_MATES_MAX = 6  # neighbours sharing a named key's stem kept at most, each way


def _prefix_mates(nodes: list[Node], wanted: list[int], fmt: Format, line_keys: LineKeys) -> list[int]:
    """Next to each named one-line key, its neighbours sharing its stem (the key but for
    its last ``_`` or ``.`` part): the question "how long before TCP sends keep-alive
    probes" names ``tcp_keepalive_probes`` best, and the answer is ``tcp_keepalive_time``.
    A flat key's siblings are its only context (nested keys bring their parent's)."""
    if fmt.name == "lines" or not wanted:
        return []
    seen = set(wanted)
    out: list[int] = []
    for i in wanted[:_WANTED]:
        nd = nodes[i]
        if nd.end - nd.start != 1:
            continue
        key = line_keys[nd.start]
        cut = max(key.rfind("_"), key.rfind("."))
        if cut <= 0:
            continue
        stem = key[:cut + 1]
        for step in (-1, 1):
            j = i + step
            for _ in range(_MATES_MAX):
                if not 0 <= j < len(nodes) or nodes[j].parent != nd.parent or nodes[j].end - nodes[j].start != 1 \
                        or not line_keys[nodes[j].start].startswith(stem):
                    break
                if j not in seen:
                    seen.add(j)
                    out.append(j)
                j += step
    return out


_FAMILY_MIN = 4  # keys a family needs before its usual value says anything
_FAMILY_ODD_KEPT = 16  # odd family members kept at most, rarest first


def _odd_in_families(lines: list[str], nodes: list[Node], children: dict[int, list[int]], fmt: Format,
                     line_keys: dict[int, str]) -> list[int]:
    """One-line keys whose value is odd among the same setting of other things: dotted
    keys alike but for one inner part (``net.ipv4.conf.<interface>.forwarding``), at
    least ``_FAMILY_MIN`` of them, a value repeating, and the odd value held by one key or
    by at most one in eight. The thing is named by nothing but its place in the key: no
    word of the question finds "the interface forwarding packets"."""
    if fmt.name == "lines":
        return []
    # Dotted one-line keys first, with their settings (last parts) counted: a family's
    # members share theirs, so a key whose setting fewer than _FAMILY_MIN keys of its
    # length hold is in none (most of a sysctl dump), and is not filed at all.
    #
    # A family's blanked key keeps its members' dots and last part, so a family lies within
    # one setting; a setting whose keys all hold one value has no family with an odd value
    # (odd_members passes over a family of one value), and is not filed either (most of
    # the families of a sysctl dump: 471 filings of 3 945).
    dotted: list[tuple[int, str, str, str]] = []
    settings: dict[str, int] = {}  # "<dots>.<last part>" -> keys holding it
    first_value: dict[str, str] = {}  # setting -> the value of its first key
    mixed: set[str] = set()  # settings whose keys hold two values or more
    for group in children.values():
        for i in group:
            nd = nodes[i]
            # A key's characters are its line's: a line of fewer than two dots holds no key of two.
            if nd.end - nd.start != 1 or lines[nd.start].count(".") < 2:
                continue
            line = lines[nd.start]
            key = line_keys[nd.start]
            dots = key.count(".")
            if dots < 2:
                continue
            at = line.find(key)
            value = line[at + len(key):].strip(" \t:=\"',") if at >= 0 else line
            setting = f"{dots}{key[key.rfind('.'):]}"
            dotted.append((i, key, setting, value))
            settings[setting] = settings.get(setting, 0) + 1
            if first_value.setdefault(setting, value) != value:
                mixed.add(setting)
    families: dict[str, dict[str, list[int]]] = {}
    for i, key, setting, value in dotted:
        if setting not in mixed or settings[setting] < _FAMILY_MIN:
            continue
        # Each inner part blanked in turn (the first is a namespace, the last the setting):
        # keys alike but for that part share the blanked key.
        a = key.find(".")
        while True:
            b = key.find(".", a + 1)
            if b < 0:
                break
            families.setdefault(f"{key[:a]}.\0{key[b:]}", {}).setdefault(value, []).append(i)
            a = b
    return odd_members(families.values(), _FAMILY_ODD_KEPT, _FAMILY_MIN, 3)


def _named_nodes(lines: list[str], starts: list[int], offsets: list[int], terms: set[str], query: str,
                 line_keys: LineKeys) -> tuple[list[set[str]], list[int]]:
    """The question's words in each node's key (empty for most nodes), and the nodes whose
    key holds one, ascending."""
    own: list[set[str]] = [set()] * len(starts)
    named: list[int] = []
    if terms:
        # A key is cut from its node's first line (pieces joined by spaces, which no term
        # holds): a node whose line holds none of the terms (case-insensitive) has none in
        # its key either. One scan of the whole text finds the lines; only their nodes'
        # keys are worked out.
        long_terms = [t for t in terms if len(t) >= _PART_MIN]
        hit, holds_term = _lines_holding(lines, offsets, terms)
        if hit:
            own = list(own)
            for i in _nodes_starting_on(starts, hit):
                key = line_keys[starts[i]]
                if key and holds_term(key):
                    words = _key_words(key)
                    own[i] = words & terms
                    # A term inside the key but not one of its words: maybe a part of a
                    # compound key (one find per long term on the key, most keys stop here).
                    low = key.lower()
                    inside = [t for t in long_terms if t in low and t not in own[i]]
                    if inside:
                        own[i] = own[i] | _compound_parts(words, inside)
                    if own[i]:
                        named.append(i)
    # "group 6", "worker #3": a word and the number after it name the node whose own line
    # says them together (the number alone is too short to be a term).
    numbered = _numbered_nodes(lines, starts, query) if query else []
    if numbered:
        own = list(own)
        for phrase, i in numbered:
            if not own[i]:
                named.append(i)
            own[i] = set(own[i]) | {phrase}
        named.sort()
    return own, named


def _best_named(lines: list[str], nodes: list[Node], own: list[set[str]], named: list[int], terms: set[str],
                fmt: Format) -> list[int]:
    """The named nodes kept with their ancestors: those matching most of the asked path
    (the key itself counts double, each ancestor's key once), at most ``_WANTED``."""
    scores = []
    for i in named:
        path = set()
        p = nodes[i].parent
        while p >= 0:
            path |= own[p]
            p = nodes[p].parent
        # The question's other words in the node's own line count as an ancestor's do
        # ("Vulnerability Mds: Mitigation; …" for "which vulnerabilities have a mitigation").
        head = lines[nodes[i].start].lower()
        said = sum(1 for t in terms if t not in own[i] and t not in path and t in head)
        scores.append((2 * len(own[i]) + len(path - own[i]) + said, i))
    if not scores:
        return []
    best = max(s for s, _ in scores)
    tied = [i for s, i in scores if s == best]
    if len(tied) > _WANTED:
        if fmt.nesting != "flat" and fmt.name != "lines":
            # Too many nodes name the question's words as well as each other: the ones
            # whose keys (theirs and their ancestors') say least besides come first
            # ("typescript@npm:5.6.2" before "@typescript-eslint/parser@npm:6.21.0").
            # Only where keys are a format's own (a plain line's "key" is its first words).
            tied.sort(key=lambda i: (_extra_words(lines, nodes, fmt, i, terms), i))
        # Then the nodes naming the rarest of the question's words: "jump" in one key
        # says more than "host" in fifteen (a stable sort keeps the order above).
        df: dict[str, int] = {}
        for i in tied:
            for t in own[i]:
                df[t] = df.get(t, 0) + 1
        tied.sort(key=lambda i: min((df[t] for t in own[i]), default=len(tied)))
    return tied[:_WANTED]


def _anchor_lines(lines: list[str], offsets: list[int], anchors) -> set[int]:
    """Which lines hold an anchor of the question (at most 256): one lower-cased copy of the
    text, one find per term."""
    low = _lowered(lines)
    n = len(lines)
    # Further hits on a line add nothing: the next find starts on the next line (when
    # the lower case kept every offset; else hit by hit, as the offsets say).
    skip = len(low) == offsets[-1] + len(lines[-1])
    hit_lines: set[int] = set()
    for term in anchors.terms:
        pos = low.find(term)
        while pos >= 0 and len(hit_lines) < 256:
            line = bisect_right(offsets, pos) - 1
            hit_lines.add(line)
            if skip:
                pos = low.find(term, offsets[line + 1]) if line + 1 < n else -1
            else:
                pos = low.find(term, pos + 1)
    return hit_lines


_BASE64_LINE = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
_OPAQUE_RUN = 3  # base64 lines in a row before they are a blob (a PEM body), not a value
_OPAQUE_SHARE = 0.5  # of the lines blobs may be and still give their room to the rest


def opaque_lines(lines: list[str]) -> set[int]:
    """Lines of base64 blobs (a certificate's PEM body, a key, an embedded image): runs of
    at least ``_OPAQUE_RUN`` lines of base64 alone, upper and lower case both (hex digests
    and object ids are one case). No question reads them; a search for an anchor still
    finds them, and the budget that filled the outline with them goes to lines of words."""
    out: set[int] = set()
    run: list[int] = []
    for i, ln in enumerate(lines):
        s = ln.strip()
        if len(s) >= 40 and _BASE64_LINE.fullmatch(s) and not s.islower() and not s.isupper():
            run.append(i)
            continue
        if len(run) >= _OPAQUE_RUN:
            out.update(run)
        run = []
    if len(run) >= _OPAQUE_RUN:
        out.update(run)
    # A text that is mostly blob (an attachment) has no lines of words to give the room to.
    return out if len(out) <= _OPAQUE_SHARE * len(lines) else set()


def _outline(nodes: list[Node], children: dict[int, list[int]], keep: list[bool], budget_lines: int,
             take_with_ancestors: Callable[[int], None], opaque: set[int] = frozenset()) -> None:
    """The outline, level by level, while the budget allows; nodes opening on an opaque
    line (a base64 blob's) are left to the elisions."""
    used = sum(keep)
    level = [i for i in children.get(-1, []) if nodes[i].start not in opaque] if opaque else children.get(-1, [])
    while level:
        cost = sum(nodes[i].head_end - nodes[i].start for i in level if not keep[nodes[i].start])
        if used + cost > budget_lines:
            # The level does not fit: its first headers, in order, while the budget lasts
            # (a flat file's opening entries rather than none at all).
            for i in level:
                if used >= budget_lines:
                    break  # no header (of at least a line) fits any more
                size = nodes[i].head_end - nodes[i].start
                if not keep[nodes[i].start] and used + size <= budget_lines:
                    take_with_ancestors(i)
                    used += size
            break
        for i in level:
            if not keep[nodes[i].start]:
                take_with_ancestors(i)
        used = sum(keep)
        level = [c for i in level for c in children.get(i, ()) if not opaque or nodes[c].start not in opaque]


_WANTED = 12  # named nodes kept with their ancestors
_RECORDS = 4  # records anchors may bring: more, and the anchor names none in particular
_SIBLINGS_SEEN = 24  # siblings compared with a record candidate's key


def _records_of(hits: list[int], nodes: list[Node], children: dict[int, list[int]], lines: list[str],
                fmt: Format) -> list[int]:
    """The record each of ``hits`` sits in: its outermost ancestor of at most
    ``WHOLE_MAX_LINES`` lines whose key at least two of its siblings share (a Memcheck
    ``<error>`` among ``<error>``s, a list item among items). None when the hits sit in
    more than ``_RECORDS`` records."""
    keys: dict[int, str] = {}

    def key(k: int) -> str:
        if k not in keys:
            keys[k] = key_of(fmt, lines[nodes[k].start])
        return keys[k]

    out: list[int] = []
    for i in hits:
        record = -1
        p = nodes[i].parent
        while p >= 0 and nodes[p].end - nodes[p].start <= WHOLE_MAX_LINES:
            if key(p):
                same = 0
                for sib in children.get(nodes[p].parent, ())[:_SIBLINGS_SEEN]:
                    if sib != p and key(sib) == key(p):
                        same += 1
                        if same >= 2:
                            record = p
                            break
            p = nodes[p].parent
        if record >= 0 and record not in out:
            out.append(record)
            if len(out) > _RECORDS:
                return []
    return out
# A word and a number after it ("group 6", "worker #3", "line 12"); the number's end is
# checked in the text (no digit after it).
_NUMBERED = re.compile(r"\b([A-Za-z]{3,})\s+#?(\d{1,6})(?![\d.,:]\d)\b")
_NUMBERED_MAX = 4  # nodes one phrase may name: more, and it names none in particular


def _numbered_nodes(lines: list[str], starts: list[int], query: str) -> list[tuple[str, int]]:
    """(phrase, node) for each "word number" phrase of the question whose words stand together
    (a blank, a colon or ``#`` between them, any case) at most ``_NUMBERED_MAX`` times in the
    text, each on a node's first line."""
    out: list[tuple[str, int]] = []
    asked = [(m.group(1).lower(), m.group(2)) for m in _NUMBERED.finditer(query[:2000])]
    asked = [(word, num) for word, num in asked if word not in _STOP]
    if not asked:
        return out
    text, offsets = "\n".join(lines), _line_offsets(lines)
    for word, num in asked:
        rx = re.compile(r"(?<![\w])" + re.escape(word) + r"[\s:#]{1,3}" + num + r"(?![\d])", re.IGNORECASE)
        found = {bisect_right(offsets, h.start()) - 1 for h in rx.finditer(text)}
        if not found and len(word) >= 5:
            # The word cut short and the number joined on (redis's "db0" for "database 0",
            # "cpu3", "eth1"): its first letter and some of the rest in order.
            short = re.compile(r"(?<![\w])(" + re.escape(word[0]) + r"[a-z]{1,4})" + num + r"(?![\w])", re.IGNORECASE)
            found = {bisect_right(offsets, h.start()) - 1 for h in short.finditer(text)
                     if letters_in_order(h.group(1).lower(), word)}
        if 0 < len(found) <= _NUMBERED_MAX:
            out += [(f"{word} {num}", i) for i in _nodes_starting_on(starts, found)]
    return out

_PART_MIN = 4  # a question word this long names a part of a compound key …
_REST_MIN = 3  # … when what is left of the key besides it is a word too


def _compound_parts(words: frozenset[str], inside: list[str]) -> set[str]:
    """Which of the question's words ``inside`` a key (each at least _PART_MIN letters) are
    parts of a key word written as one ("identityfile", "serveraliveinterval",
    "Hugepagesize"): with at least _REST_MIN letters of that word before or after it
    ("port" is no part of "import")."""
    out = set()
    for t in inside:
        for w in words:
            if len(w) >= len(t) + _REST_MIN:
                k = w.find(t)
                after = len(w) - k - len(t)
                if k >= 0 and (k == 0 or k >= _REST_MIN) and (after == 0 or after >= _REST_MIN):
                    out.add(t)
                    break
    return out


def _extra_words(lines: list[str], nodes: list[Node], fmt: Format, i: int, terms: set[str]) -> int:
    """Words of a node's key and its ancestors' keys that are not the question's."""
    extra = 0
    while i >= 0:
        key = key_of(fmt, lines[nodes[i].start])
        if key:
            extra += len(_key_words(key) - terms)
        i = nodes[i].parent
    return extra


# A qualified name in the question: "public.products.tags", "app.server.port" (two dots or
# more, so a version or a file name is none). Its qualifier is all but the last part.
_QUALIFIED = re.compile(r"(?<![\w.])([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+)\.([A-Za-z_][\w-]*)(?![\w.])")
_QUALIFIED_NODES = 6  # more nodes than this hold the qualifier and the member: none in particular


def _qualified_nodes(lines: list[str], nodes: list[Node], query: str) -> list[int]:
    """Nodes whose header holds a qualified name's qualifier as written ("public.products")
    and whose lines hold its last part as a word ("tags"): the member is inside them (a
    column in its table's CREATE TABLE, a default set by an ALTER of that table), where the
    question's words alone rank a node naming all three parts some other way first."""
    out: list[int] = []
    for m in _QUALIFIED.finditer(query[:2000]):
        qualifier, member = m.group(1).lower(), m.group(2).lower()
        word = re.compile(r"(?<![\w.])" + re.escape(member) + r"(?![\w])", re.IGNORECASE)
        found = []
        for k, nd in enumerate(nodes):
            if qualifier not in lines[nd.start].lower():
                continue
            if any(word.search(lines[j]) for j in range(nd.start, min(nd.end, nd.start + WHOLE_MAX_LINES))):
                found.append(k)
                if len(found) > _QUALIFIED_NODES:
                    break
        if len(found) <= _QUALIFIED_NODES:
            out += found
    return out


def keep_with_ancestors(nodes: list[Node], keep: list[bool], i: int) -> None:
    """Keeps node ``i``'s header and its ancestors' headers, up to the first one kept."""
    while i >= 0 and not keep[nodes[i].start]:
        keep_header(nodes[i], keep)
        i = nodes[i].parent


def keep_header(nd: Node, keep: list[bool]) -> None:
    """Keep a node's header lines and the lines that close its block (its body may stay
    elided)."""
    for k in range(nd.start, nd.head_end):
        keep[k] = True
    for a, b in nd.closers:
        for k in range(a, b):
            keep[k] = True


def dropped_runs(keep: list[bool]) -> Iterator[tuple[int, int]]:
    """Each run [i, j) of lines not kept, in order. A caller may mark lines of the run it
    was just given as kept; the next run is looked for after it. (``keep`` holds bools:
    ``list.index`` finds each run's ends in C.)"""
    n, i = len(keep), 0
    while i < n:
        try:
            i = keep.index(False, i)
        except ValueError:
            return
        try:
            j = keep.index(True, i + 1)
        except ValueError:
            j = n
        yield i, j
        i = j


def fill_short_runs(lines: list[str], keep: list[bool]) -> None:
    """Keep dropped runs too short to be worth a comment (Markdown's runs are whole blocks:
    one too short for a comment is kept whole too)."""
    for i, j in dropped_runs(keep):
        nonblank = 0
        for k in range(i, j):  # counted only up to MIN_RUN: a long run needs no more
            if lines[k].strip():
                nonblank += 1
                if nonblank >= MIN_RUN:
                    break
        if nonblank < MIN_RUN:
            for k in range(i, j):
                keep[k] = True


def _nodes_starting_on(starts: list[int], lines: set[int]) -> list[int]:
    """Indices of the nodes whose first line is one of ``lines``, ascending."""
    out = []
    for line in sorted(lines):
        i = bisect_left(starts, line)
        if i < len(starts) and starts[i] == line:
            out.append(i)
    return out


_FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"  # İ ı ſ K


def _lines_holding(lines: list[str], offsets: list[int], terms: set[str]) -> tuple[set[int], Callable[[str], bool]]:
    """The lines holding one of the (ASCII) terms, case-insensitive, and that test for a
    piece of the text. The text is lower-cased once and each term found with
    ``str.find``: a regex alternation tries every term at every character (7 ms on a
    26 kB text) and costs 0.2 ms to compile for each question. The only other
    characters a case-insensitive regex matches to ASCII letters are these four (the
    Kelvin sign matches "k"): a text holding one of them takes the regex."""
    text = "\n".join(lines)
    low = _lowered(lines)
    if not text.isascii() and (any(c in text for c in _FOLDS_TO_ASCII) or len(low) != len(text)):
        # (a lower case of another length would move the offsets, too)
        rx = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
        return {bisect_right(offsets, m.start()) - 1 for m in rx.finditer(text)}, lambda s: rx.search(s) is not None
    hit: set[int] = set()
    for term in terms:
        pos = low.find(term)
        while pos >= 0:
            line = bisect_right(offsets, pos) - 1
            hit.add(line)
            # the next line's start: one hit per line is enough
            pos = low.find(term, offsets[line + 1]) if line + 1 < len(offsets) else -1
    # a piece of this text lower-cases letter for letter as the regex would match it
    return hit, lambda s: any(map(s.lower().__contains__, terms))


_LAST_LOWERED: tuple[list[str] | None, str] = (None, "")


def _lowered(lines: list[str]) -> str:
    """The lines joined and lower-cased, once per text: ``select`` looks for the question's
    words and anchors in it, ``with_named_lines`` for the same words in values, each call on
    the same list of lines. One slot, by identity: the list is not changed between them."""
    global _LAST_LOWERED
    last, low = _LAST_LOWERED
    if last is not lines:
        low = "\n".join(lines).lower()
        _LAST_LOWERED = (lines, low)
    return low


def _line_offsets(lines: list[str]) -> list[int]:
    """Character offset of each line's start in ``"\n".join(lines)``."""
    return list(accumulate(map((1).__add__, map(len, lines[:-1])), initial=0)) if lines else []


def render(lines: list[str], keep: list[bool], fmt: Format, note: str = "lines elided") -> tuple[str, int, int]:
    """(output, elided runs, elided lines): kept lines verbatim, each dropped run as one
    comment line at the indentation of its first non-blank line."""
    out: list[str] = []
    runs = dropped = 0
    done = 0  # lines before this are written
    for i, j in dropped_runs(keep):
        out.extend(lines[done:i])
        first = next((lines[k] for k in range(i, j) if lines[k].strip()), "")
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        count = j - i
        out.append(comment_line(fmt, indent, f"… {count} {note} (lines {i + 1}-{j}) …"))
        runs += 1
        dropped += count
        done = j
    out.extend(lines[done:])
    return "\n".join(out), runs, dropped
