"""Referential-integrity reports of the ``sqlite3`` shell: ``PRAGMA foreign_key_check`` (one
``table|rowid|parent|fkid`` row a row whose foreign key points at nothing) in the shell's list
mode and again with ``-header -column``, over a shop database the capture writes with foreign
keys off, as an import script would.

Seven big tables have many orphans (order lines, reviews, price history ... whose product was
deleted; stock moves, shipments ... of a closed warehouse: ~360 rows between them); six small
tables, checked among them, have one orphan each (an invoice of an unknown customer, a delivery
by an unknown carrier, a redeemed gift card that is gone, ...).
Facts come from Python's ``sqlite3`` module running a join on the same database file (another
reader than the pragma): the orphan's rowid and the table that holds it. A fact is kept only
where it stands once. Held out (issue 33, seventeenth round): dev holds the sqlite shell's query
results, HTML rows and plans, but no integrity report.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "fk_checks"
DB = "shop.db"
COMMANDS = {"list": f"sqlite3 {DB} 'PRAGMA foreign_key_check'",
            "column": f"sqlite3 -header -column {DB} 'PRAGMA foreign_key_check'"}
PARENTS = ("customers", "products", "carriers", "warehouses", "coupons", "suppliers", "gift_cards")
# Small child tables: name -> (foreign key column, parent table, what an agent calls the parent).
ODD = {"invoices": ("customer_id", "customers", "a customer"),
       "deliveries": ("carrier_id", "carriers", "a carrier"), "coupon_uses": ("coupon_id", "coupons", "a coupon"),
       "purchase_orders": ("supplier_id", "suppliers", "a supplier"),
       "stock_counts": ("warehouse_id", "warehouses", "a warehouse"),
       "gift_redemptions": ("gift_card_id", "gift_cards", "a gift card")}


# Big child tables (many orphans): name -> (parent, rows); and the parents' ids no delete touches.
NOISY = {"reviews": ("products", 500), "shipments": ("warehouses", 500), "stock_moves": ("warehouses", 1600),
         "price_history": ("products", 900), "pick_lists": ("warehouses", 700), "cart_items": ("products", 800)}
KEPT = [i for i in range(1, 401) if i % 17 != 5 and i % 29 != 3]


def _table(db: sqlite3.Connection, name: str, fks: dict[str, str]) -> None:
    cols = ", ".join(f"{c} INTEGER REFERENCES {p}(id)" for c, p in fks.items())
    db.execute(f"CREATE TABLE {name} (id INTEGER PRIMARY KEY, {cols}, note TEXT)")


def _noisy(db: sqlite3.Connection, name: str, rnd: random.Random) -> None:
    parent, rows = NOISY[name]
    _table(db, name, {f"{parent[:-1]}_id": parent})
    db.executemany(f"INSERT INTO {name} VALUES (?, ?, '')", [(i, rnd.randint(1, 400)) for i in range(1, rows + 1)])


def write_database(path: Path, rnd: random.Random) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA foreign_keys = OFF")  # an import script's habit: the orphans get in
    for p in PARENTS:
        db.execute(f"CREATE TABLE {p} (id INTEGER PRIMARY KEY, name TEXT)")
        db.executemany(f"INSERT INTO {p} VALUES (?, ?)", [(i, f"{p}-{i}") for i in range(1, 401)])
    # The pragma reads the tables created first last: two big ones first keep the small ones inside.
    for name in list(NOISY)[:2]:
        _noisy(db, name, rnd)
    for name, (col, parent, _) in ODD.items():
        _table(db, name, {col: parent})
        ids = rnd.sample(range(100000, 1000000), 40)
        db.executemany(f"INSERT INTO {name} VALUES (?, ?, '')", [(i, rnd.choice(KEPT)) for i in ids])
        db.execute(f"UPDATE {name} SET {col} = 9000 + rowid % 97 WHERE rowid = ?", (rnd.choice(ids),))
    _table(db, "order_lines", {"product_id": "products"})
    db.executemany("INSERT INTO order_lines VALUES (?, ?, '')", [(i, rnd.randint(1, 400)) for i in range(1, 2401)])
    for name in list(NOISY)[2:]:
        _noisy(db, name, rnd)
    db.execute("DELETE FROM products WHERE id % 17 = 5")  # the big tables' rows lose their product ...
    db.execute("DELETE FROM warehouses WHERE id % 29 = 3")  # ... or their warehouse
    db.commit()
    db.close()


def orphans(path: Path, table: str, column: str, parent: str) -> list[int]:
    """Rowids of ``table`` whose ``column`` names no row of ``parent``, by a join."""
    with sqlite3.connect(path) as db:
        return [r for (r,) in db.execute(
            f"SELECT c.rowid FROM {table} c LEFT JOIN {parent} p ON p.id = c.{column} "
            f"WHERE c.{column} IS NOT NULL AND p.id IS NULL ORDER BY c.rowid")]


def _asks(path: Path) -> list[Ask]:
    note = "Python's sqlite3 module: a left join on the same database"
    asks = []
    for table, (col, parent, what) in ODD.items():
        (rowid,) = orphans(path, table, col, parent)
        asks.append(Ask(f"rowid_{table}", "named", "named_item", (str(rowid),), note,
                        (f"Which row of {table} points at {what} that doesn't exist? Rowid?",
                         f"Give me the rowid of the orphaned row in {table}.")))
        if parent in {p for p, _ in NOISY.values()}:
            continue  # big tables hold dangling references of that kind too: no single table
        asks.append(Ask(f"table_{col}", "named", "named_item", (table,), note,
                        (f"Which table has a row referencing {what} that's gone?",
                         f"Where's the dangling {col} reference? Which table?"), ("list",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1703)
    write_database(work / DB, rnd)
    return shell_cases(SOURCE, COMMANDS, _asks(work / DB), cwd=work, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
