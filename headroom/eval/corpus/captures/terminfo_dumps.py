"""Terminal capability dumps as ncurses' ``infocmp`` prints them: ``infocmp -1`` (one
``name=value,`` / ``name#number,`` / flag line per capability, ~200 lines), ``infocmp -1 -L``
(the same under the long C names) and ``infocmp -d`` (the capabilities two entries do not
share, each with both values), of a terminal description the capture writes and compiles
with ``tic`` into a database of its own (``TERMINFO``): a point-of-sale console built on
``xterm-256color`` that overrides a few capabilities (its size, tab width, the F5 and Delete
keys, the alternate-screen sequence), compared with ``vt100``.

Facts come from another reader of the same compiled database: Python's ``curses`` module
(``setupterm``, then ``tigetstr``/``tigetnum`` in a process of its own with the same
``TERMINFO``), with the bytes spelled the way terminfo sources write them (``\\E`` for
escape, ``^X`` for control characters) by the capture, never from ``infocmp``'s text: the
answer is a capability's value, spelled with its name where it is a number. A fact is kept
only where its text stands once in the output. Held out (issue 33, tenth round): no dev
source holds terminfo dumps.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "terminfo_dumps"
TERM = "shopterm"
DESCRIPTION = f"""{TERM}|shop point-of-sale console,
\tcols#132, lines#50, it#4,
\tkf5=\\E[15;7~, kdch1=\\E[3;9~, smcup=\\E[?1049h\\E[?7727h,
\tuse=xterm-256color,
"""
NUMBERS = {"cols": "columns", "lines": "lines", "it": "init_tabs"}  # short name -> long name
# (capability, the outputs it is asked of, what an agent would call it): strings asked by what
# they do, never by name; each output gets a share (about sixteen cases in all).
STRINGS = (("kf5", ("short", "diff"), ("What does the F5 key send on shopterm?",
                                       "Which escape sequence is F5 on our console?")),
           ("kdch1", ("long", "diff"), ("What does the Delete key send on shopterm?",)),
           ("smcup", ("short", "diff"), ("Which sequence switches shopterm to the alternate screen?",
                                         "How does our console enter full-screen (alternate screen) mode?")),
           ("cup", ("short",), ("Which sequence moves the cursor to a row and column on shopterm?",)),
           ("civis", ("long",), ("How do I hide the cursor on shopterm?",)),
           ("setaf", ("short",), ("What's the sequence for setting the foreground colour on shopterm?",)),
           ("kf12", ("long",), ("What does F12 send on our console?",)))
NUMBER_OUTPUTS = {"cols": ("short", "long"), "lines": ("long", "diff"), "it": ("short", "diff")}
READER = """
import curses, json, sys
curses.setupterm(sys.argv[1])
caps = json.loads(sys.argv[2])
out = {c: (curses.tigetstr(c) or b"").decode("latin-1") for c in caps["strings"]}
out.update({c: curses.tigetnum(c) for c in caps["numbers"]})
print(json.dumps(out))
"""


def spelled(value: str) -> str:
    """A string capability as a terminfo source writes it."""
    out = []
    for ch in value:
        code = ord(ch)
        if ch == "\x1b":
            out.append("\\E")
        elif code < 0x20:
            out.append("^" + chr(code + 64))
        elif code == 0x7F:
            out.append("^?")
        elif ch in "\\,^":
            out.append("\\" + ch)
        elif code > 0x7E:
            out.append(f"\\{code:03o}")
        else:
            out.append(ch)
    return "".join(out)


def read_caps(env: dict[str, str]) -> dict[str, Any]:
    caps = {"strings": [c for c, _, _ in STRINGS], "numbers": list(NUMBERS)}
    return json.loads(run([sys.executable, "-c", READER, TERM, json.dumps(caps)], env=env).stdout)


def _asks(caps: dict[str, Any]) -> list[Ask]:
    note = "Python's curses (tigetstr/tigetnum) over the same compiled database, spelled by the capture"
    asks = [Ask(f"string_{cap}", "named", "named_item", (spelled(caps[cap]),), note, wordings, only)
            for cap, only, wordings in STRINGS if caps[cap]]
    wordings = {"cols": ("How many columns wide is shopterm?", "What width does our console's description give?"),
                "lines": ("How many rows does shopterm have?",),
                "it": ("How far apart are shopterm's tab stops?", "What's the initial tab width on our console?")}
    for cap, long in NUMBERS.items():
        value = caps[cap]
        asks.append(Ask(f"number_{cap}", "named", "named_item",
                        lambda output, cap=cap, long=long, value=value: (
                            {"short": f"{cap}#{value}", "long": f"{long}#{value}"}.get(output, f"{cap}: {value}"),),
                        note, wordings[cap], NUMBER_OUTPUTS[cap]))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    (work / f"{TERM}.src").write_text(DESCRIPTION)
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TERMINFO": str(work / "terminfo")}
    run(["tic", "-o", env["TERMINFO"], f"{TERM}.src"], cwd=work, env=env)
    commands = {"short": f"infocmp -1 {TERM}", "long": f"infocmp -1 -L {TERM}", "diff": f"infocmp -d {TERM} vt100"}
    return shell_cases(SOURCE, commands, _asks(read_caps(env)), cwd=work, env=env)
