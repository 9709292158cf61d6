"""Manual pages as ``man`` prints them to a pipe (``MANWIDTH=100 man -P cat PAGE``): tar,
find, curl, less, ls and make, rendered from Debian's roff sources by groff: headings,
indented option lists, justified and hyphenated paragraphs. (Pages whose options are
written with other macros, such as mdoc's ``.It Fl``, are not used: the parser below
reads ``.TP``/``.IP`` entries only.)

Facts come from the roff source itself (``/usr/share/man/man1/PAGE.1.gz``), never from the
rendered text: an option's tag is the line after a ``.TP`` or the argument of ``.IP``,
and the fact is the first words of the paragraph that follows (font escapes removed); a
fact is used only where those words occur once in the rendered page (justification or a
hyphenated line break can split them). Held out (issue 33): a kind of output no dev
source has.
"""

from __future__ import annotations

import gzip
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "man_pages"
PAGES = ("tar", "find", "curl", "less", "ls", "make")
PER_PAGE = 3
WORDS = 6
_OPTION = re.compile(r"--?[A-Za-z]")

_ESCAPES = ((re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)"), ""), (re.compile(r"\\-"), "-"), (re.compile(r"\\&"), ""),
            (re.compile(r"\\\(em|\\\(en"), "-"), (re.compile(r"\\e"), "\\\\"), (re.compile(r"\\ "), " "))


def plain(roff: str) -> str:
    """A roff text line without its font changes and with ``\\-`` as ``-``."""
    for rx, rep in _ESCAPES:
        roff = rx.sub(rep, roff)
    return roff.strip().strip('"')


def options(source: str) -> list[tuple[str, str]]:
    """(tag, first words of its description) for every ``.TP``/``.IP`` option entry."""
    lines = source.splitlines()
    out = []
    for i, ln in enumerate(lines):
        if ln.startswith(".TP") and i + 2 < len(lines):
            tag, body = lines[i + 1], lines[i + 2]
        elif ln.startswith(".IP ") and i + 1 < len(lines):
            tag, body = ln[4:], lines[i + 1]
        else:
            continue
        if tag.startswith(".") or body.startswith(".") or "\\" in plain(body):
            continue
        tag, words = plain(tag), plain(body).split()
        if tag.startswith("-") and len(words) >= WORDS:
            out.append((tag, " ".join(words[:WORDS])))
    return out


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    for page in PAGES:
        src = Path(f"/usr/share/man/man1/{page}.1.gz")
        roff = gzip.decompress(src.read_bytes()).decode("utf-8", "replace")
        text = run(["man", "-P", "cat", page], env={**os.environ, "MANWIDTH": "100", "LC_ALL": "C.UTF-8"}).stdout
        entries = [(tag.split(",")[0].split("=")[0].split()[0], words) for tag, words in options(roff)]
        # An option described in two places (find's -name under its tests and again under
        # its standards notes) has no single answer; "--" and the like are not options.
        tags = Counter(t for t, _ in entries)
        usable = [(t, w) for t, w in entries if tags[t] == 1 and _OPTION.match(t) and len(w) >= 20
                  and text.count(w) == 1 and t not in w]
        for k, (opt, words) in enumerate(spread(usable, PER_PAGE)):
            sid = f"{page}_option_{k}"
            q = choose(f"{SOURCE}/{sid}", (f"What does the {opt} option of {page} do?",
                                           f"I am reading the {page} manual: what is {opt} for?",
                                           f"Explain what {page} {opt} does."))
            out.append(make_case(SOURCE, sid, "text", "bash", {"command": f"man {page}"}, "named", q, text,
                                 [fact(words, "named_item", f"first words of the {opt} entry in {src.name}",
                                       basis="independent")]))
    assert len(out) >= 12, "too few manual page cases"
    return out
