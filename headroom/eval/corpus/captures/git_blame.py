"""Line-by-line authorship as ``git blame`` prints it (short hash, author, date and line
number before each line) and ``git blame --porcelain`` (a header per run of lines: the
full hash, the author and committer with mail, times and zones, the summary, then each
line after a tab), of two files of installed packages (sortedcontainers' ``sortedset.py``
and idna's ``core.py``) committed to a throwaway repository in parts by different authors
on different days, then edited: one author touches a handful of scattered lines, another
a single line, a last one two neighbouring lines.

Facts come from the capture's own record of which commit last wrote each line (it makes
every commit itself, line by line), never from git's output: the lines a named author
changed, and the line the newest commit changed. The fact is the line's text, kept only
where it occurs once in the output (a line that repeats in the file asks nothing) and
holds nothing JSON would escape. Held out (issue 33, fourth round): no dev source holds a
blame (``git_history`` and the release repositories hold logs and diffs).
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import sysconfig
import tokenize
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "git_blame"
FILES = {"sortedset.py": "sortedcontainers/sortedset.py", "core.py": "idna/core.py"}
IMPORTERS = (("Ana Costa", "2025-02-03"), ("Wei Zhang", "2025-03-17"), ("Olu Adeyemi", "2025-05-08"))
EDITORS = (  # (author, date, how many lines, what is appended)
    ("Priya Nair", "2025-08-21", 5, "  # checked: bounds"),
    ("Tomas Novak", "2025-10-02", 1, "  # perf: hot path"),
    ("Lena Fischer", "2026-01-14", 2, "  # reviewed for the 3.x API"),
)
OUTPUTS = {"blame": ["git", "blame"], "porcelain": ["git", "blame", "--porcelain"]}


def _safe(line: str) -> bool:
    """A line a fact can be: long enough to name one spot, nothing JSON escapes."""
    s = line.strip()
    return len(s) >= 16 and s == json.loads(json.dumps(s)) and not any(c in s for c in '"\\') and s.isascii()


def make_repo(repo: Path, name: str, rng: random.Random) -> list[str]:
    """Commit ``name`` in three parts (one per importer), then the editors' changes; return
    who last wrote each final line."""
    lines = (Path(sysconfig.get_paths()["purelib"]) / FILES[name]).read_text().splitlines()
    cuts = sorted(rng.sample(range(20, len(lines) - 20), 2))
    owner: list[str] = []
    for (author, day), (a, b) in zip(IMPORTERS, ((0, cuts[0]), (cuts[0], cuts[1]), (cuts[1], len(lines))),
                                     strict=True):
        owner += [author] * (b - a)
        (repo / name).write_text("\n".join(lines[:b]) + "\n")
        _commit(repo, author, day, f"{name}: import lines {a + 1}-{b}")
    counts = {s.strip(): sum(t.strip() == s.strip() for t in lines) for s in lines}
    strings = _string_lines("\n".join(lines) + "\n")
    free = [i for i, s in enumerate(lines) if _safe(s) and counts[s.strip()] == 1 and not s.strip().startswith("#")
            and i + 1 not in strings]
    for author, day, n, note in EDITORS:
        if n == 2:  # two neighbouring candidate lines (one spot of the file)
            k = rng.randrange(len(free) - 1)
            picked = free[k:k + 2]
        else:
            picked = sorted(rng.sample(free, n))
        for i in picked:
            lines[i] += note
            owner[i] = author
            free.remove(i)
        (repo / name).write_text("\n".join(lines) + "\n")
        _commit(repo, author, day, f"{name}: review pass by {author.split()[0]}")
    return [f"{o}\t{s}" for o, s in zip(owner, lines, strict=True)]


def _string_lines(source: str) -> set[int]:
    """Line numbers inside a string that spans lines (a docstring): an edit appends a
    comment, which belongs on a line of code."""
    inside: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
            inside.update(range(tok.start[0], tok.end[0] + 1))
    return inside


def _commit(repo: Path, author: str, day: str, message: str) -> None:
    mail = author.split()[0].lower() + "@example.org"
    env = {**os.environ, "GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": mail, "GIT_COMMITTER_NAME": author,
           "GIT_COMMITTER_EMAIL": mail, "GIT_AUTHOR_DATE": f"{day}T10:30:00+00:00",
           "GIT_COMMITTER_DATE": f"{day}T10:30:00+00:00", "GIT_CONFIG_GLOBAL": "/dev/null",
           "GIT_CONFIG_NOSYSTEM": "1"}
    run(["git", "add", "-A"], cwd=repo, env=env)
    run(["git", "commit", "-q", "-m", message], cwd=repo, env=env)


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("git") is None:
        raise RuntimeError("needs git")
    out = []
    for name in FILES:
        repo = work / name.replace(".", "_")
        repo.mkdir()
        run(["git", "init", "-q", "-b", "main"], cwd=repo)
        record = make_repo(repo, name, random.Random(f"blame-{name}"))
        owners = [r.split("\t", 1) for r in record]
        for output, cmd in OUTPUTS.items():
            content = run([*cmd, name], cwd=repo, env={**os.environ, "TZ": "UTC", "GIT_CONFIG_NOSYSTEM": "1"}).stdout
            asked = []
            for author, _, n, _ in EDITORS:
                mine = [s.strip() for o, s in owners if o == author]
                asked.append((f"by_{author.split()[0].lower()}", "named",
                              (f"Which lines did {author} change last in {name}?",
                               f"Show me the lines of {name} whose last change is by {author}."), mine))
            newest = EDITORS[-1][0]
            asked.append(("newest_change", "extreme",
                          (f"What is the most recent change to {name}? Which lines does it touch?",
                           f"Which lines of {name} were changed last (the newest commit)?"),
                          [s.strip() for o, s in owners if o == newest]))
            for scen, intent, wordings, texts in asked:
                if not texts or any(content.count(t) != 1 for t in texts):
                    continue
                sid = f"{output}_{name.replace('.', '_')}_{scen}"
                kind = "extreme" if intent == "extreme" else "named_item"
                out.append(make_case(SOURCE, sid, "text", "bash", {"command": " ".join([*cmd, name])}, intent,
                                     choose(f"{SOURCE}/{sid}", wordings), content,
                                     [fact(t, kind, "the capture's record of the commit that last wrote the line",
                                           basis="independent") for t in texts]))
    assert len(out) >= 10, f"too few git_blame cases: {len(out)}"
    return out
