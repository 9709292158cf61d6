"""A shell's state after it sourced a deployment's environment script: bash's ``declare -p``
(every variable with its attributes: ``-x`` exported, ``-r`` read-only, ``-i`` integer, ``-a``
and ``-A`` arrays written as ``([key]="value" ...)`` on one line; ~250 lines) and ``declare -f``
(every function as bash prints it back, re-indented; ~400 lines), of a script the capture
writes (~150 settings, a map of service ports, a list of release channels, ~40 functions).

Facts come from the capture's record of the script it wrote (the one read-only integer, the one
exported setting, the one lower-cased setting, a named service's port, a channel at a named
position, the timeout or host a named function uses), never from bash's text; a fact is kept
only where it stands once in its output. Held out (issue 33, fourteenth round): dev holds bash
execution traces and shell scripts as files, but no dump of a live shell's variables and
functions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "shell_declarations"
SERVICES = ("billing", "checkout", "search", "catalog", "shipping", "auth", "reports", "cart", "tax", "stock",
            "returns", "ledger", "invoices", "coupons", "wishlist", "pricing", "gateway", "notify", "media",
            "reviews", "loyalty", "fraud", "export", "import", "audit", "quotes", "ratings", "labels")
KNOBS = ("TIMEOUT", "RETRIES", "POOL", "REPLICAS", "LOG_LEVEL", "QUEUE")
VERBS = ("start", "stop", "check", "drain", "rotate")
COMMANDS = {
    "variables": "bash --noprofile --norc -c 'source ./deploy-env.sh; declare -p'",
    "functions": "bash --noprofile --norc -c 'source ./deploy-env.sh; declare -f'",
}


@dataclass
class Script:
    lines: list[str] = field(default_factory=list)
    record: dict[str, str] = field(default_factory=dict)
    ports: dict[str, str] = field(default_factory=dict)
    channels: list[str] = field(default_factory=list)
    waits: dict[str, str] = field(default_factory=dict)  # function -> the seconds it waits


def settings(s: Script, rnd: random.Random, n) -> None:
    """~150 plain settings, with one of each odd attribute in the middle of them."""
    names = [f"SHOP_{svc.upper()}_{knob}" for svc in SERVICES for knob in KNOBS]
    rnd.shuffle(names)
    for at, name in enumerate(names):
        value = str(next(n)) if not name.endswith("LOG_LEVEL") else rnd.choice(("debug", "info", "warn"))
        if at == 60:
            s.lines.append(f"declare -ri {name}={value}")
            s.record["readonly"] = name
        elif at == 75:
            s.lines.append(f"export {name}={value}")
            s.record["exported"] = name
        elif at == 90:
            s.lines.append(f"declare -l {name}={value}")
            s.record["lower"] = name
        else:
            s.lines.append(f"{name}={value}")


def collections(s: Script, rnd: random.Random, n) -> None:
    s.lines.append("declare -A SHOP_PORTS")
    ports = iter(rnd.sample(range(20000, 32000), len(SERVICES)))  # below the settings' numbers' range
    for svc in SERVICES:
        s.ports[svc] = str(next(ports))
        s.lines.append(f"SHOP_PORTS[{svc}]={s.ports[svc]}")
    s.channels = [f"{word}-{next(n)}" for word in rnd.sample(("stable", "beta", "canary", "nightly", "lts", "edge",
                                                              "preview", "hotfix", "frozen", "legacy"), 10)]
    s.lines.append(f"SHOP_CHANNELS=({' '.join(s.channels)})")


def functions(s: Script, rnd: random.Random, n) -> None:
    for svc in SERVICES[:9]:
        for verb in VERBS:
            name = f"{verb}_{svc}"
            wait = str(next(n) % 900 + 100)
            s.waits[name] = wait
            s.lines += [f"{name}() {{", f'  local unit="shop-{svc}.service"',
                        f'  if ! systemctl {verb} "$unit"; then echo "{verb} failed: $unit" >&2; return 1; fi',
                        f"  timeout {wait} wait_ready \"$unit\" || return 2", "}"]
    s.lines += ["wait_ready() {", '  until systemctl is-active --quiet "$1"; do sleep 1; done', "}"]


def write_script(work: Path, rnd: random.Random) -> Script:
    s = Script(["# deployment environment, sourced by the release scripts"])
    n = iter(rnd.sample(range(32000, 99999), 600))
    settings(s, rnd, n)
    collections(s, rnd, n)
    functions(s, rnd, n)
    (work / "deploy-env.sh").write_text("\n".join(s.lines) + "\n")
    return s


def _asks(s: Script, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the script it wrote"
    asks = [
        Ask("readonly", "named", "named_item", (s.record["readonly"],), note,
            ("Which SHOP setting is a read-only integer?", "What SHOP_ variable was declared readonly and integer?"),
            ("variables",)),
        Ask("exported", "named", "named_item", (s.record["exported"],), note,
            ("Which of the SHOP settings is exported to child processes?",), ("variables",)),
        Ask("lower", "named", "named_item", (s.record["lower"],), note,
            ("Which SHOP setting is forced to lowercase?", "What SHOP_ variable has the lowercase attribute?"),
            ("variables",)),
        Ask("channel", "named", "named_item", (s.channels[6],), note,
            ("What's the seventh release channel in SHOP_CHANNELS?", "Which channel sits at index 6?"),
            ("variables",)),
    ]
    for svc in rnd.sample(SERVICES[4:24], 6):
        asks.append(Ask(f"port_{svc}", "named", "named_item", (s.ports[svc],), note,
                        (f"Which port is the {svc} service on?", f"What port does SHOP_PORTS give {svc}?"),
                        ("variables",)))
    for name in rnd.sample(list(s.waits)[8:40], 6):
        asks.append(Ask(f"wait_{name}", "named", "named_item", (s.waits[name],), note,
                        (f"How many seconds does {name} wait for the unit to come up?",
                         f"What timeout does the {name} function use?"), ("functions",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1403)
    s = write_script(work, rnd)
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": "/nonexistent"}
    return shell_cases(SOURCE, COMMANDS, _asks(s, rnd), cwd=work, env=env)
