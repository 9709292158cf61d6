"""Query results as HTML table rows: the sqlite3 shell's ``-html`` mode (``<TR>``, then one
``<TD>`` cell a line, ``</TR>``; with ``-header`` a first row of ``<TH>`` cells) over a
shipment database the capture writes (~420 shipments: tracking code, customer, city,
weight, status), the whole table in id order with its header, and a narrower query sorted
by customer without one.

Facts come from the capture's record of the rows it inserted, never from the shell's text;
a fact is kept only where it stands once. Held out (issue 33, fifteenth round, replacing a
near-dev source): dev holds query results drawn as boxes, as ``column = value`` lines and as
JSON, aligned tables and CSV, but no HTML markup.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "html_tables"
FIRST = ("Ada", "Bruno", "Carla", "Dmitri", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kenji",
         "Lena", "Mateo", "Nora", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tamar", "Umar", "Vera")
LAST = ("Adler", "Brandt", "Castro", "Dubois", "Eriksen", "Fischer", "Garcia", "Horvat", "Ivanova",
        "Jansen", "Kowalski", "Lindqvist", "Moreau", "Novak", "Okafor", "Petrov", "Quinn", "Rossi", "Schulz",
        "Tanaka", "Ueda", "Varga")
CITIES = ("Lyon", "Porto", "Graz", "Ghent", "Turku", "Brno", "Cork", "Malmo", "Split", "Bergen")
ROUTINE = ("delivered", "in transit", "out for delivery", "label created")
ODD = ("held at customs", "returned to sender", "address unknown", "damaged in transit")
COUNT = 420
COMMANDS = {
    "table": "sqlite3 -html -header shipments.db 'SELECT * FROM shipments ORDER BY id'",
    "by_customer": "sqlite3 -html shipments.db 'SELECT customer, tracking, status FROM shipments ORDER BY customer'",
}


def shipments(rnd: random.Random) -> list[tuple[int, str, str, str, str, str]]:
    """(id, tracking, customer, city, weight, status); customers and codes unique, each odd
    status once, in the middle half of the ids."""
    names = rnd.sample([f"{f} {la}" for f in FIRST for la in LAST], COUNT)
    codes = rnd.sample(range(10**9, 10**10), COUNT)
    odd_at = dict(zip(rnd.sample(range(COUNT // 4, COUNT * 3 // 4), len(ODD)), ODD, strict=True))
    return [(n + 1, f"TRK{codes[n]}", names[n], rnd.choice(CITIES), f"{rnd.randrange(2, 400) / 10:.1f}",
             odd_at.get(n, rnd.choice(ROUTINE))) for n in range(COUNT)]


def write_db(path: Path, rows: list[tuple]) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE shipments (id INTEGER PRIMARY KEY, tracking TEXT, customer TEXT, city TEXT, "
               "weight_kg REAL, status TEXT)")
    db.executemany("INSERT INTO shipments VALUES (?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()


def _asks(rows: list[tuple], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the rows it inserted"
    middle = [r for r in rows[COUNT // 4:COUNT * 3 // 4] if r[5] in ROUTINE]
    picked = rnd.sample(middle, 5)
    asks = [Ask(f"tracking_of_{r[0]}", "named", "named_item", (r[1],), note,
                (f"What's the tracking code of {r[2]}'s shipment?", f"Which tracking number belongs to {r[2]}?"))
            for r in picked[:3]]
    asks += [Ask(f"customer_of_{r[0]}", "named", "named_item", (r[2],), note,
                 (f"Whose shipment is {r[1]}?", f"Which customer does {r[1]} belong to?")) for r in picked[3:]]
    asks += [Ask(f"status_{r[5].replace(' ', '_')}", "named", "named_item", (r[1],), note,
                 (f"Which shipment is {r[5]}?", f"Find the parcel marked '{r[5]}': what's its tracking code?"))
             for r in rows if r[5] in ODD]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1508)
    rows = shipments(rnd)
    write_db(work / "shipments.db", rows)
    return shell_cases(SOURCE, COMMANDS, _asks(rows, rnd), cwd=work, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
