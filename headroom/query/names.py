"""Which of many compound names a question asks for, by the words the names are made of.

Counter dumps, metrics and settings name their entries by joining words: ``TcpActiveOpens``,
``udp_rcvbuf_errors``, ``net.ipv4.tcp_keepalive_time``, ``IcmpOutRateLimitHost``. A
question says the words, not the name ("how many TCP connections did this host open
actively?"), so no whole name is in it and a search for the whole name finds nothing. Split
at case changes, digits and punctuation, a name's parts are words again; the names whose
parts say the most of the question's content words (each counted once, in any inflection)
are the ones it asks about.

Nothing here knows what a counter or a setting means: only the names' own spelling and the
question's words count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .intent import content_lemmas, names_content_word

# A name's parts: an upper-case run not followed by lower case (``TCP`` in ``TCPSack``),
# a capitalised or lower-case word, digits. Everything else separates.
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
MIN_PARTS_SAID = 2  # one word is a search hit, not a name; two name an entry
MOST_NAMED = 6  # more names tying for the most words: the question names none of them


@lru_cache(maxsize=16384)  # the same names come back in every call over one output
def name_parts(name: str) -> tuple[str, ...]:
    """The lower-cased words of a compound name, digits left out (``Udp6InDatagrams``:
    udp, in, datagrams)."""
    return tuple(p.lower() for p in _PART.findall(name) if not p.isdigit())


def letters_in_order(letters: str, word: str) -> bool:
    """Whether ``letters`` occur in ``word`` in this order, not necessarily together (an
    abbreviation's letters: "usr" in "user", "db" in "database")."""
    it = iter(word)
    return all(ch in it for ch in letters)


def question_words(question: str) -> frozenset[str]:
    """The question's content words in every form, a hyphenated word also joined and
    split ("keep-alive" says the ``keepalive`` of ``tcp_keepalive_time``; "per-host" the
    ``Host`` of ``IcmpOutRateLimitHost``)."""
    words = content_lemmas(question)
    # Nouns a question about an output says in passing ("the file", "its state") are parts
    # of names all the same (``nr_inactive_file``): content_lemmas leaves them out.
    nouns = {w for w in _NOUN.findall(question.lower()) if w in _NAME_NOUNS}
    if nouns:
        words = words | content_lemmas(" ".join(nouns)) | nouns | {w.rstrip("s") for w in nouns}
    hyphenated = [w for w in words if "-" in w]
    if not hyphenated:
        return words
    joined = {w.replace("-", "") for w in hyphenated}
    return words | joined | content_lemmas(" ".join(w.replace("-", " ") for w in hyphenated))


_NOUN = re.compile(r"[a-z]+")
_NAME_NOUNS = frozenset({"file", "files", "time", "times", "state", "status", "type", "line", "lines", "message",
                         "messages", "event", "events", "entry", "entries", "record", "records", "item", "items",
                         "run", "runs", "kind", "log", "logs", "output", "part", "parts"})


_COMPOUND_WORD = 4  # letters a question word needs to be read inside a compound part


def _compound_says(part: str, words: frozenset[str], every_part: set[str]) -> bool:
    """Whether ``part`` joins a question word and another part the names use, without a
    separator: git's ``pushurl`` beside ``url`` says "push"."""
    return any(len(w) >= _COMPOUND_WORD and len(part) > len(w) + 1
               and ((part.startswith(w) and part[len(w):] in every_part)
                    or (part.endswith(w) and part[:-len(w)] in every_part)) for w in words)


def named_by_parts(names: Sequence[str], question: str, most: int = MOST_NAMED) -> list[int]:
    """Indices of the names whose parts say the most distinct content words of the
    question (at least ``MIN_PARTS_SAID``), those with the fewest other parts first; none
    when more than ``most`` of those tie. Names of one part are no compounds: skipped."""
    if not question or not names:
        return []
    words = question_words(question)
    if len(words) < MIN_PARTS_SAID:
        return []
    said_by_part: dict[str, bool] = {}
    scored: list[tuple[int, int, int]] = []  # (-words said, other parts, index)
    best = MIN_PARTS_SAID
    split = [name_parts(n) if isinstance(n, str) and len(n) <= 200 else () for n in names]
    every_part = {p for parts in split for p in parts}
    for i, parts in enumerate(split):
        if len(parts) < 2:
            continue
        said: set[str] = set()
        other = 0
        for p in parts:
            hit = said_by_part.get(p)
            if hit is None:
                hit = said_by_part[p] = len(p) >= 3 and (names_content_word(p, words)
                                                         or _compound_says(p, words, every_part))
            if hit:  # a word said once however often the name inflects it (remote, remotes)
                said.add(p[:-1] if p.endswith("s") and len(p) > 3 else p)
            else:
                other += 1
        if len(said) >= best:
            best = len(said)
            scored.append((-len(said), other, i))
    top = sorted(s for s in scored if -s[0] == best)
    if not top:
        return []
    # Among the names saying as much, those saying least besides: "TcpAttemptFails" before
    # "TcpExtTCPFastOpenActiveFail" for "how many TCP connects failed".
    fewest = [s for s in top if s[1] == top[0][1]]
    chosen = fewest if len(fewest) <= most else []
    if not chosen and len(top) <= most:
        chosen = top
    return sorted(i for _, _, i in chosen)
