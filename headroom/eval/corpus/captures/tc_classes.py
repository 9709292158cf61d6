"""Traffic-control state as iproute2's ``tc`` prints it: ``tc class show dev lo`` (one line a
class: kind, class id, parent, priority, rate, ceiling, bursts) and ``tc -s -d class show dev
lo`` (the same with the quantum, overhead and each class's counters under it), of an HTB
shaping tree the capture builds on the loopback link of a fresh network namespace (``unshare
-n``: nothing of the host is touched): a root class, twelve tenant classes and ~220 leaves.

Most leaves are alike (a rate and a ceiling from a few values, priorities 0-3); a few in the
middle differ in one way each: one has priority 7, one a ceiling far above every other, one a
quantum set by hand, one its own burst, one a rate no other leaf has. Facts come from the
capture's own record of the classes it added (their ids, in tc's hexadecimal minor numbers),
never from tc's text; a fact is kept only where it stands once. Held out (issue 33,
eighteenth round): dev holds interfaces, addresses, routes and counters (``ip``), but no
traffic-control tree.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "tc_classes"
TENANTS = 12
RATES = ("2mbit", "4mbit", "8mbit")
COMMANDS = {"plain": "tc class show dev lo", "stats": "tc -s -d class show dev lo"}


@dataclass
class Tree:
    """The capture's record: every ``tc class add`` line, and the odd leaves by what is odd."""

    lines: list[str] = field(default_factory=list)
    odd: dict[str, str] = field(default_factory=dict)  # what is odd -> class id, e.g. "prio" -> "1:9c"


def classid(minor: int) -> str:
    """A class id as tc prints it: the minor number in hexadecimal, no leading zeros."""
    return f"1:{minor:x}"


ODD = {  # what is odd -> the options that make it so (replacing the routine ones)
    "prio": "rate 4mbit ceil 4mbit prio 7",
    "ceil": "rate 4mbit ceil 900mbit prio 1",
    "quantum": "rate 8mbit ceil 8mbit prio 2 quantum 3000",
    "burst": "rate 2mbit ceil 2mbit prio 0 burst 64k",
    "rate": "rate 13mbit ceil 13mbit prio 3",
    "cburst": "rate 8mbit ceil 8mbit prio 1 cburst 48k",
    "overhead": "rate 2mbit ceil 2mbit prio 2 overhead 24",
    "linklayer": "rate 4mbit ceil 4mbit prio 0 linklayer atm",
}


def plan(rnd: random.Random) -> Tree:
    tree = Tree(["add dev lo parent 1: classid 1:1 htb rate 950mbit ceil 950mbit"])
    leaves: list[tuple[int, int]] = []
    for t in range(TENANTS):
        tenant = 0x10 + t
        tree.lines.append(f"add dev lo parent 1:1 classid {classid(tenant)} htb rate 60mbit ceil 300mbit")
        leaves += [(tenant, tenant * 0x100 + k) for k in range(1, rnd.randint(18, 21))]
    middle = leaves[len(leaves) // 3:len(leaves) * 2 // 3]
    odd_minors = dict(zip(ODD, (m for _, m in rnd.sample(middle, len(ODD))), strict=True))
    tree.odd = {what: classid(m) for what, m in odd_minors.items()}
    by_minor = {m: what for what, m in odd_minors.items()}
    for parent, minor in leaves:
        rate = rnd.choice(RATES)
        opts = ODD[by_minor[minor]] if minor in by_minor else f"rate {rate} ceil {rate} prio {rnd.randint(0, 3)}"
        tree.lines.append(f"add dev lo parent {classid(parent)} classid {classid(minor)} htb {opts}")
    return tree


def _asks(tree: Tree) -> list[Ask]:
    note = "the capture's record of the classes it added"
    wordings = {
        "prio": ("Which class runs at priority 7?", "One HTB class got prio 7 - which classid?"),
        "ceil": ("Which class can borrow up to 900Mbit?", "Find the class whose ceiling is far above the rest."),
        "quantum": ("Which class had its quantum set by hand to 3000?", "Classid of the class with quantum 3000?"),
        "burst": ("Which class was given a 64k burst?", "One leaf has a bigger burst than the others: which one?"),
        "rate": ("Which class is shaped to 13Mbit?", "What's the classid of the 13 Mbit class?"),
        "cburst": ("Which class has a ceiling burst of 48k?", "Find the leaf with its own cburst; classid?"),
        "overhead": ("Which class accounts 24 bytes of overhead per packet?",
                     "One class was set up with a per-packet overhead. Which?"),
        "linklayer": ("Which class is shaped for an ATM link layer?", "Classid of the class using linklayer atm?"),
    }
    return [Ask(f"odd_{what}", "named", "named_item", (cid,), note, wordings[what])
            for what, cid in tree.odd.items()]


def script(tree: Tree) -> str:
    """The shell lines that build the tree and print it, in one namespace."""
    setup = ["ip link set lo up", "tc qdisc add dev lo root handle 1: htb default 0x10"]
    setup += [f"tc class {line}" for line in tree.lines]
    return " && ".join(setup)


def build(work: Path) -> list[dict[str, Any]]:
    tree = plan(random.Random(1801))
    setup = script(tree)
    env = {"PATH": "/usr/sbin:/usr/bin:/bin", "LC_ALL": "C"}
    # Each listing runs in a namespace of its own, built the same way; the agent saw the listing's
    # command, not the set-up around it.
    outputs = {name: Output({"command": cmd}, "text",
                            run(["unshare", "-n", "bash", "-c", f"{setup} && {cmd}"], cwd=work, env=env).stdout)
               for name, cmd in COMMANDS.items()}
    cases = asked_cases(SOURCE, outputs, _asks(tree))
    assert len(cases) >= 12, f"too few {SOURCE} cases: {len(cases)}"
    return cases
