"""Answer scoring (exact match, contains, token F1) and a paired bootstrap CI."""

from __future__ import annotations

import random
import re
import string
from collections import Counter
from collections.abc import Sequence

_PUNCT = re.compile(f"[{re.escape(string.punctuation.replace('.', '').replace('-', '').replace(':', ''))}]")


def normalize(text: str) -> str:
    """Lowercase, drop punctuation except the characters that live inside values
    (``.`` in numbers, ``-`` in ids, ``:`` in timestamps), collapse whitespace."""
    text = _PUNCT.sub(" ", (text or "").lower())
    # A trailing full stop or colon ("error:") ends a sentence or a label, not a value.
    return " ".join(t.rstrip(".:") for t in text.split())


def exact_match(answer: str, expected: str) -> bool:
    return normalize(answer) == normalize(expected)


def contains(answer: str, expected: str) -> bool:
    """Every token of the expected answer appears in the answer (order-free)."""
    ans = normalize(answer)
    return all(tok in ans for tok in normalize(expected).split())


def fact_recall(answer: str, facts: Sequence[str]) -> float:
    """Share of ``facts`` the answer states, each matched as a whole after normalisation
    (a fact is a value or a line from the tool output, so its words must stay together)."""
    if not facts:
        return 0.0
    ans = f" {normalize(answer)} "

    def said(fact: str) -> bool:
        n = normalize(fact)
        return f" {n} " in ans if n else fact in (answer or "")  # all punctuation: verbatim

    return sum(said(f) for f in facts) / len(facts)


def token_f1(answer: str, expected: str) -> float:
    a, e = normalize(answer).split(), normalize(expected).split()
    if not a or not e:
        return float(a == e)
    common = sum((Counter(a) & Counter(e)).values())
    if common == 0:
        return 0.0
    p, r = common / len(a), common / len(e)
    return 2 * p * r / (p + r)


def bootstrap_delta(base: Sequence[float], other: Sequence[float], *, rounds: int = 2000, seed: int = 0,
                    confidence: float = 0.95) -> dict[str, float]:
    """Mean of ``other - base`` over paired items, with a percentile bootstrap CI."""
    if len(base) != len(other):
        raise ValueError("paired scores must have the same length")
    n = len(base)
    if n == 0:
        return {"mean": 0.0, "lo": 0.0, "hi": 0.0, "n": 0}
    diffs = [o - b for b, o in zip(base, other)]
    rng = random.Random(seed)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(rounds))
    tail = (1 - confidence) / 2
    lo = means[int(tail * (rounds - 1))]
    hi = means[int((1 - tail) * (rounds - 1))]
    return {"mean": sum(diffs) / n, "lo": lo, "hi": hi, "n": n}
