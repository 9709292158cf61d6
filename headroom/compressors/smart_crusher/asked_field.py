"""Which field of a nested listing a question asks an extreme of: "Which issue has the
most comments?", "Which file was uploaded most recently?".

An API listing (issues with user/label sub-objects, release files with digests, test
reports with setup/call phases) is an array of objects holding objects. A question that
asks for the item with the largest, smallest, newest or oldest value of one field needs
the extreme item(s) whole, the field's value of *every* item and the rest behind the
marker (:mod:`.extreme_plan`); the generic keep plan (rare values, change points,
filler) gives none of them reliably. This module finds the field and the direction.

The field is matched loosely against the question: a field path's words (split at dots,
underscores, dashes and camelCase) must all be words of the question in some inflection
or stem ("updated at" → ``updated_at``, "comments" → ``comments_count``, "uploaded" →
``upload-time``, "depends" → ``dependencies``), words its superlative implies
("largest" → a size, "newest" → a date, "slowest" → a duration), or generic words
(``count``, ``at``, ``time``, ``iso`` …) that add nothing. Values are numbers, ISO-8601
instants, or the length of an array or object field ("most labels").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ...query.intent import content_lemmas, intents_of, names_content_word
from ..tables.select import MAX_WORDS, MIN_WORDS

# Words that only qualify a field name ("comments_count", "updated_at", "upload_time_iso_8601").
_GENERIC = frozenset({"at", "on", "count", "counts", "num", "number", "total", "n", "no", "value", "val", "iso",
                      "time", "date", "ms", "sec", "secs", "seconds", "in", "of", "the", "utc", "ts"})
# The table selector's superlatives, and comparatives and plain adjectives ("the most recent",
# "the last", "bigger") that rank JSON fields too.
_MAX_WORDS = MAX_WORDS | {"latest", "newest", "recent", "recently", "last", "more", "big", "large", "high", "long",
                          "slow", "new", "late"}
_MIN_WORDS = MIN_WORDS | {"oldest", "earliest", "first", "small", "low", "short", "fast", "old", "early", "less",
                          "fewer"}
# A superlative that names no field implies one: the field words it stands for.
_IMPLIED = (
    (frozenset({"largest", "biggest", "smallest", "heaviest", "lightest", "large", "big", "small", "heavy", "light"}),
     ("size", "bytes", "length", "filesize")),
    (frozenset({"latest", "newest", "oldest", "earliest", "recent", "recently", "new", "old"}),
     ("created", "published", "upload", "uploaded", "date", "time", "timestamp", "updated", "modified")),
    (frozenset({"longest", "slowest", "fastest", "shortest", "quickest", "slow", "fast", "long"}),
     ("duration", "elapsed", "took", "latency", "seconds", "time")),
)
# Fields that name an item, in order of preference (else the most distinct short string).
_NAME_FIELDS = ("title", "name", "filename", "full_name", "nodeid", "slug", "key", "login", "path", "id", "number",
                "version", "_id", "uuid")
_SAMPLE = 64  # items read to find the fields
_MAX_DEPTH = 3  # nesting levels followed into sub-objects
_MAX_SUBKEYS = 32  # a sub-object with more keys is a map keyed by data, not named fields
_MAX_FIELDS = 3  # equally good fields kept side by side ("duration" of setup, call and teardown)
_NEAR = 3  # words between a superlative and the field it ranks by ("the largest number of stars")
_STEM = 6  # letters a question word and a field word must share to match as one stem
_QUALIFIER = 4  # a field word this short beside a named one of _STEM letters need not be named
_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])")
_WORD = re.compile(r"[a-z]+")
_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?(?:Z|[+-]\d\d:?\d\d)?")


@dataclass(frozen=True)
class AskedExtreme:
    paths: tuple[tuple[str, ...], ...]  # the asked fields, as key paths
    direction: int  # +1 largest/latest, -1 smallest/oldest, 0 both ends
    name_path: tuple[str, ...] | None  # the field that names an item


def is_nested_listing(items: list[Any]) -> bool:
    """Objects of which at least half hold a sub-object or an array (sampled)."""
    head = items[:_SAMPLE]
    if not head or not all(isinstance(it, dict) for it in head):
        return False
    return sum(any(isinstance(v, (dict, list)) for v in it.values()) for it in head) * 2 >= len(head)


def _field_paths(items: list[dict]) -> dict[tuple[str, ...], None]:
    """Key paths to scalar or array values in the sampled items, in first-seen order."""
    out: dict[tuple[str, ...], None] = {}

    def walk(obj: dict, prefix: tuple[str, ...]) -> None:
        for k, v in obj.items():
            if not isinstance(k, str):
                continue
            path = (*prefix, k)
            out.setdefault(path)  # an object counts by its entries ("most dependencies")
            # Into sub-objects with named fields, not into maps keyed by data (a version → time map).
            if isinstance(v, dict) and len(path) < _MAX_DEPTH and len(v) <= _MAX_SUBKEYS:
                walk(v, path)

    for it in items[:_SAMPLE]:
        walk(it, ())
    return out


def _words_of(name: str) -> list[str]:
    return [w.lower() for w in _SPLIT.split(name) if w]


def sort_key(value: Any) -> float | None:
    """A comparable number for a field value: numbers as they are, ISO dates as epoch
    seconds, arrays and objects by their length; None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, (list, dict)):
        return float(len(value))
    if isinstance(value, str) and 10 <= len(value) <= 40 and _ISO_DATE.fullmatch(value):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return dt.timestamp()
    return None


def value_at(item: Any, path: tuple[str, ...]) -> Any:
    for k in path:
        if not isinstance(item, dict):
            return None
        item = item.get(k)
    return item


def _direction(words: set[str]) -> int:
    up, down = bool(words & _MAX_WORDS), bool(words & _MIN_WORDS)
    return 1 if up and not down else -1 if down and not up else 0


def _named(word: str, asked: frozenset[str]) -> bool:
    """A field word the question names, in any inflection, or sharing a stem of at least
    _STEM letters with a question word ("depends" and ``dependencies``)."""
    if names_content_word(word, asked):
        return True
    # A shared stem of _STEM letters: "requires" and "requirements", "depends" and "dependencies".
    return len(word) >= _STEM and any(len(a) >= _STEM and word[:_STEM] == a[:_STEM] for a in asked)


@dataclass(frozen=True)
class _Question:
    asked: frozenset[str]  # content words, every inflection (camelCase and snake_case split)
    near: frozenset[str]  # those within _NEAR words of a superlative ("the most *comments*")
    implied: tuple[str, ...]  # field words the superlatives imply, in order of preference
    direction: int


def _question(query: str) -> _Question:
    split = _SPLIT.sub(" ", query)  # "devDependencies" -> "dev Dependencies", "updated_at" -> "updated at"
    words = _WORD.findall(split.lower())
    ranking = _MAX_WORDS | _MIN_WORDS | {w for trigger, _ in _IMPLIED for w in trigger}
    marks = [i for i, w in enumerate(words) if w in ranking or (w.endswith("est") and len(w) > 5)]
    near = [w for i, w in enumerate(words) if any(abs(i - m) <= _NEAR for m in marks)]
    present = set(words)
    implied = tuple(w for trigger, fields in _IMPLIED if present & trigger for w in fields)
    return _Question(content_lemmas(query) | content_lemmas(split), content_lemmas(" ".join(near)), implied,
                     _direction(present))


def _score(path: tuple[str, ...], q: _Question) -> tuple[int, ...] | None:
    """How well a field path answers the question, or None when it does not match: its
    leaf words must all be named by the question, implied by its superlative, or generic.

    Ranked by: words the question names next to its superlative ("the most comments",
    "updated most recently"); whether the field is of the kind the superlative implies
    ("the biggest file ... uploaded": ``size``, not ``upload_time``); fewer field words
    not named next to it ("webpack-dev-server ... the fewest dependencies":
    ``dependencies``, not ``devDependencies``); words named elsewhere; words implied; a field named only by a generic word (``number`` in "the
    highest number of labels") last; then the rank of the first implied word ("the oldest
    issue": ``created_at`` before ``updated_at``) and fewer words."""
    words = _words_of(path[-1])
    leaf = [w for w in words if w not in _GENERIC and not w.isdigit()]
    only_generic = not leaf
    leaf = leaf or words[:1]  # a field named "time" or "number"
    named = [w for w in leaf if _named(w, q.asked)]
    implied_hits = [w for w in leaf if w in q.implied]
    if any(len(w) >= _STEM for w in named):
        # A short qualifier beside a named word ("dist" of ``requires_dist``) adds nothing.
        leaf = [w for w in leaf if w in named or w in implied_hits or len(w) > _QUALIFIER]
    parent = [w for p in path[:-1] for w in _words_of(p)]
    named_parent = [w for w in parent if _named(w, q.asked)]
    # A generic leaf under a named parent ("published" → ``published.at``) matches too.
    if len(set(named) | set(implied_hits)) < len(leaf) and not (only_generic and named_parent):
        return None
    strong = [] if only_generic else named + named_parent
    near = sum(1 for w in strong if _named(w, q.near))
    rank = min((q.implied.index(w) for w in implied_hits), default=0)
    weak = len(named) if only_generic else 0
    loose = sum(1 for w in leaf if not _named(w, q.near))  # "dev" of devDependencies, named far off
    return (near, int(bool(implied_hits)), -loose, len(strong) - near, len(implied_hits), weak, -rank,
            -(len(parent) + len(words)))


def _name_path(items: list[dict], paths: dict[tuple[str, ...], None]) -> tuple[str, ...] | None:
    """The top-level field that names an item: a conventional name whose values are mostly
    distinct, else the most distinct short string field."""
    head = items[:_SAMPLE]
    distinct: dict[str, int] = {}
    for p in paths:
        if len(p) != 1:
            continue
        vals = [it.get(p[0]) for it in head]
        if all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in vals) and \
                all(len(str(v)) <= 200 for v in vals):
            distinct[p[0]] = len(set(vals))
    for k in _NAME_FIELDS:
        if distinct.get(k, 0) * 10 >= 9 * len(head):
            return (k,)
    strings = [k for k in distinct if all(isinstance(it.get(k), str) for it in head)]
    best = max(strings, key=lambda k: distinct[k], default=None)
    return (best,) if best is not None and distinct[best] * 10 >= 9 * len(head) else None


def asked_extreme(items: list[Any], query: str) -> AskedExtreme | None:
    """The field(s) and direction a question asks an extreme of, when ``items`` is a nested
    listing holding such a field; None otherwise (the usual keep plan then applies)."""
    if not query or not intents_of(query) & {"extreme", "last", "first"} or not is_nested_listing(items):
        return None
    q = _question(query)
    paths = _field_paths(items)
    scored: list[tuple[tuple[int, ...], tuple[str, ...]]] = []
    for p in paths:
        s = _score(p, q)
        if s is None:
            continue
        # The field must hold comparable values (a number, a date, an array) in most items.
        col = [sort_key(value_at(it, p)) for it in items[:_SAMPLE]]
        if sum(v is not None for v in col) * 2 < len(col) or len({v for v in col if v is not None}) < 2:
            continue
        scored.append((s, p))
    if not scored:
        return None
    best = max(s for s, _ in scored)
    direction = q.direction
    chosen: list[tuple[str, ...]] = []
    orders: list[list[int]] = []
    for p in (p for s, p in scored if s == best):
        # Two fields that rank the items alike (``upload_time`` and ``upload_time_iso_8601``)
        # are one answer: the first is enough.
        order = ranked(items, p, direction) if len(chosen) or len(scored) > 1 else []
        if order and order in orders:
            continue
        chosen.append(p)
        orders.append(order)
        if len(chosen) == _MAX_FIELDS:
            break
    return AskedExtreme(tuple(chosen), direction, _name_path(items, paths))


def ranked(items: list[Any], path: tuple[str, ...], direction: int) -> list[int]:
    """Positions of items holding a comparable value, best first (ties by position)."""
    keyed = [(k, i) for i, it in enumerate(items) if (k := sort_key(value_at(it, path))) is not None]
    keyed.sort(key=lambda kv: (-kv[0] if direction >= 0 else kv[0], kv[1]))
    return [i for _, i in keyed]
