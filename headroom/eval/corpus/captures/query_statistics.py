"""A database's per-statement execution statistics as PostgreSQL 15's ``pg_stat_statements``
extension keeps them, read in psql: ``SELECT query, calls, rows, total_exec_time,
mean_exec_time FROM pg_stat_statements ORDER BY query`` as an aligned table (one row a
statement; ~65 lines, ~7 kB) and the same with ``-x`` (expanded: a ``-[ RECORD n ]`` block of
five ``column | value`` lines a statement; ~370 lines, ~18 kB), of a throwaway cluster
(``shared_preload_libraries = 'pg_stat_statements'``) where the capture runs a reporting
workload: sixty statements over twelve shop tables, each run a number of times of its own, in
a shuffled order, after the statistics were reset.

Facts come from the capture's own record of which statement it ran how many times, never from
the extension's text: the statement asked for by its call count, and the one run most and least
often. The statements carry no literals, so the text the extension stores is the text the
capture sent (no ``$1`` placeholders), and no statement's text is part of another's (no table's
name starts another's); a fact is kept only where it stands once. Times differ run to run.
Held out (issue 33, twenty-first round): dev holds PostgreSQL's logs, its sessions
(``pg_stat_activity``), plans and WAL, but no cumulative statement statistics.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._pg_runs import BIN, _as_postgres, capture, query

SOURCE = "query_statistics"
CONF = "shared_preload_libraries = 'pg_stat_statements'\nautovacuum = off\n"
TABLES = ("orders_eu", "orders_us", "refunds", "payouts", "invoices", "coupons", "shipments", "returns",
          "carts", "reviews", "vendors", "wishlists")
SHAPES = ("SELECT code, status FROM {t}", "SELECT DISTINCT status FROM {t}",
          "SELECT status, count(*) FROM {t} GROUP BY status", "SELECT max(amount), min(amount) FROM {t}",
          "SELECT code FROM {t} ORDER BY amount DESC")
REPORT = "SELECT query, calls, rows, total_exec_time, mean_exec_time FROM pg_stat_statements ORDER BY query"


def plan(rnd: random.Random) -> dict[str, int]:
    """Each statement and how many times the capture runs it (every count its own)."""
    statements = [s.format(t=t) for t in TABLES for s in SHAPES]
    counts = rnd.sample(range(2, 240), len(statements))
    return dict(zip(statements, counts, strict=True))


def script(calls: dict[str, int], rnd: random.Random) -> str:
    runs = [s for s, n in calls.items() for _ in range(n)]
    rnd.shuffle(runs)
    return "".join(f"{s};\n" for s in runs)


def workload(calls: dict[str, int], rnd: random.Random, outputs: dict[str, Output]) -> Callable[..., None]:
    def go(psql: Callable[..., Any], conn: list[str]) -> None:
        psql("CREATE DATABASE shop", db="postgres")
        sql = partial(query, conn, "shop")
        sql("CREATE EXTENSION pg_stat_statements;" + "".join(
            f"CREATE TABLE {t} (code text PRIMARY KEY, status text, amount numeric(10,2));"
            f"INSERT INTO {t} SELECT '{t[:3]}-' || g, (ARRAY['new','paid','shipped','held'])[1 + g % 4], "
            f"(g * 37 % 1000) + 0.5 FROM generate_series(1, 200) g;" for t in TABLES))
        sql("SELECT pg_stat_statements_reset()")
        sql(script(calls, rnd))
        psql_cmd = [str(BIN / "psql"), *conn, "-U", "postgres", "-d", "shop", "-X"]
        # read before the report queries themselves are counted
        for name, flags in (("table", []), ("expanded", ["-x"])):
            text = _as_postgres([*psql_cmd, *flags, "-c", REPORT]).stdout
            shown = " -x" if flags else ""
            outputs[name] = Output({"command": f'psql -d shop{shown} -c "{REPORT}"'}, "text", text)

    return go


def _asks(calls: dict[str, int], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of how many times it ran each statement"
    ordered = sorted(calls)  # the report's order
    asks = []
    for s in rnd.sample(ordered[len(ordered) // 5: 4 * len(ordered) // 5], 8):
        n = calls[s]
        asks.append(Ask(f"calls_{n}", "named", "named_item", (s,), note,
                        (f"Which statement was executed {n} times?", f"What query has a call count of {n}?")))
    most, least = max(calls, key=calls.get), min(calls, key=calls.get)
    asks += [Ask("most", "extreme", "extreme", (most,), note,
                 ("Which statement was called most often?", "What query ran the most times?")),
             Ask("least", "extreme", "extreme", (least,), note,
                 ("Which statement was called the fewest times?", "What query ran least often?"))]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2106)
    calls = plan(rnd)
    outputs: dict[str, Output] = {}
    capture(work / "pg", CONF, workload(calls, rnd, outputs))
    cases = asked_cases(SOURCE, outputs, _asks(calls, rnd))
    assert len(cases) >= 12, f"too few {SOURCE} cases: {len(cases)}"
    return cases
