"""Which symbol was searched for: from the tool call, else from the hits themselves.

1. The tool call's arguments: a shell command (``grep -rnw X .``, ``rg -n X``, ``git grep
   -n X``, also behind ``cd dir &&`` or before ``| head``) gives its pattern; any other short
   string argument (a search tool's own pattern argument, whatever it is called) gives its
   identifiers. Either is kept only when the hits bear it out (it occurs in at least
   ``_BORNE_OUT`` of the sampled hit lines), so a path or glob argument never counts.
2. Else the hits' shared identifier: the word present in (nearly) every sampled hit line.
3. Identifiers the question names that occur as whole words in the hits are added (a
   question about ``X`` over a grep for something wider still keeps ``X``'s definitions).
"""

from __future__ import annotations

import json
import operator
import re
import shlex
from collections import Counter
from collections.abc import Sequence
from itertools import repeat
from typing import Any

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_REGEX_ESCAPE = re.compile(r"\\[A-Za-z]|\\.")
_SEARCHERS = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "ugrep", "ripgrep", "zgrep"}
# Options of grep/rg/ag/git grep that take a value (the pattern is then not that value).
_VALUED = {"-A", "-B", "-C", "-m", "-f", "-g", "-t", "-T", "-j", "-M", "-d", "-D", "--include", "--exclude",
           "--exclude-dir", "--glob", "--iglob", "--type", "--type-not", "--max-count", "--max-depth",
           "--context", "--before-context", "--after-context", "--threads", "--sort", "--sortr", "--color",
           "--colors", "--file", "--max-columns", "--ignore-file", "--pre", "--encoding", "-E", "--engine"}
# Characters that make shlex split otherwise than str.split: quotes and escapes, and the
# ASCII characters str.split takes for spaces and shlex does not.
_SHELL_SPECIAL = ("'", '"', "\\", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f")
_SAMPLE = 200
_HEAD = 2000
_BORNE_OUT = 0.3
_SHARED = 0.9
_MAX_ARG_CHARS = 300
_MAX_SYMBOLS = 4


def _string_values(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 4:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _string_values(v, out, depth + 1)
    elif isinstance(value, list):
        for v in value[:20]:
            _string_values(v, out, depth + 1)


def argument_strings(tool_arguments: Any) -> list[str]:
    args = tool_arguments
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return [args]
    out: list[str] = []
    _string_values(args, out)
    return out


def command_patterns(command: str) -> list[str]:
    """The patterns a shell command line searches for (each searcher in a pipeline)."""
    line = command[:2000]
    if line.isascii() and not any(c in line for c in _SHELL_SPECIAL):
        words = line.split()  # nothing quoted or escaped: shlex would split at the same spaces
    else:
        try:
            words = shlex.split(line, comments=False)
        except ValueError:
            words = line.split()
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i].rsplit("/", 1)[-1]
        is_git_grep = w == "git" and "grep" in words[i + 1:i + 4]
        if w not in _SEARCHERS and not is_git_grep:
            i += 1
            continue
        i = words.index("grep", i + 1) + 1 if is_git_grep else i + 1
        explicit: list[str] = []
        positional: str | None = None
        while i < len(words) and words[i] not in ("|", "&&", "||", ";"):
            a = words[i]
            if a in ("-e", "--regexp"):
                explicit += words[i + 1:i + 2]
                i += 2
                continue
            if a.startswith("--regexp="):
                explicit.append(a.split("=", 1)[1])
            elif a in _VALUED:
                i += 1
            elif a.startswith("-") and len(a) > 1:
                pass
            elif positional is None:
                positional = a
            i += 1
        out += explicit or ([positional] if positional else [])
    return out


def identifiers(pattern: str) -> list[str]:
    """Identifier-like words of a search pattern, regex escapes (``\\b``, ``\\w``, ``\\(``) removed."""
    return [w for w in _IDENT.findall(_REGEX_ESCAPE.sub(" ", pattern)) if len(w) >= 2]


def _coverage(word: str, lowered: Sequence[str]) -> float:
    """Share of the (lower-cased) texts that contain ``word`` in any case (grep -i too)."""
    if not lowered:
        return 0.0
    low = word.lower()
    return sum(map(operator.contains, lowered, repeat(low))) / len(lowered)  # counted in C


def _sample(texts: Sequence[str]) -> list[str]:
    """At most ``_SAMPLE`` hit texts spread over the output, each cut to ``_HEAD`` characters
    (a minified line runs for hundreds of kilobytes)."""
    if len(texts) > _SAMPLE:
        step = len(texts) / _SAMPLE
        texts = [texts[int(k * step)] for k in range(_SAMPLE)]
    return [t[:_HEAD] for t in texts]


def shared_identifier(texts: Sequence[str]) -> str | None:
    """The word found in (nearly) every hit line, the longest of the most common."""
    sample = _sample(texts)  # idempotent: already-sampled texts pass through
    counts: Counter[str] = Counter()
    for t in sample:
        counts.update({w for w in _IDENT.findall(t) if len(w) >= 3})
    if not counts:
        return None
    best = max(counts.items(), key=lambda kv: (kv[1], len(kv[0]), kv[0]))
    return best[0] if best[1] >= _SHARED * len(sample) else None


def searched_symbols(tool_arguments: Any, query: str, texts: Sequence[str]) -> list[str]:
    """The symbols whose definitions to keep: from the tool call, else the hits' shared
    identifier; then the question's identifiers that the hits contain. At most
    ``_MAX_SYMBOLS``, the tool call's first."""
    sample = _sample(texts)
    # Lower-cased in one call (a line break stops lower() as a line's end does).
    lowered = "\n".join(sample).lower().split("\n")
    if len(lowered) != len(sample):  # a text holding a line break
        lowered = [t.lower() for t in sample]
    found: list[str] = []
    for s in argument_strings(tool_arguments) if tool_arguments else []:
        pats = command_patterns(s)
        words = [w for p in pats for w in identifiers(p)] if pats else \
            identifiers(s) if len(s) <= _MAX_ARG_CHARS else []
        found += [w for w in words if w not in found and _coverage(w, lowered) >= _BORNE_OUT]
    if not found and (shared := shared_identifier(sample)):
        found.append(shared)
    if query and len(found) < _MAX_SYMBOLS:
        asked = [w for w in dict.fromkeys(_IDENT.findall(query)) if w not in found and _looks_like_identifier(w, query)]
        if asked:
            words = set(_IDENT.findall("\n".join(sample)))  # no identifier spans a line break
            found += [w for w in asked if w in words]
    return found[:_MAX_SYMBOLS]


_CODE_SHAPED = re.compile(r"[_$\d]|[a-z][A-Z]|^[A-Z]{2,}$")


def _looks_like_identifier(word: str, query: str) -> bool:
    """A question word that names code, not an English word: snake_case, camelCase, digits,
    ALLCAPS, or quoted in backticks or quotes."""
    if len(word) < 3:
        return False
    return bool(_CODE_SHAPED.search(word)) or any(f"{q}{word}" in query for q in "`'\"")

