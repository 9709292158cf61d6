"""Two sorted lists compared line by line the coreutils way: ``comm`` of last quarter's and this
quarter's host inventories (three tab-indented columns: only in the old list, only in the new
one, in both; ~460 lines) and ``join -a1 -a2 -e - -o auto`` of the hosts' owning teams and the
change tickets that last patched them (one joined record a host, a dash where either side had
none).

Facts come from the capture's record of the lists it wrote (the hosts it retired and added, the
ticket it gave each host, the host it left without an owner and the one it left unpatched),
never from the tools' text; a fact is kept only where it stands once in its output. Held out
(issue 33, fourteenth round): dev holds tables, diffs and frequency counts, but no set
comparison of sorted lists whose column says which side a line came from.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "set_comparisons"
ROLES = ("web", "db", "cache", "queue", "worker", "search", "mail", "proxy", "batch", "api")
REGIONS = ("eu-west", "eu-north", "us-east", "us-west", "ap-south", "ap-east")
TEAMS = ("payments", "storefront", "platform", "data", "identity", "logistics", "growth")
RETIRED = ("db", "mail", "batch", "search")  # one host of each left the inventory
ADDED = ("cache", "queue", "web", "proxy")  # one host of each joined it
COMMANDS = {
    "comm": "comm hosts-q3.txt hosts-q4.txt",
    "join": "join -t $'\\t' -a1 -a2 -e - -o auto owners.tsv patches.tsv",
}


@dataclass
class Inventory:
    old: list[str]
    new: list[str]
    retired: dict[str, str] = field(default_factory=dict)  # role -> host
    added: dict[str, str] = field(default_factory=dict)
    tickets: dict[str, str] = field(default_factory=dict)  # host -> change ticket
    owners: dict[str, str] = field(default_factory=dict)  # host -> team
    unowned: str = ""
    unpatched: str = ""


def middle(rnd: random.Random, hosts: list[str], role: str, inside: list[str]) -> str:
    """A host of ``role`` that sorts away from both ends of ``inside`` (the odd rows sit among
    the others)."""
    lo, hi = inside[len(inside) // 10], inside[len(inside) * 9 // 10]
    return rnd.choice([h for h in hosts if h.startswith(f"{role}-") and lo < h < hi])


def inventory(rnd: random.Random) -> Inventory:
    every = [f"{role}-{region}-{n}" for role in ROLES for region in REGIONS for n in range(10, 100)]
    pool = rnd.sample(every, 1200)
    old, spare = sorted(pool[:460]), sorted(pool[460:])
    inv = Inventory(old=old, new=list(old))
    for role in RETIRED:
        inv.retired[role] = middle(rnd, old, role, old)
        inv.new.remove(inv.retired[role])
    for role in ADDED:
        inv.added[role] = middle(rnd, spare, role, old)
        inv.new.append(inv.added[role])
    inv.new.sort()
    numbers = iter(rnd.sample(range(10000, 99999), len(inv.new)))
    for host in inv.new:
        inv.owners[host] = rnd.choice(TEAMS)
        inv.tickets[host] = f"CHG-{next(numbers)}"
    inv.unowned, inv.unpatched = rnd.sample(inv.new[len(inv.new) // 3: len(inv.new) * 2 // 3], 2)
    del inv.owners[inv.unowned], inv.tickets[inv.unpatched]
    return inv


def write_lists(work: Path, inv: Inventory) -> None:
    (work / "hosts-q3.txt").write_text("".join(f"{h}\n" for h in inv.old))
    (work / "hosts-q4.txt").write_text("".join(f"{h}\n" for h in inv.new))
    (work / "owners.tsv").write_text("".join(f"{h}\t{t}\n" for h, t in inv.owners.items()))
    (work / "patches.tsv").write_text("".join(f"{h}\t{t}\n" for h, t in inv.tickets.items()))


def _asks(inv: Inventory, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the lists it wrote"
    asks = [Ask(f"retired_{role}", "named", "named_item", (host,), note,
                (f"Which {role} host is in last quarter's inventory but gone from this one?",
                 f"Which {role} server did we retire since Q3?"), ("comm",))
            for role, host in inv.retired.items()]
    asks += [Ask(f"added_{role}", "named", "named_item", (host,), note,
                 (f"Which {role} host is new in the Q4 inventory?", f"What {role} machine was added this quarter?"),
                 ("comm",))
             for role, host in inv.added.items()]
    asks += [Ask("unowned", "named", "named_item", (inv.unowned,), note,
                 ("Which host has no owning team on record?", "Is there a host nobody owns? Which one?"), ("join",)),
             Ask("unpatched", "named", "named_item", (inv.unpatched,), note,
                 ("Which host has no patch ticket?", "What machine was never patched according to the join?"),
                 ("join",))]
    middle_hosts = [h for h in inv.tickets if h not in (inv.unowned,)][100:400]
    for host in rnd.sample(middle_hosts, 6):
        asks.append(Ask(f"ticket_{host}", "named", "named_item", (inv.tickets[host],), note,
                        (f"Which change ticket last patched {host}?", f"What's the patch ticket for {host}?"),
                        ("join",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1401)
    inv = inventory(rnd)
    write_lists(work, inv)
    return shell_cases(SOURCE, COMMANDS, _asks(inv, rnd), cwd=work, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
