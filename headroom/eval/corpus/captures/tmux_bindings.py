"""A terminal multiplexer's key bindings as tmux 3.3 lists them: ``tmux list-keys`` (one
``bind-key`` line a binding: repeat flag, key table, key and the command as tmux writes it back;
its ~200 default bindings and the capture's; ~290 lines, ~30 kB) and ``tmux list-keys -N`` (the
prefix table's bindings that carry a note, ``C-b M-F7  Open the refunds report``; ~130 lines, ~5 kB), of a
throwaway server (``tmux -L <socket> -f ops.conf``, no user configuration) whose configuration
the capture writes: 48 operator shortcuts on the function keys with Meta, Ctrl, Shift and both
Ctrl and Meta, each
running a script of its own through ``run-shell`` and carrying a note.

Facts come from the capture's own record of the bindings it wrote (key, script, note), never
from tmux's text; a fact is kept only where it stands once (a script's name stands once in the
full list and not at all in the notes; a key stands once in each). Held out (issue 33, twentieth
round): dev holds configuration files and resolved settings (``ssh -G``, ``git config``), but no
program's key-binding table.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "tmux_bindings"
VERBS = ("open", "tail", "rotate", "drain", "replay", "reindex", "flush", "page", "snapshot", "restart", "promote",
         "fence")
OBJECTS = ("refunds", "ledger", "payouts", "invoices", "search", "mailer", "thumbs", "billing", "queue", "cache",
           "exports", "audit")


def plan(rnd: random.Random) -> list[tuple[str, str, str]]:
    """(key, script, note) for each binding, in the configuration's order."""
    keys = [f"{m}-F{n}" for m in ("M", "C", "S", "C-M") for n in range(1, 13)]
    rnd.shuffle(keys)
    pairs = rnd.sample([(v, o) for v in VERBS for o in OBJECTS], len(keys))
    return [(k, f"{v}-{o}", f"{v.capitalize()} the {o} {rnd.choice(('service', 'report', 'queue', 'host'))}")
            for k, (v, o) in zip(keys, pairs, strict=True)]


def config(bindings: list[tuple[str, str, str]]) -> str:
    return "".join(f'bind-key -N "{note}" -T prefix {key} run-shell "~/ops/{script}.sh"\n'
                   for key, script, note in bindings)


def _asks(bindings: list[tuple[str, str, str]], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the bindings it wrote"
    asks = []
    middle = bindings[14:34]
    for key, script, _ in rnd.sample(middle, 10):
        asks.append(Ask(f"script_{key}", "named", "named_item", (script,), note,
                        (f"Which script does {key} run?", f"What does the {key} binding execute?"), ("keys",)))
    # A key that is part of another (M-F2 of C-M-F2, S-F1 of S-F10) would not stand once.
    keys = [k for k, _, _ in bindings]
    whole = [b for b in middle if not any(b[0] != k and b[0] in k for k in keys)]
    for key, _, text in rnd.sample(whole, min(8, len(whole))):
        asks.append(Ask(f"key_{key}", "named", "named_item", (key,), note,
                        (f"Which key is bound to '{text}'?", f"What key do I press to {text[0].lower() + text[1:]}?"),
                        ("notes",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2006)
    bindings = plan(rnd)
    (work / "ops.conf").write_text(config(bindings))
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(work), "TMUX_TMPDIR": str(work), "TERM": "xterm"}
    sock = f"corpus-{SOURCE}"
    run(["tmux", "-L", sock, "-f", str(work / "ops.conf"), "new-session", "-d"], cwd=work, env=env)
    try:
        commands = {"keys": f"tmux -L {sock} list-keys", "notes": f"tmux -L {sock} list-keys -N"}
        return shell_cases(SOURCE, commands, _asks(bindings, rnd), cwd=work, env=env)
    finally:
        run(["tmux", "-L", sock, "kill-server"], cwd=work, env=env, check=False)
