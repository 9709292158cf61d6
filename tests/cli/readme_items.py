"""The README's commands and snippets, in reading order, each labelled with how to run it.

Every line of every ``bash`` block and every ``python`` block is an item; so is every
inline code span that is a ``headroom …`` command. An item the test does not run must be
listed in SKIP with its reason, so a new README line cannot escape the test unnoticed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"

# Lines the test leaves out, by prefix, each with the reason (the brief for issue 29 names them).
SKIP = {
    "make ": "sets up a venv and runs the whole suite; CI runs it as .ci/run",
    ".venv/bin/python benchmarks/": "a benchmark of minutes, run by hand with its own checks",
    "python -m training.": "refits a model (minutes); tests/image covers the trainer",
}
# Inline spans that list a command's forms rather than being one command: what to run instead.
FORMS = {
    "headroom toin stats|show|export|import": "headroom toin stats",
}


@dataclass(frozen=True)
class Item:
    kind: str  # "bash" | "python"
    text: str
    section: str
    line: int

    @property
    def id(self) -> str:
        first = self.text.strip().splitlines()[0]
        return f"L{self.line}:{first[:60]}"


def _strip_comment(line: str) -> str:
    # Comments in these blocks start with "  #" after the command (no '#' inside commands).
    return re.split(r"\s+#\s", line, maxsplit=1)[0].strip()


def items(text: str | None = None) -> list[Item]:
    text = README.read_text() if text is None else text
    out: list[Item] = []
    section = ""
    fence = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
    fenced: list[tuple[int, int]] = []
    for m in fence.finditer(text):
        fenced.append((m.start(), m.end()))
        lang, body = m.group(1), m.group(2)
        line0 = text.count("\n", 0, m.start()) + 2
        section = _section(text, m.start())
        if lang == "python":
            out.append(Item("python", body, section, line0 - 1))
        elif lang == "bash":
            for k, raw in enumerate(body.splitlines()):
                cmd = _strip_comment(raw)
                if cmd and not cmd.startswith("#"):
                    out.append(Item("bash", cmd, section, line0 + k))
    for m in re.finditer(r"`(headroom [^`]+)`", text):  # a span may wrap onto the next line
        if any(a <= m.start() < b for a, b in fenced):
            continue
        span = " ".join(m.group(1).split())
        cmd = FORMS.get(span, span)
        out.append(Item("bash", cmd, _section(text, m.start()), text.count("\n", 0, m.start()) + 1))
    return sorted(out, key=lambda i: i.line)


def _section(text: str, pos: int) -> str:
    prose = re.sub(r"^```.*?^```", "", text[:pos], flags=re.DOTALL | re.MULTILINE)  # a '# comment' in a block is no heading
    heads = re.findall(r"^#+ (.+)$", prose, re.MULTILINE)
    return heads[-1] if heads else ""


def skipped(item: Item) -> str | None:
    if item.kind != "bash":
        return None
    for prefix, reason in SKIP.items():
        if item.text.startswith(prefix):
            return reason
    return None
