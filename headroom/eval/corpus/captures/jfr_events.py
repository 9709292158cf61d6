"""A flight recording as the JDK's ``jfr`` tool prints it: ``jfr print --events 'shop.*'
--stack-depth 1`` (one ``shop.Checkout { ... }`` block an event: start time, the fields, the
thread, a one-frame stack; ~4,100 lines) and ``jfr summary`` (the recording's chunks and one row an
event type with its count and size), of a recording a small Java program makes of its own
events (OpenJDK 17, run from source with ``java Shop.java``; the program's values are the
capture's, compiled into it).

Most events are alike (checkouts of routine carts, cache lookups); a few in the middle differ in
one way each: refunds of named orders with amounts of their own, one fraud hold with a reason
code, a checkout far larger than the rest. Facts come from the capture's own record of the
events it had the program commit (their fields and how many of each type), never from jfr's
text; a fact is kept only where it stands once. Held out (issue 33, eighteenth round): dev
holds a running JVM's thread dumps and class histograms (``jstack``, ``jcmd``), but no event
recording.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "jfr_events"
BIG_CENTS = 9_871_234
COMMANDS = {"print": "jfr print --events 'shop.*' --stack-depth 1 shop.jfr", "summary": "jfr summary shop.jfr"}
JAVA = """import jdk.jfr.*;

public class Shop {{
    @Name("shop.Checkout") @Label("Checkout") static class Checkout extends Event {{
        @Label("Order") String order; @Label("Cents") long cents; @Label("Items") int items;
    }}
    @Name("shop.Refund") @Label("Refund") static class Refund extends Event {{
        @Label("Order") String order; @Label("Cents") long cents;
    }}
    @Name("shop.FraudHold") @Label("Fraud hold") static class FraudHold extends Event {{
        @Label("Order") String order; @Label("Reason") String reason;
    }}
    @Name("shop.CacheLookup") @Label("Cache lookup") static class CacheLookup extends Event {{
        @Label("Key") String key; @Label("Hit") boolean hit;
    }}

    public static void main(String[] args) throws Exception {{
        Recording r = new Recording();
        r.enable("shop.*");
        r.start();
{body}        r.stop();
        r.dump(java.nio.file.Path.of("shop.jfr"));
    }}
}}
"""


@dataclass
class Plan:
    """The capture's record: the events in commit order (type, fields), and the odd ones."""

    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    refunds: dict[str, int] = field(default_factory=dict)  # order -> cents
    hold: tuple[str, str] = ("", "")  # order, reason
    big: str = ""  # the order of the largest checkout

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for kind, _ in self.events:
            out[kind] = out.get(kind, 0) + 1
        return out


def plan(rnd: random.Random) -> Plan:
    p, n = Plan(), 260
    ids = rnd.sample(range(10_000, 99_999), n + 4)
    orders, earlier = [f"ord-{o}" for o in ids[:n]], [f"ord-{o}" for o in ids[n:]]
    odd = rnd.sample(range(n // 3, n * 2 // 3), 6)
    for i, order in enumerate(orders):
        if i == odd[4]:  # held instead of checked out: the order is named once
            p.hold = (order, f"velocity-{rnd.randint(300, 399)}")
            p.events.append(("FraudHold", {"order": order, "reason": p.hold[1]}))
            continue
        cents = 1_000 + 25 * rnd.randint(0, 400)
        if i == odd[5]:
            cents, p.big = BIG_CENTS, order
        p.events.append(("Checkout", {"order": order, "cents": cents, "items": rnd.randint(1, 6)}))
        if i % 3 == 0:
            p.events.append(("CacheLookup", {"key": f"cart:{order}", "hit": i % 2 == 0}))
        if i in odd[:4]:  # a refund of an order from an earlier day, among today's checkouts
            refunded = earlier[odd.index(i)]
            p.refunds[refunded] = rnd.randint(100_001, 400_000)
            p.events.append(("Refund", {"order": refunded, "cents": p.refunds[refunded]}))
    return p


def _java_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return f'"{v}"' if isinstance(v, str) else f"{v}L" if isinstance(v, int) and v > 2**31 else str(v)


def java_source(p: Plan) -> str:
    lines = []
    for kind, fields in p.events:
        sets = " ".join(f"e.{k} = {_java_value(v)};" for k, v in fields.items())
        lines.append(f"        {{ {kind} e = new {kind}(); {sets} e.commit(); }}\n")
    return JAVA.format(body="".join(lines))


def _asks(p: Plan) -> list[Ask]:
    note = "the capture's record of the events it had the program commit"
    asks = [Ask(f"refund_{order}", "named", "named_item", (str(cents),), note,
                (f"How much was refunded on {order}, in cents?", f"What's the refund amount for order {order}?"),
                ("print",)) for order, cents in p.refunds.items()]
    asks += [Ask(f"refunded_{order}", "named", "named_item", (f'"{order}"',), note,
                 (f"Which order got a refund of {cents} cents?", f"A {cents}-cent refund went to what order?"),
                 ("print",)) for order, cents in p.refunds.items()]
    asks.append(Ask("refunded_orders", "named", "named_item", tuple(f'"{o}"' for o in p.refunds), note,
                    ("Which orders got refunds in this recording?", "List the orders with a Refund event."),
                    ("print",)))
    order, reason = p.hold
    asks.append(Ask("hold_order", "named", "named_item", (f'"{order}"',), note,
                    ("Which order was put on a fraud hold?", "What order does the FraudHold event name?"), ("print",)))
    asks.append(Ask("hold_reason", "named", "named_item", (f'"{reason}"',), note,
                    ("What reason code came with the fraud hold?", "Why was the order held? Reason field?"),
                    ("print",)))
    asks.append(Ask("big_checkout", "named", "named_item", (f'"{p.big}"',), note,
                    ("Which order had by far the biggest checkout?", "What's the order on the huge checkout event?"),
                    ("print",)))
    asks.append(Ask("big_cents", "named", "named_item", (str(BIG_CENTS),), note,
                    ("How many cents was the largest checkout?", "Amount of the outsized checkout, in cents?"),
                    ("print",)))
    counts = p.counts()
    for kind in ("Checkout", "CacheLookup", "Refund"):
        asks.append(Ask(f"count_{kind.lower()}", "named", "named_item", (str(counts[kind]),), note,
                        (f"How many shop.{kind} events were recorded?", f"Count of {kind} events in the file?"),
                        ("summary",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    p = plan(random.Random(1805))
    (work / "Shop.java").write_text(java_source(p))
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC", "HOME": str(work)}
    run(["java", "Shop.java"], cwd=work, env=env)
    return shell_cases(SOURCE, COMMANDS, _asks(p), cwd=work, env=env, least=10)
