"""bash's execution trace (``bash -x``, and again with ``PS4`` carrying the line number) of a
rollout script the capture writes: for each of 60 services it looks up the port and replica
count, hashes the name, reads a status file and adds the replicas to a running total
(~900 ``+``/``++`` lines, command substitutions one level deeper).

Two services differ, both in the middle of the list: one is scaled to zero (the script returns
early for it), one reports a timeout instead of ``ok``. Facts come from another reader of the
same state: the capture's record of the services file and status files it wrote, and Python's
hashlib for the digest the script computes; never from the trace's text. A fact is kept only
where its text stands once in the output. Held out (issue 33, twelfth round): no dev source
holds a shell execution trace.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "shell_traces"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
PARTS = ("ledger", "quote", "basket", "coupon", "parcel", "refund", "invoice", "shelf", "carrier", "rating",
         "session", "profile", "notify", "export", "import", "report", "pricing", "tax", "stock", "media")
ROLES = ("api", "worker", "sync")
IDLE_AT, FAILING_AT = 27, 33  # both in the middle of the 60
FAILURE = "E_UPSTREAM_TIMEOUT_4417"
SCRIPT = """total=0
check_service() {
  port=$(awk -v n="$1" '$1 == n {print $2}' services.txt)
  replicas=$(awk -v n="$1" '$1 == n {print $3}' services.txt)
  digest=$(printf %s "$1" | sha1sum | cut -c1-12)
  state=$(cat "status/$1")
  (( replicas > 0 )) || return 0
  total=$((total + replicas))
}
while read -r name _; do check_service "$name"; done < services.txt
"""
COMMANDS = {
    "trace": "bash -x rollout.sh 2>&1",
    # bash run as root takes no PS4 from the environment: set it inside.
    "numbered": "bash -c 'PS4=\"+ ${BASH_SOURCE}:${LINENO}: \"; set -x; . ./rollout.sh' 2>&1",
}


def services(rnd: random.Random) -> list[tuple[str, int, int]]:
    """(name, port, replicas) of each service, ports all distinct."""
    names = rnd.sample([f"{p}-{r}" for p in PARTS for r in ROLES], 60)
    ports = rnd.sample(range(8100, 9900), 60)
    rows = [(name, port, rnd.randint(1, 9)) for name, port in zip(names, ports)]
    rows[IDLE_AT] = (rows[IDLE_AT][0], rows[IDLE_AT][1], 0)
    return rows


def digest(name: str) -> str:
    """What the script's ``printf %s name | sha1sum | cut -c1-12`` computes."""
    return hashlib.sha1(name.encode()).hexdigest()[:12]


def write_rollout(work: Path, rows: list[tuple[str, int, int]]) -> None:
    (work / "rollout.sh").write_text(SCRIPT)
    (work / "services.txt").write_text("".join(f"{n} {p} {r}\n" for n, p, r in rows))
    (work / "status").mkdir()
    for i, (name, _, _) in enumerate(rows):
        (work / "status" / name).write_text((FAILURE if i == FAILING_AT else "ok") + "\n")


def _asks(rows: list[tuple[str, int, int]]) -> list[Ask]:
    note = "the capture's record of the services and status files it wrote"
    asks = [
        Ask("idle_port", "extreme", "extreme", (str(rows[IDLE_AT][1]),), note,
            ("The one service with no replicas — what port is it on?",)),
        Ask("failure", "named", "named_item", (FAILURE,), note,
            ("Did any service report a bad status? What did it say?", "Which error did the status check hit?")),
        Ask("total", "named", "named_item", (str(sum(r for _, _, r in rows)),), note,
            ("How many replicas did the rollout count in the end?",)),
    ]
    for n, (name, port, _) in enumerate(rows[20:40:3]):
        asks.append(Ask(f"port_{n}", "named", "named_item", (str(port),), note,
                        (f"Which port did the script find for {name}?",), (tuple(COMMANDS)[n % 2],)))
        asks.append(Ask(f"digest_{n}", "named", "named_item", (digest(name),), "Python's hashlib over the name",
                        (f"What digest did the rollout compute for {name}?",), (tuple(COMMANDS)[(n + 1) % 2],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rows = services(random.Random(1202))
    write_rollout(work, rows)
    return shell_cases(SOURCE, COMMANDS, _asks(rows), cwd=work, env=ENV)
