"""Programming concepts a question names by their common name, and the keyword that spells
them in code: "is there a coroutine?" is answered by an ``async def`` line, "which helper is
a generator?" by the one that yields. The keyword joins the question the compressors read,
so every reader (tag listings, pydoc pages, JSON symbol dumps) looks for it as for any other
word. Language syntax, not any output's field names: kept short on purpose.
"""

from __future__ import annotations

import re

_SPELLED = {
    "coroutine": "async", "coroutines": "async", "asynchronous": "async",
    "generator": "yield", "generators": "yield",
    "static method": "staticmethod", "static methods": "staticmethod",
    "class method": "classmethod", "class methods": "classmethod",
    "abstract method": "abstractmethod", "abstract methods": "abstractmethod",
    "data class": "dataclass", "data classes": "dataclass",
}
_NAMED = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _SPELLED), key=len, reverse=True)) + r")\b", re.IGNORECASE)


def with_code_words(question: str) -> str:
    """``question`` with the keyword of each programming concept it names appended (itself
    when it names none or already holds the keyword)."""
    if not question:
        return question
    low = question.lower()
    extra = {_SPELLED[m.group(1).lower()] for m in _NAMED.finditer(question[:2000])}
    extra = [w for w in sorted(extra) if not re.search(rf"\b{w}\b", low)]
    return f"{question}\n{' '.join(extra)}" if extra else question
