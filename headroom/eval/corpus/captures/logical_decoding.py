"""A database's change stream as PostgreSQL 15's logical decoding writes it through the
``test_decoding`` plugin: ``pg_recvlogical --start`` (``BEGIN xid``, one ``table
public.orders: UPDATE: code[text]:'ORD-...' status[text]:'shipped' amount[numeric]:412.37`` line a
row change, ``message:`` lines for emitted messages, ``TRUNCATE``, ``COMMIT xid``; ~480 lines,
~23 kB) and ``SELECT lsn, xid, data FROM pg_logical_slot_peek_changes(...)`` in psql (the same
changes as an aligned table with each change's WAL position and transaction id; ~490 lines, ~33 kB),
of a shop database the capture writes on a throwaway cluster (``wal_level = logical``): 400
orders loaded before the slots exist, then 140 transactions (new orders with their payments,
status changes of loaded orders, refunds), each slot reading all of them.

In the middle, one loaded order is deleted, one is put on ``fraud_hold``, one table is
truncated and one transactional message is emitted. Facts come from the capture's own record
of the statements it ran, never from the decoder's text; a fact is kept only where it stands
once (an order changed twice would stand twice, so every loaded order changes at most once and
the amounts are drawn without repeats; transaction ids stand on ``BEGIN`` and ``COMMIT`` and on
every row of the table, so they are never asked). Held out (issue 33, twenty-first round): dev
holds PostgreSQL's physical WAL records (``pg_waldump``), its logs and query plans, but no
logical change stream.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._pg_runs import BIN, _as_postgres, capture, query

SOURCE = "logical_decoding"
CONF = "wal_level = logical\nmax_replication_slots = 4\nmax_wal_senders = 4\nautovacuum = off\n"
STATUSES = ("packed", "shipped", "delivered", "cancelled")


def _code(rnd: random.Random, prefix: str) -> str:
    return prefix + "-" + "".join(rnd.choices(string.ascii_uppercase + string.digits, k=6))


def _amount(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


@dataclass
class Workload:
    """The capture's record: the orders loaded first, then each transaction's statements and
    what they did (which order was created at what amount, refunded how much, paid by which
    reference, put on hold, deleted; which table was truncated, which message was sent)."""

    loaded: dict[str, str] = field(default_factory=dict)  # code -> amount
    transactions: list[list[str]] = field(default_factory=list)
    created: dict[str, str] = field(default_factory=dict)
    refunds: dict[str, str] = field(default_factory=dict)
    payments: dict[str, str] = field(default_factory=dict)  # ref -> the new order it pays
    held: str = ""
    deleted: str = ""
    message: str = ""


def plan(rnd: random.Random) -> Workload:
    wl = Workload()
    codes = set()

    def code(prefix: str) -> str:
        while (c := _code(rnd, prefix)) in codes:
            pass
        codes.add(c)
        return c

    amounts = iter(_amount(c) for c in rnd.sample(range(1000, 99999), 1000))
    for _ in range(400):
        wl.loaded[code("ORD")] = next(amounts)
    untouched = list(wl.loaded)
    rnd.shuffle(untouched)
    odd_at = {45: "hold", 62: "delete", 78: "truncate", 91: "message"}
    for t in range(140):
        stmts = []
        kind = odd_at.get(t) or rnd.choice(("new", "new", "status", "refund"))
        if kind == "new":
            c, a, ref = code("ORD"), next(amounts), code("PAY")
            wl.created[c], wl.payments[ref] = a, c
            stmts += [f"INSERT INTO orders (code, status, amount) VALUES ('{c}', 'new', {a})",
                      (f"INSERT INTO payments (ref, order_code, method) VALUES ('{ref}', '{c}', "
                       f"'{rnd.choice(('card', 'sepa', 'paypal'))}')")]
        elif kind == "status":
            stmts.append(f"UPDATE orders SET status = '{rnd.choice(STATUSES)}' WHERE code = '{untouched.pop()}'")
        elif kind == "refund":
            c, a = untouched.pop(), next(amounts)
            wl.refunds[c] = a
            stmts.append(f"INSERT INTO refunds (order_code, amount) VALUES ('{c}', {a})")
        elif kind == "hold":
            wl.held = untouched.pop()
            stmts.append(f"UPDATE orders SET status = 'fraud_hold' WHERE code = '{wl.held}'")
        elif kind == "delete":
            wl.deleted = untouched.pop()
            stmts.append(f"DELETE FROM orders WHERE code = '{wl.deleted}'")
        elif kind == "truncate":
            stmts.append("TRUNCATE cart_sessions")
        else:
            wl.message = f"nightly close {rnd.randint(1000, 9999)} balanced"
            stmts.append(f"SELECT pg_logical_emit_message(true, 'ledger', '{wl.message}')")
        wl.transactions.append(stmts)
    return wl


SCHEMA = """
CREATE TABLE orders (code text PRIMARY KEY, status text NOT NULL, amount numeric(10,2) NOT NULL);
CREATE TABLE payments (ref text PRIMARY KEY, order_code text NOT NULL, method text NOT NULL);
CREATE TABLE refunds (id serial PRIMARY KEY, order_code text NOT NULL, amount numeric(10,2) NOT NULL);
CREATE TABLE cart_sessions (id serial PRIMARY KEY, started timestamptz DEFAULT now());
INSERT INTO cart_sessions (started) SELECT now() FROM generate_series(1, 50);
"""


def workload(wl: Workload, outputs: dict[str, Output]) -> Callable[..., None]:
    def go(psql: Callable[..., Any], conn: list[str]) -> None:
        psql("CREATE DATABASE shop", db="postgres")
        sql = partial(query, conn, "shop")
        sql(SCHEMA + "INSERT INTO orders (code, status, amount) VALUES "
            + ", ".join(f"('{c}', 'new', {a})" for c, a in wl.loaded.items()) + ";")
        # two slots, so that peeking one and consuming the other both see every change
        sql("SELECT pg_create_logical_replication_slot('audit', 'test_decoding');"
            "SELECT pg_create_logical_replication_slot('audit_sql', 'test_decoding');")
        sql("\n".join("BEGIN;\n" + ";\n".join(t) + ";\nCOMMIT;" for t in wl.transactions))
        end = sql("SELECT pg_current_wal_lsn()")
        peek = "SELECT lsn, xid, data FROM pg_logical_slot_peek_changes('audit_sql', NULL, NULL)"
        text = _as_postgres([str(BIN / "psql"), *conn, "-U", "postgres", "-d", "shop", "-X", "-c", peek]).stdout
        outputs["peek"] = Output({"command": f'psql -d shop -c "{peek}"'}, "text", text)
        stream = _as_postgres([str(BIN / "pg_recvlogical"), *conn, "-U", "postgres", "-d", "shop", "-S", "audit",
                               "--start", "-E", end, "-f", "-"], timeout=120).stdout
        outputs["stream"] = Output({"command": f"pg_recvlogical -d shop -S audit --start -E {end} -f -"}, "text",
                                   stream)

    return go


def _asks(wl: Workload, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the statements it ran"
    asks = []
    created = list(wl.created)
    for c in rnd.sample(created[len(created) // 4: 3 * len(created) // 4], 3):
        asks.append(Ask(f"amount_{c}", "named", "named_item", (wl.created[c],), note,
                        (f"What amount was order {c} created with?", f"How much is the new order {c} for?")))
    refunded = list(wl.refunds)
    for c in rnd.sample(refunded[len(refunded) // 4: 3 * len(refunded) // 4], 2):
        asks.append(Ask(f"refund_{c}", "named", "named_item", (wl.refunds[c],), note,
                        (f"How much was refunded on order {c}?", f"What refund amount was recorded for {c}?")))
    refs = list(wl.payments)
    for ref in rnd.sample(refs[len(refs) // 4: 3 * len(refs) // 4], 2):
        asks.append(Ask(f"payment_{ref}", "named", "named_item", (ref,), note,
                        (f"Which payment reference was inserted for order {wl.payments[ref]}?",
                         f"What is the payment ref of order {wl.payments[ref]}?")))
    asks += [
        Ask("held", "named", "named_item", (wl.held,), note,
            ("Which order was put on fraud hold?", "What order got the fraud_hold status?")),
        Ask("deleted", "named", "named_item", (wl.deleted,), note,
            ("Which order was deleted?", "What order row was removed?")),
        Ask("truncated", "named", "named_item", ("public.cart_sessions",), note,
            ("Which table was truncated?", "What table got emptied with TRUNCATE?")),
        Ask("message", "named", "named_item", (wl.message,), note,
            ("What did the ledger message say?", "What content was emitted under the ledger prefix?")),
    ]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2102)
    wl = plan(rnd)
    outputs: dict[str, Output] = {}
    capture(work / "pg", CONF, workload(wl, outputs))
    cases = asked_cases(SOURCE, {k: outputs[k] for k in ("stream", "peek")}, _asks(wl, rnd))
    assert len(cases) >= 12, f"too few {SOURCE} cases: {len(cases)}"
    return cases
