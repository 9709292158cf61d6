"""One file's lines out of a stored search output (grep, rg, git grep), asked by its path.

The search compressor's marker tells the model to retrieve a file's hits with the file's
path as the query. Ranking lines by BM25 against a path does not answer that: other files
share the path's words, heading-mode hit lines (``12:text`` under an ``rg --heading`` path
line) hold no path at all, and the answer is capped. So a query that is exactly a path the
output prints gets every line printed for that path, in order: ``path:12:text``,
``path-12-text`` (context), ``path:text``, or the heading line and the ``12:text`` lines
under it.
"""

from __future__ import annotations

import re

_HEADING_HIT = re.compile(r"\d+[:-]")
_CONTEXT = re.compile(r"-\d+-")
_MAX_QUERY = 1000


def file_lines(original: str, query: str) -> list[str]:
    """Every line ``original`` prints for the path ``query`` ([] when it prints none)."""
    q = query.strip()
    # A path has a slash or a dot; a bare word ("ERROR") keeps its ranked search.
    if not q or len(q) > _MAX_QUERY or any(c.isspace() for c in q) or not ("/" in q or "." in q) \
            or q not in original:
        return []
    bare = q.removeprefix("./")
    spellings = (f"./{bare}", bare)  # grep prints "./" when told to search "."; rg does not
    out: list[str] = []
    under = False  # inside this path's rg heading block
    hits = 0
    for line in original.splitlines():
        if under:
            if _HEADING_HIT.match(line):
                out.append(line)
                hits += 1
                continue
            under = False
        if line in spellings:
            out.append(line)
            under = True
            continue
        p = next((p for p in spellings if line.startswith(p)), None)
        if p is None:
            continue
        rest = line[len(p):]
        # "path:12:text" / "path:text" is a hit; "path-12-text" a context line; "path-2.py:…"
        # is another file whose name begins like this one.
        if rest.startswith(":") or _CONTEXT.match(rest):
            out.append(line)
            hits += 1
    return out if hits else []
