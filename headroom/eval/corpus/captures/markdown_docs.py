"""Markdown documentation installed on this machine, printed by ``cat``: npm's command
docs, FastAPI's agent skill references, READMEs and guides shipped inside site-packages,
Debian's package READMEs.

Each question names a section by its heading and asks for the command or snippet shown
there; the fact is the first line of that section's fenced code block, as markdown-it
(the CommonMark parser) reads the fence, never by headroom's Markdown rules. The heading
must not contain the line, and the line must occur once in the document. Each fact's note
names the package the file comes from (``; package NAME VERSION (origin): path``).
"""

from __future__ import annotations

import glob
import hashlib
import re
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import json_safe
from ..questions import choose
from ._packages import package_note

SOURCE = "markdown_docs"
MIN_CHARS, MAX_CHARS = 3000, 40_000
PER_FILE = 2
MAX_FILES = 14
MIN_FACT = 12

WORDINGS = (
    'The section "{heading}" of these docs shows a command or snippet. What exactly is it?',
    'What do the docs tell me to run or write under "{heading}"?',
    'Quote the code example given in the part titled "{heading}".',
    'Under the heading "{heading}", which command or code line is shown?',
)


def _site() -> Path:
    import yaml

    return Path(yaml.__file__).parents[1]


def _paths() -> list[Path]:
    site = str(_site())
    patterns = ("/usr/lib/node_modules/npm/docs/content/commands/*.md", f"{site}/fastapi/.agents/**/*.md",
                f"{site}/*/*.md", f"{site}/*/docs/**/*.md", f"{site}/*.dist-info/licenses/*.md",
                "/usr/share/doc/*/README.md", "/usr/share/doc/*/*.md", "/usr/lib/node_modules/*/README.md",
                "/usr/lib/node_modules/npm/node_modules/*/README.md")
    out: list[Path] = []
    per_dir: dict[str, int] = {}
    for pat in patterns:
        taken = 0
        for p in sorted(glob.glob(pat, recursive=True)):
            path = Path(p)
            if not path.is_file() or not MIN_CHARS <= path.stat().st_size <= MAX_CHARS:
                continue
            top = str(path.parent)
            if per_dir.get(top, 0) >= 2 or taken >= 3:
                continue
            per_dir[top] = per_dir.get(top, 0) + 1
            taken += 1
            out.append(path)
    return out


def fenced_commands(text: str) -> list[tuple[str, str]]:
    """(heading text, first non-blank line of the fence) for the first fenced block under
    each heading (the one a question about "the command shown there" means), from
    markdown-it's token stream."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    out = []
    heading = ""
    for k, tok in enumerate(tokens):
        if tok.type == "heading_open" and k + 1 < len(tokens):
            heading = tokens[k + 1].content.strip()
        elif tok.type == "fence" and heading:
            first = next((ln.strip() for ln in tok.content.split("\n") if ln.strip()), "")
            if first:
                out.append((heading, first))
            heading = ""
    return out


def commands_asked(text: str) -> list[tuple[str, str]]:
    """The (heading, command line) pairs a question may ask about: the line occurs once,
    is JSON-safe and long enough, and the heading neither contains it nor is too short."""
    good = []
    for heading, line in fenced_commands(text):
        if json_safe(line) != line or len(line) < MIN_FACT or text.count(line) != 1 or line in heading:
            continue
        if len(heading) < 4 or json_safe(heading, 4) != heading:
            continue
        good.append((heading, line))
    return good


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    files = 0
    for path in _paths():
        if files >= MAX_FILES:
            break
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        good = commands_asked(text)
        if not good:
            continue
        files += 1
        step = max(1, len(good) // PER_FILE)
        tag = hashlib.sha256(str(path).encode()).hexdigest()[:8]
        for heading, line in good[step // 2::step][:PER_FILE]:
            sid = f"{path.stem}_{tag}_{re.sub(r'[^A-Za-z0-9]+', '_', heading)[:40]}"
            if any(c["id"] == f"{SOURCE}/{sid}" for c in out):
                continue
            q = choose(f"{SOURCE}/{sid}", WORDINGS).format(heading=heading)
            if line in q:
                continue
            out.append(make_case(SOURCE, sid, "text", "bash", {"command": f"cat {path.name}"}, "named", q, text,
                                 [fact(line, "named_item", "first line of the fenced code block under the named "
                                                           f"heading, as markdown-it parses it{package_note(path)}",
                                       "independent")]))
    return out
