"""A database refusing to drop a table other objects depend on, as PostgreSQL 15 reports it
through psql: ``DROP TABLE orders`` (an ``ERROR`` whose ``DETAIL`` lists one ``X depends on Y``
line a dependent object, views on views included, then a ``HINT``; ~100 lines, ~6 kB) and the
same drop with ``CASCADE`` inside a transaction rolled back (a ``NOTICE`` with the count, then one
``drop cascades to X`` line an object; ~100 lines, ~5 kB), of a throwaway cluster where the
capture builds a shop schema around one ``orders`` table: tables whose foreign keys point at it,
views over it, views over those views, a materialized view and a SQL-standard function body.

Facts come from the capture's own record of what it created (which table holds which foreign
key, which view it built on which), checked against the catalogue (``pg_constraint`` and
``pg_depend`` read by SQL in the same database), never from psql's text; a fact is kept only
where it stands once. The dependents are created in a shuffled order (PostgreSQL lists them in
its own dependency-walk order). Held out (issue 33, twenty-fourth round): dev holds PostgreSQL's
logs, schema dumps, plans, WAL and statistics, but no dependency report of a refused drop.
"""

from __future__ import annotations

import random
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._pg_runs import BIN, capture, query

SOURCE = "drop_dependents"
CONF = "autovacuum = off\n"
WORDS = ("amber", "basil", "cedar", "delta", "ember", "fable", "garnet", "hazel", "iris", "jasper", "kestrel",
         "linden", "marlin", "nutmeg", "opal", "pippin", "quill", "russet", "sable", "thistle", "umber", "vesper",
         "willow", "yarrow", "zinnia", "acorn", "bramble", "clover", "dahlia", "egret", "fennel", "gorse")
COMMANDS = {"restrict": "DROP TABLE orders", "cascade": "DROP TABLE orders CASCADE"}


def plan(rnd: random.Random) -> dict[str, Any]:
    """The capture's record: tables with their foreign keys, views (on orders or on a view)."""
    words = rnd.sample(WORDS, len(WORDS))
    # each table's key is named after another word, so no answer stands in its question
    tables = {f"{w}_order_lines": f"fk_{v}_order" for w, v in zip(words, words[2:] + words[:2], strict=True)}
    base_views = [f"v_{w}_sales_report" for w in rnd.sample(WORDS, 30)]
    on_view = {f"v_{w}_weekly_digest": base for w, base in zip(rnd.sample(WORDS, 28), rnd.sample(base_views, 28),
                                                         strict=True)}
    return {"tables": tables, "views": base_views, "on_view": on_view, "matview": "mv_daily_orders",
            "function": "order_total"}


def ddl(p: dict[str, Any], rnd: random.Random) -> str:
    parts = ["CREATE TABLE orders (id integer PRIMARY KEY, region text, amount numeric(10,2), placed date);",
             ("INSERT INTO orders SELECT g, (ARRAY['eu','us','apac'])[1 + g % 3], g * 1.5, "
              "date '2026-01-01' + g % 300 FROM generate_series(1, 500) g;")]
    objs = [f"CREATE TABLE {t} (id serial PRIMARY KEY, order_id integer CONSTRAINT {fk} REFERENCES orders(id), "
            f"qty integer);" for t, fk in p["tables"].items()]
    objs += [f"CREATE VIEW {v} AS SELECT id, region, amount FROM orders WHERE amount > {rnd.randint(1, 700)};"
             for v in p["views"]]
    rnd.shuffle(objs)
    # views on views come after their base views; the rest in a shuffled order
    objs += [f"CREATE VIEW {v} AS SELECT region, count(*) AS n FROM {b} GROUP BY region;"
             for v, b in p["on_view"].items()]
    objs.append(f"CREATE MATERIALIZED VIEW {p['matview']} AS SELECT placed, sum(amount) AS total FROM orders "
                "GROUP BY placed;")
    objs.append(f"CREATE FUNCTION {p['function']}(o integer) RETURNS numeric LANGUAGE sql "
                "BEGIN ATOMIC SELECT amount FROM orders WHERE id = o; END;")
    return "\n".join(parts + objs)


def catalogue(sql: Callable[[str], str]) -> tuple[dict[str, str], set[str]]:
    """Foreign keys on orders (constraint -> table) and views reading it, from the catalogue."""
    fks = dict(line.split("|") for line in sql(
        "SELECT conname, conrelid::regclass FROM pg_constraint WHERE confrelid = 'orders'::regclass").splitlines())
    views = set(sql("SELECT DISTINCT c.relname FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid "
                    "JOIN pg_class c ON c.oid = r.ev_class WHERE d.refobjid = 'orders'::regclass "
                    "AND c.relkind = 'v'").splitlines())
    return fks, views


def _merged(cmd: list[str]) -> str:
    """psql's stdout and stderr as a terminal shows them: one stream, in the order written."""
    done = subprocess.run(["runuser", "-u", "postgres", "--", *cmd], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120, check=False)
    return done.stdout


def workload(p: dict[str, Any], rnd: random.Random, outputs: dict[str, Output]) -> Callable[..., None]:
    def go(psql: Callable[..., Any], conn: list[str]) -> None:
        psql("CREATE DATABASE shop", db="postgres")
        sql = partial(query, conn, "shop")
        sql(ddl(p, rnd))
        fks, views = catalogue(sql)
        assert fks == {fk: t for t, fk in p["tables"].items()}, fks
        assert views == set(p["views"]), views
        psql_cmd = [str(BIN / "psql"), *conn, "-U", "postgres", "-d", "shop", "-X"]
        outputs["restrict"] = Output({"command": f'psql -d shop -c "{COMMANDS["restrict"]}"'}, "text",
                                     _merged([*psql_cmd, "-c", COMMANDS["restrict"]]))
        # the cascade is shown, then undone: the same database, nothing dropped
        outputs["cascade"] = Output(
            {"command": f'psql -d shop -c "BEGIN" -c "{COMMANDS["cascade"]}" -c "ROLLBACK"'}, "text",
            _merged([*psql_cmd, "-c", "BEGIN", "-c", COMMANDS["cascade"], "-c", "ROLLBACK"]))

    return go


def _asks(p: dict[str, Any], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the objects it created, checked against pg_constraint and pg_depend"
    tables = list(p["tables"].items())
    asks = []
    for t, fk in rnd.sample(tables[len(tables) // 5: 4 * len(tables) // 5], 5):
        asks.append(Ask(f"fk_{fk}", "named", "named_item", (t,), note,
                        (f"Which table holds the foreign key {fk}?", f"What table does constraint {fk} sit on?")))
    single = [(v, b) for v, b in p["on_view"].items() if list(p["on_view"].values()).count(b) == 1]
    for v, b in rnd.sample(single, 5):  # only the refusal says which view a view depends on
        asks.append(Ask(f"on_{b}", "named", "named_item", (v,), note,
                        (f"Which view is built on the view {b}?", f"What view depends on {b}?"), only=("restrict",)))
    asks.append(Ask("matview", "named", "named_item", (p["matview"],), note,
                    ("Which materialized view depends on orders?", "What materialized view reads the orders table?")))
    asks.append(Ask("function", "named", "named_item", (p["function"],), note,
                    ("Which function depends on the orders table?", "What SQL function reads orders?")))
    n = len(p["tables"]) + len(p["views"]) + len(p["on_view"]) + 2
    asks.append(Ask("count", "named", "named_item", (str(n),), note,
                    ("How many other objects does the cascade drop?", "How many dependent objects would go with it?"),
                    only=("cascade",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2401)
    p = plan(rnd)
    outputs: dict[str, Output] = {}
    capture(work / "pg", CONF, workload(p, rnd, outputs))
    cases = asked_cases(SOURCE, outputs, _asks(p, rnd))
    assert len(cases) >= 12, f"too few {SOURCE} cases: {len(cases)}"
    return cases
