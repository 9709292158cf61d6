"""Pickle disassemblies (``python -m pickletools``: one opcode a line with its offset and argument,
nested by the stack's marks; ``-a`` adds each opcode's description; ``-m`` the memo) of an order
export the capture pickles: 56 orders with ids, customers, totals, statuses and line items,
pickled at protocols 4 and 2 (repeated strings are memo references, so each appears once).

A few orders differ in one way each, all in the middle of the list: one is charged back (the
only such status), one has by far the largest total, one carries a note, one ships to a country
no other does. Facts come from the capture's record of the objects it pickled (an order's id,
total, customer), never from the disassembly's text; a fact is kept only where its text stands
once in the output. Held out (issue 33, twelfth round): no dev source holds a serialisation
format's disassembly.
"""

from __future__ import annotations

import pickle
import random
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "pickle_disassembly"
# The running interpreter's pickletools, named python3 as an agent would type it.
ENV = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LC_ALL": "C"}
NAMES = ("Okafor", "Lindqvist", "Moreau", "Tanaka", "Haddad", "Kowalski", "Silva", "Novak", "Rahman", "Brennan",
         "Ivanova", "Mensah", "Castillo", "Weber", "Nakamura", "Oyelaran", "Fischer", "Duarte", "Berg", "Quispe")
STATUSES = ("paid", "shipped", "delivered", "refunded")
SKUS = tuple(f"SKU-{n:04d}" for n in range(3100, 3160))
ODD_AT = {24: "chargeback", 27: "biggest", 30: "note", 33: "country"}
PY = "python3"
COMMANDS = {
    "dis": f"{PY} -m pickletools orders-p4.pickle",
    "annotated": f"{PY} -m pickletools -a orders-p4.pickle",
    "proto2": f"{PY} -m pickletools -m orders-p2.pickle",
}


def orders(rnd: random.Random) -> list[dict[str, Any]]:
    ids = rnd.sample(range(40000, 99999), 56)
    out = [{"id": f"ORD-{i}", "customer": f"{rnd.choice(NAMES)}-{rnd.randint(100, 999)}",
            "total": round(rnd.uniform(8, 900), 2), "status": rnd.choice(STATUSES), "country": "DE",
            "lines": [[rnd.choice(SKUS), rnd.randint(1, 4)] for _ in range(rnd.randint(1, 3))]}
           for i in ids]
    for at, odd in ODD_AT.items():
        o = out[at]
        if odd == "chargeback":
            o["status"] = "chargeback"
        elif odd == "biggest":
            o["total"] = 48213.77
        elif odd == "note":
            o["note"] = "leave-with-concierge"
        elif odd == "country":
            o["country"] = "IS"
    return out


def _asks(rows: list[dict[str, Any]]) -> list[Ask]:
    note = "the capture's record of the orders it pickled"
    odd = {kind: rows[at] for at, kind in ODD_AT.items()}
    asks = [
        Ask("chargeback", "named", "named_item", (odd["chargeback"]["id"],), note,
            ("Which order was charged back?",)),
        Ask("biggest", "extreme", "extreme", (odd["biggest"]["id"],), note,
            ("Which order has the largest total?", "What's the biggest order in the export?")),
        Ask("note", "named", "named_item", (odd["note"]["id"],), note,
            ("Which order carries a delivery note?",)),
        Ask("country", "named", "named_item", (odd["country"]["customer"],), note,
            ("Which customer ships outside Germany?",)),
    ]
    for n, o in enumerate(rows[16:44:4]):
        asks.append(Ask(f"total_{n}", "named", "named_item", (repr(o["total"]),), note,
                        (f"What's the total of order {o['id']}?", f"How much was {o['id']}?"),
                        (tuple(COMMANDS)[n % 3],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rows = orders(random.Random(1203))
    doc = {"export": "orders-2026-11-30", "orders": rows}
    (work / "orders-p4.pickle").write_bytes(pickle.dumps(doc, protocol=4))
    (work / "orders-p2.pickle").write_bytes(pickle.dumps(doc, protocol=2))
    return shell_cases(SOURCE, COMMANDS, _asks(rows), cwd=work, env=ENV)
