"""SQLite's query plans and bytecode (the ``sqlite3`` shell with ``.echo on``: ``EXPLAIN QUERY
PLAN`` trees, ``EXPLAIN`` listings of the virtual machine's program, and ``.eqp full`` running
lookups with both before their rows) over a shop database the capture makes: 44 tables, each
filled with its own number of rows before the next is made (so their root pages spread), two
indexes on most of them under names a convention would not give away.

Facts come from the capture's record of the indexes it made (the one index on the column a
lookup filters) and from Python's ``sqlite3`` module reading ``sqlite_master`` (a table's root
page, the page the program opens it at), never from the shell's text; a fact is kept only where
its text stands once in the output. Held out (issue 33, thirteenth round): dev's
``sqlite_query`` holds query results, no dev source a query plan tree or a bytecode listing.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "sqlite_plans"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
TABLES = ("customers", "addresses", "orders", "order_lines", "invoices", "payments", "refunds", "shipments",
          "parcels", "carriers", "products", "variants", "prices", "stock_levels", "warehouses", "suppliers",
          "purchase_orders", "receipts", "coupons", "campaigns", "reviews", "wishlists", "carts", "cart_items",
          "sessions", "api_keys", "webhooks", "audit_events", "tax_rates", "currencies", "exchange_rates",
          "returns", "return_items", "tickets", "ticket_notes", "loyalty_accounts", "gift_cards", "vendors",
          "payouts", "disputes", "fraud_scores", "price_alerts", "newsletters", "subscriptions")
COLUMNS = ("ref", "owner_id", "created", "status", "region", "amount", "code", "due", "score", "channel")
COMMANDS = {
    "plans": "sqlite3 shop.db < plans.sql",
    "bytecode": "sqlite3 shop.db < bytecode.sql",
    "eqp_full": "sqlite3 shop.db < lookups.sql",
}


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[str, ...]
    indexes: dict[str, str]  # indexed column -> index name
    rows: int


def tables(rnd: random.Random) -> list[Table]:
    """The schema: four columns each; two indexes on all but every fifth table, named
    ``ix<number>_<word>`` (the number random, so no convention gives a name away)."""
    numbers = iter(rnd.sample(range(10, 99), 88))
    words = ("lookup", "by_key", "hot", "recent", "filter", "sort", "cover", "scan")
    out = []
    for n, name in enumerate(TABLES):
        cols = tuple(rnd.sample(COLUMNS, 4))
        indexed = () if n % 5 == 4 else cols[:2]
        out.append(Table(name, cols, {c: f"ix{next(numbers)}_{rnd.choice(words)}" for c in indexed},
                         rnd.randint(40, 900)))
    return out


def make_database(path: Path, schema: list[Table], rnd: random.Random) -> dict[str, int]:
    """Each table made and filled before the next; root pages as ``sqlite_master`` gives them."""
    con = sqlite3.connect(path)
    for t in schema:
        con.execute(f"CREATE TABLE {t.name} (id INTEGER PRIMARY KEY, {', '.join(t.columns)})")
        for col, index in t.indexes.items():
            con.execute(f"CREATE INDEX {index} ON {t.name} ({col})")
        marks = ",".join("?" * len(t.columns))
        con.executemany(f"INSERT INTO {t.name} ({', '.join(t.columns)}) VALUES ({marks})",
                        [tuple(f"{c}-{rnd.randint(0, 10**6)}" for c in t.columns) for _ in range(t.rows)])
        con.commit()
    roots = dict(con.execute("SELECT name, rootpage FROM sqlite_master"))
    con.close()
    return roots


def write_scripts(work: Path, schema: list[Table]) -> None:
    """plans.sql: a lookup by each table's second column (indexed or not) and a join of
    neighbours; bytecode.sql: a grouped count over an id range of every other table; lookups.sql: ``.eqp full``
    over a few lookups by the first column."""
    plans = [".echo on"]
    for a, b in itertools.pairwise(schema):
        plans.append(f"EXPLAIN QUERY PLAN SELECT * FROM {a.name} WHERE {a.columns[1]} = ?1;")
        plans.append(f"EXPLAIN QUERY PLAN SELECT {a.name}.id FROM {a.name} JOIN {b.name} "
                     f"ON {b.name}.{b.columns[2]} = {a.name}.{a.columns[2]} ORDER BY {a.name}.{a.columns[3]};")
    code = [".echo on"] + [f"EXPLAIN SELECT {t.columns[3]}, count(*) FROM {t.name} WHERE id BETWEEN ?1 AND ?2 "
                           f"GROUP BY {t.columns[3]} ORDER BY 2 DESC LIMIT 5;" for t in schema[1::2]]
    looks = [".echo on", ".eqp full"] + [f"SELECT id FROM {t.name} WHERE {t.columns[0]} = 'none';"
                                         for t in schema[10:34:3]]
    for name, lines in (("plans", plans), ("bytecode", code), ("lookups", looks)):
        (work / f"{name}.sql").write_text("\n".join(lines) + "\n")


def _asks(schema: list[Table], roots: dict[str, int]) -> list[Ask]:
    note_ix = "the capture's record of the indexes it made"
    note_root = "Python's sqlite3 reading sqlite_master (rootpage)"
    asks = []
    for n, t in enumerate(schema[8:36]):
        col = t.columns[1]
        if col in t.indexes and n % 2 == 0:
            asks.append(Ask(f"index_{t.name}", "named", "named_item", (t.indexes[col],), note_ix,
                            (f"Which index does the {t.name} lookup by {col} go through?",
                             f"What index serves the query on {t.name} filtering {col}?"), ("plans",)))
    for n, t in enumerate(schema[10:34:3]):
        if t.columns[0] in t.indexes and n % 2 == 1:
            asks.append(Ask(f"eqp_index_{t.name}", "named", "named_item", (t.indexes[t.columns[0]],), note_ix,
                            (f"Which index did the {t.name} lookup use?",), ("eqp_full",)))
    for n, t in enumerate(schema[9:37:2]):
        if roots[t.name] >= 100 and n % 2 == 0:
            asks.append(Ask(f"root_{t.name}", "named", "named_item", (str(roots[t.name]),), note_root,
                            (f"At which root page does the program open the {t.name} table?",
                             f"Which b-tree page is {t.name} read from in the bytecode?"), ("bytecode",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1301)
    schema = tables(rnd)
    roots = make_database(work / "shop.db", schema, rnd)
    write_scripts(work, schema)
    return shell_cases(SOURCE, COMMANDS, _asks(schema, roots), cwd=work, env=ENV)
