"""Message templates: which lines (or string values) are the same kind of event.

Two levels, both cheap per line:

* the **key** of a line masks only what is certainly variable — every token tail that
  starts with a digit (numbers, timestamps, IPs, versions, durations, counters, most hex
  ids and UUIDs) — in one regex pass. Lines with equal keys are the same event; a key seen once is a *one-off*. The key
  is deliberately fine: rarity decides what stays in view, and a coarser key could fold a
  one-off event into a frequent group and hide it.
* **clusters** group keys the way Drain does (He et al., ICWS 2017): a fixed-depth parse
  tree routes a key by its token count and leading constant tokens, and the key joins the
  most similar cluster there when enough of its tokens match (the differing positions
  become the wildcard ``<*>``). Clusters are what a frequent group is summarised as, so
  "client closed connection … cmd=ping" and "… cmd=get" read as one template with "cmd"
  varying. The tree only ever sees distinct keys, never every line.

``describe`` summarises what varies inside a cluster (numeric ranges, distinct values,
first/last timestamp) from the raw lines, so an exemplar plus its summary stands in for
hundreds of lines.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain

WILDCARD = "<*>"
# Certainly-variable parts, in one alternation so a line is scanned once. Digit runs
# cover numbers, timestamps, IPs, ports and durations; long hex runs and UUIDs cover ids.
# A token tail that starts with a digit: numbers, versions, timestamps, IPs, durations,
# ids and hex hashes that start with a digit ("2026-11-22T03:00:01Z", "10.0.0.5:5432",
# "45ms", "5f2a9c1e") each become one "#". Starting the match only at a digit keeps the
# scan fast (about 1 µs a line). A second pass folds the few hex letters a masked id may
# start with ("job-a3f9c21e" -> "job-a#" -> "job-#"), so ids that start with a letter
# do not split one event into a key per leading letter. The same pass folds the
# two-character fan-out directories of content-addressed paths when they happen to hold
# no digit: ".../packages/fe/b8/<hash>/x.whl", ".git/objects/ab/<hash>", a cache's
# "sha512/cd/ef/<hash>" (a run of them followed by a masked segment); otherwise about a
# quarter of such lines would get a key of their own from the letters of their hash.
_KEY_MASK = re.compile(r"[0-9][0-9A-Za-z_.:+~-]*")
# Read as ``(?<![0-9A-Za-z])[a-fA-F]{1,12}#|(?<=/)[a-fA-F]{2}(?=/(?:[a-fA-F]{2}/)*[a-fA-F]{0,12}#)``;
# written to start with a character class, which the regex engine scans for quickly (the
# lookbehinds then look back over that first letter).
_HEX_PREFIX = re.compile(r"[a-fA-F](?:(?<![0-9A-Za-z][a-fA-F])[a-fA-F]{0,11}#"
                         r"|(?<=/[a-fA-F])[a-fA-F](?=/(?:[a-fA-F]{2}/)*[a-fA-F]{0,12}#))")


# Tokens that are variable in a cluster display: a masked run ("#:#:#.#", "#.#.#.#:#"),
# a path, or a quoted value. Only used on distinct keys, so it may be slower.
_DISPLAY_RUN = re.compile(r"#(?:[.:,/_+-]?#)*")
_PATH_TOKEN = re.compile(r"^[\"'(\[]?(?:/[\w.@+#-]+){2,}/?[\"')\],:;]?$")
_QUOTED_TOKEN = re.compile(r"^(?:\"[^\"]*\"|'[^']*')[,;:]?$")

SIMILARITY = 0.5  # share of a key's constant tokens a cluster must share to take it
_TREE_DEPTH = 2  # leading tokens the parse tree routes on (after the token count)
_MAX_CHILDREN = 64  # a level with more distinct leading tokens routes the rest to "<*>"
_MAX_CANDIDATES = 8  # clusters of one branch a new key is compared with
_HEADER_SPAN, _HEADER_SHARE, _HEADER_MIN_KEYS = 6, 0.3, 8  # see header_tokens


def key_of(line: str) -> str:
    """The line with its certainly-variable parts masked as ``#``."""
    return _HEX_PREFIX.sub("#", _KEY_MASK.sub("#", line))


def keys_of(text_lines: Sequence[str]) -> list[str]:
    """``key_of`` for every line, in one regex pass over the joined text (a pass per line
    costs about twice as much in Python)."""
    if not text_lines:
        return []
    joined = "\n".join(text_lines)
    keys = _KEY_MASK.sub("#", joined).split("\n")
    if len(keys) != len(text_lines):  # a line with "\n" in it (cannot come from splitlines)
        return [key_of(t) for t in text_lines]
    # The hex-prefix pass runs over the distinct first-pass keys only (few, in a
    # repetitive log).
    distinct = list(dict.fromkeys(keys))
    folded = _HEX_PREFIX.sub("#", "\n".join(distinct)).split("\n")
    if folded == distinct:
        return keys
    fold = dict(zip(distinct, folded))
    return [fold[k] for k in keys]


def _is_variable(token: str) -> bool:
    if "#" in token or token == WILDCARD or "://" in token:  # a URL, like a path, is a value
        return True
    # Paths and quoted values start with one of these; most tokens skip the regexes.
    return token[:1] in _PATH_OR_QUOTE_START and bool(_PATH_TOKEN.match(token) or _QUOTED_TOKEN.match(token))


_PATH_OR_QUOTE_START = frozenset("/\"'([")


def display_token(token: str) -> str:
    if token == WILDCARD or "://" in token or _PATH_TOKEN.match(token) or _QUOTED_TOKEN.match(token):
        return WILDCARD
    return _DISPLAY_RUN.sub(WILDCARD, token) if "#" in token else token


def display(tokens: Sequence[str]) -> str:
    """The template as a reader sees it: each token via ``display_token``, and a run of
    whole-token wildcards as one ``<*>`` — a line header (date, time, pid, level) reads
    ``<*>`` once instead of once per field."""
    out: list[str] = []
    for t in tokens:
        d = display_token(t)
        if d == WILDCARD and out and out[-1] == WILDCARD:
            continue
        out.append(d)
    return " ".join(out)


@dataclass
class Cluster:
    """Keys (and so lines) that Drain considers one template."""

    id: int
    tokens: list[str]  # the template (masked tokens); WILDCARD where members differ
    keys: list[str] = field(default_factory=list)
    count: int = 0  # lines, not keys

    def template(self) -> str:
        return display(self.tokens)


class TemplateMiner:
    """Drain's parse tree over distinct keys: token count, then up to ``_TREE_DEPTH``
    leading constant tokens, then a list of clusters compared by token similarity."""

    def __init__(self, similarity: float = SIMILARITY, header: frozenset[tuple[int, str]] = frozenset()):
        self.similarity = similarity
        # (position, token) pairs of the line header (month names, level marks) that
        # most lines share: they say nothing about the event, so they do not count as
        # shared tokens (see ``header_tokens``).
        self.header = header
        self.clusters: list[Cluster] = []
        self._tree: dict[tuple, list[Cluster]] = {}
        self._children: Counter[tuple] = Counter()
        self._of_key: dict[str, Cluster] = {}
        # token -> _is_variable(token): the same tokens recur across keys ("Unpacking",
        # "...", "up"), and a look-up costs a fifth of the test (issue 34).
        self._variable: dict[str, bool] = {}

    def add(self, key: str, count: int = 1) -> Cluster:
        c = self._of_key.get(key)
        if c is not None:
            c.count += count
            return c
        tokens = key.split()
        if self.header:
            tokens = ["#" if (i, t) in self.header else t for i, t in enumerate(tokens[:_HEADER_SPAN])] + \
                tokens[_HEADER_SPAN:]
        route = self._route(tokens)
        # A key made of parameters (and header tokens) only: see _match. The route holds
        # a step per constant token, and it stops early only after one: a route of the
        # token count alone walked every token and found them all variable.
        bare = len(route) == 1
        c = self._match(tokens, route, bare)
        if c is None:
            # A bare "#" is a parameter from the start: it never counts as shared; so is
            # every token of a key made of parameters only.
            c = Cluster(len(self.clusters), [WILDCARD if t == "#" or bare else t for t in tokens])
            self.clusters.append(c)
            self._tree.setdefault(route, []).append(c)
        else:
            c.tokens = [a if a == b else WILDCARD for a, b in zip(c.tokens, tokens)]
        c.keys.append(key)
        c.count += count
        self._of_key[key] = c
        return c

    def cluster_of(self, key: str) -> Cluster:
        return self._of_key[key]

    def _route(self, tokens: list[str]) -> tuple:
        """Token count, then the first ``_TREE_DEPTH`` *constant* tokens. Drain routes on
        the leading tokens; most log lines lead with a timestamp, a pid or a host, which
        would send every line of a length down one wildcard branch, so variable tokens
        are skipped rather than routed as wildcards."""
        children, variable = self._children, self._variable
        path: tuple = (len(tokens),)
        for t in tokens:
            v = variable.get(t)
            if v is None:
                v = variable[t] = _is_variable(t)
            if v:
                continue
            node = (*path, t)
            if node not in children:
                if children[path] >= _MAX_CHILDREN:
                    node = (*path, WILDCARD)  # a full level: Drain sends further new tokens to the wildcard child
                else:
                    children[path] += 1
                    children[node] = 0
            path = node
            if len(path) > _TREE_DEPTH:
                break
        return path

    def _match(self, tokens: list[str], route: tuple, bare: bool) -> Cluster | None:
        candidates = self._tree.get(route)
        if not candidates:
            return None
        # Similarity counts the key's constant tokens only: a bare "#" (a number, a
        # timestamp) is a parameter, and counting it would let any two lines of a numeric
        # log ("<ts> upgrade libcap2 …", "<ts> status installed curl …") look alike.
        constant = len(tokens) - tokens.count("#")
        if not constant or bare:
            # Nothing but parameters and header tokens (an strace line whose call and flags
            # are the header's and whose path is quoted): such keys of one length are one
            # kind of line, not each an event of its own.
            return next((c for c in candidates if all(t == WILDCARD for t in c.tokens)), None)
        best, best_same = None, 0
        # The most recent clusters of a crowded branch only: bounds the work on logs of
        # thousands of unlike lines (each then starts its own cluster).
        window = candidates[-_MAX_CANDIDATES:]
        # A cluster's tokens never hold a bare "#" (it becomes the wildcard), so only the
        # key's constant tokens can be shared: ``same`` is at most ``constant``, and the
        # first cluster that shares them all is the one the scan would keep (a later one
        # must share more). Issue 34: a line header and one word (pytest's collection
        # tree, "<Function test_x>" 500 times down one wildcard branch) compared all eight
        # clusters token by token; one constant token is one string compare per cluster.
        if constant == 1:
            j = next(k for k, t in enumerate(tokens) if t != "#")
            word = tokens[j]
            best = next((c for c in window if c.tokens[j] == word), None)
            best_same = 1 if best is not None else 0
        else:
            for c in window:
                # Wildcard positions never equal a key token, so they neither help nor hurt.
                same = sum(map(str.__eq__, c.tokens, tokens))
                if same > best_same:
                    best, best_same = c, same
                    if same == constant:
                        break
        return best if best is not None and best_same >= self.similarity * constant else None


def header_tokens(keys: Sequence[str]) -> frozenset[tuple[int, str]]:
    """(position, token) pairs among the first ``_HEADER_SPAN`` tokens held by more than
    ``_HEADER_SHARE`` of the distinct keys: a line header's constant parts ("Nov" of a
    date, redis's "*" level mark, a host name). Counting them as shared tokens would
    cluster "Ready to accept connections" with "Connecting to MASTER <*>"."""
    if len(keys) < _HEADER_MIN_KEYS:
        return frozenset()
    # One Counter over every key's leading (position, token) pairs, counted in C (an
    # update() per key cost a Python call each: ~3 ms on apt's 2 000 keys; issue 34).
    seen = Counter(chain.from_iterable(map(enumerate, [k.split(None, _HEADER_SPAN)[:_HEADER_SPAN] for k in keys])))
    return frozenset(pt for pt, c in seen.items() if c > _HEADER_SHARE * len(keys) and pt[1] != "#")


def mine(keys: Sequence[str]) -> tuple[Counter[str], TemplateMiner]:
    """Counts of each key and the clusters over the distinct keys (first-seen order, so
    the result is deterministic)."""
    counts = Counter(keys)
    miner = TemplateMiner(header=header_tokens(list(counts)))
    for k, n in counts.items():  # Counter keeps first-insertion order
        miner.add(k, n)
    return counts, miner


# --- what varies inside a cluster -------------------------------------------------

_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?(?:ms|s|us|µs|ns|kb|mb|gb|b|%)?$", re.IGNORECASE)
_NUM_PART = re.compile(r"[-+]?\d+(?:\.\d+)?")
_TIME = re.compile(r"\d{1,2}:\d{2}:\d{2}")
_NUM_LEAD = re.compile(r"^[-+]?\d+(?:\.\d+)?")
_DESCRIBE_SAMPLE = 4000  # members read for a summary; beyond this the ends and a spread


def _spread(items: Sequence[int], limit: int) -> list[int]:
    if len(items) <= limit:
        return list(items)
    step = (len(items) - 1) / (limit - 1)
    return [items[round(k * step)] for k in range(limit)]


# Few values are listed with their counts only while they are short ("cmd=ping×300"); long
# ones (URLs with content hashes, temporary paths) would cost more than the lines they
# summarise and read as a distinct count instead.
_FEW_CHARS = 120


def describe(tokens: list[str], rows: Sequence[str], max_parts: int = 4, total: int | None = None) -> str:
    """What varies over the wildcard positions of ``tokens`` in the raw ``rows``, most
    telling first: the time span, values with few variants and their counts
    ("cmd=ping×300, cmd=get×20"; just the values when each occurs once), numeric ranges
    ("took 3–450ms"), then how many distinct values a named position holds ("id: 340
    distinct"; a count with no name to tie it to a position is left out). Rows of another
    token count are skipped.

    When ``rows`` is a sample of ``total`` rows (first and last included), counts are
    scaled and marked "~", and distinct counts read as lower bounds ("340+ distinct")."""
    slots = [i for i, t in enumerate(tokens) if t == WILDCARD or "#" in t]
    if not slots or not rows:
        return ""
    n = len(tokens)
    split = [p for p in (r.split() for r in rows) if len(p) == n]
    if not split:
        return ""
    columns = list(zip(*split))  # one C-level transpose instead of a loop per value
    scale = (total or len(rows)) / len(rows)
    span: list[str] = []
    few: list[str] = []
    ranges: list[str] = []
    many: list[str] = []
    for i in slots:
        vals = columns[i]
        distinct = set(vals)
        if len(distinct) <= 1:
            continue
        if _TIME.search(vals[0]):
            if not span:
                span.append(f"{vals[0]}–{vals[-1]}")
        elif len(distinct) <= 4 and sum(map(len, distinct)) <= _FEW_CHARS:
            if len(distinct) == len(vals):  # each value once: the counts would say nothing
                few.append(", ".join(vals))
            else:
                few.append(", ".join(f"{v}×{_count(c, scale)}" for v, c in Counter(vals).most_common()))
        elif len(span) + len(few) + len(ranges) < max_parts and (r := _numeric_range(distinct)) is not None:
            ranges.append(f"{_label(tokens, i)}{_num(r[0])}–{_num(r[1])}{_NUM_LEAD.sub('', vals[0], count=1)}")
        elif label := _label(tokens, i).rstrip(" =:"):
            # (A numeric column past the parts shown reads as its distinct count.)
            many.append(f"{label}: {len(distinct)}{'+' if scale > 1 else ''} distinct")
    return "; ".join((span + few + ranges + many)[:max_parts])


def _count(c: int, scale: float) -> str:
    return str(c) if scale <= 1 else f"~{round(c * scale)}"


def _numeric_range(distinct: set[str]) -> tuple[float, float] | None:
    """(min, max) when every value is a number (with an optional unit), else None. A
    sample is checked first, so a column of words costs a few matches, not one each."""
    sample = list(distinct)[:32]
    if not all(_NUMBER.match(v) for v in sample) or not all(_NUMBER.match(v) for v in distinct):
        return None
    nums = [float(_NUM_PART.search(v).group(0)) for v in distinct]
    return min(nums), max(nums)


def extreme_rows(tokens: list[str], rows: Sequence[str], max_slots: int = 3) -> set[int]:
    """Positions in ``rows`` holding the largest and the smallest value of each numeric
    wildcard position (a timestamp is not a measurement): the slowest call, the largest
    upload."""
    slots = [i for i, t in enumerate(tokens) if t == WILDCARD or "#" in t]
    n = len(tokens)
    found: set[int] = set()
    done = 0
    split: list[list[str] | None] = [None] * len(rows)  # each row split once, when first read
    for i in slots:
        best: tuple[float, int] | None = None
        worst: tuple[float, int] | None = None
        numeric = True
        for k, r in enumerate(rows):
            parts = split[k]
            if parts is None:
                parts = split[k] = r.split()
            if len(parts) != n:
                continue
            v = parts[i]
            if not _NUMBER.match(v) or _TIME.search(v):
                numeric = False
                break
            x = float(_NUM_PART.search(v).group(0))
            if best is None or x > best[0]:
                best = (x, k)
            if worst is None or x < worst[0]:
                worst = (x, k)
        if numeric and best is not None and worst is not None and best[0] != worst[0]:
            found.update((best[1], worst[1]))
            done += 1
            if done >= max_slots:
                break
    return found


def _label(tokens: list[str], i: int) -> str:
    """A name for position ``i``: the constant part of its token ("id=" of "id=#") or
    the word before it ("took" for "took #ms")."""
    t = tokens[i]
    m = re.match(r"^([A-Za-z_][\w.-]*[=:])", t)
    if m:
        return m.group(1)
    if i > 0 and tokens[i - 1] != WILDCARD and "#" not in tokens[i - 1] and tokens[i - 1].isalpha():
        return tokens[i - 1] + " "
    return ""


def _num(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"
