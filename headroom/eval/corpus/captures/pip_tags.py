"""The wheel tags an installer accepts, as ``python -m pip debug --verbose`` prints them: pip's
version, the interpreter, its vendored libraries, then "Compatible tags: N" and every tag in
the order pip prefers them (~900 lines: ``cp311-cp311-manylinux_2_36_x86_64`` down to
``py30-none-any``), for the venv's own interpreter and again with ``--python-version 3.12``
(tags for a CPython 3.12 on this machine).

Facts come from another reader of the same state: the ``packaging`` library's ``tags`` module
(``sys_tags()`` for the interpreter; ``cpython_tags`` and ``compatible_tags`` for 3.12), never
from pip's text: how many tags there are, the first and the last, and the tag ranked right after
(or right before) a named one in the middle of the list. A fact is kept only where it stands
once. Held out (issue 33, eighteenth round): dev holds pip's lists of installed distributions
(``pip list``, ``pip show``, ``pip inspect``), but no compatibility-tag ranking.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "pip_tags"
TARGET = (3, 12)
COMMANDS = {"here": f"{sys.executable} -m pip debug --verbose",
            "py312": f"{sys.executable} -m pip debug --verbose --python-version 3.12"}


def ranked_tags(target: tuple[int, int] | None) -> list[str]:
    """The tags in pip's order of preference, by ``packaging.tags`` (this interpreter, or a CPython
    of ``target`` on this machine's platforms)."""
    from packaging import tags

    if target is None:
        return [str(t) for t in tags.sys_tags()]
    interpreter = f"cp{target[0]}{target[1]}"
    return [str(t) for t in (*tags.cpython_tags(target), *tags.compatible_tags(target, interpreter))]


def _neighbour_asks(name: str, ranked: list[str], rnd: random.Random) -> list[Ask]:
    note = "packaging.tags: the same interpreter's tags in order"
    middle = range(len(ranked) // 4, len(ranked) * 3 // 4)
    asks = []
    for i in sorted(rnd.sample(middle, 4)):
        asks.append(Ask(f"after_{i}", "named", "named_item", (ranked[i + 1],), note,
                        (f"Which tag does pip rank right after {ranked[i]}?",
                         f"What's the next compatible tag following {ranked[i]} in pip's list?"), (name,)))
    for i in sorted(rnd.sample(middle, 2)):
        asks.append(Ask(f"before_{i}", "named", "named_item", (ranked[i - 1],), note,
                        (f"Which tag is preferred just before {ranked[i]}?",
                         f"What tag sits immediately above {ranked[i]} in the compatible list?"), (name,)))
    return asks


def _asks(rnd: random.Random) -> list[Ask]:
    note = "packaging.tags: the same interpreter's tags in order"
    asks = []
    for name, target in (("here", None), ("py312", TARGET)):
        ranked = ranked_tags(target)
        asks += [Ask("count", "named", "named_item", (str(len(ranked)),), note,
                     ("How many compatible tags does pip report?", "How many wheel tags are supported here?"), (name,)),
                 Ask("first", "named", "named_item", (ranked[0],), note,
                     ("Which wheel tag does pip prefer most?", "What's the top-priority compatible tag?"), (name,)),
                 Ask("last", "named", "named_item", (ranked[-1],), note,
                     ("Which compatible tag is the last resort?", "What's the lowest-priority tag pip accepts?"),
                     (name,))]
        asks += _neighbour_asks(name, ranked, rnd)
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1",
           "HOME": str(work)}
    return shell_cases(SOURCE, COMMANDS, _asks(random.Random(1802)), cwd=work, env=env)
