"""A redis stream's consumer groups as ``redis-cli`` shows them: ``XINFO STREAM orders FULL
COUNT 0`` (the stream's counters, every entry with its fields, then each group with its
pending-entries list and its consumers, each consumer with its own pending list; a nested reply
redis-cli indents level by level; ~4,100 lines, ~115 kB) and ``XPENDING orders billing - + 500``
(one four-line record a pending entry: id, consumer, idle milliseconds, delivery count; ~470
lines, ~10 kB), of a throwaway loopback server the capture fills with ~260 order events under ids it
chooses, then reads through three groups (billing, shipping, audit) as eleven consumers,
acknowledging most of what each reads.

Most entries are alike (an order, a SKU, a quantity, an amount, a region); in the middle, one
order ships to a region no other does, one pending billing entry is claimed by a night consumer
that holds nothing else, one is claimed with a retry count of its own, one with an idle time set
a day back, and the billing group has a spare consumer that never read (two acknowledged entries
are deleted, so the stream's header names the larger; it is not asked, standing at the top).
Facts come from the capture's own record of what it added, read, acknowledged, claimed and
deleted, never from redis-cli's text; a fact is kept only where it stands once. Held out (issue
33, nineteenth round): dev holds redis's logs, INFO, CLIENT LIST, SLOWLOG and access-control
lists, but no stream or consumer-group state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import redis_server, run

SOURCE = "redis_streams"
COUNT = 260
BASE_MS = 1793577600000  # 2026-11-02 00:00 UTC: the ids are the capture's, not the clock's
REGIONS = ("de-north", "de-south", "at", "ch", "nl", "be", "fr-east", "dk")
SKUS = tuple(f"SKU-{n:04d}" for n in range(1200, 1260))
GROUPS = {"billing": ("billing-1", "billing-2", "billing-3", "billing-4"),
          "shipping": ("shipping-1", "shipping-2", "shipping-3", "shipping-4"),
          "audit": ("audit-1", "audit-2")}
NIGHT, SPARE = "billing-night", "billing-spare"
RETRIES, IDLE_MS = 7, 86_400_000
COMMANDS = {"full": "XINFO STREAM orders FULL COUNT 0", "pending": "XPENDING orders billing - + 500"}


@dataclass
class Entry:
    id: str
    order: str
    sku: str
    qty: int
    amount: str
    region: str

    def fields(self) -> list[str]:
        return ["order", self.order, "sku", self.sku, "qty", str(self.qty), "amount", self.amount,
                "region", self.region]


@dataclass
class Plan:
    """The capture's record: the entries in order, who reads what, what stays pending, the odd ones."""

    entries: list[Entry] = field(default_factory=list)
    reads: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # group -> (consumer, batch size)
    pending: dict[str, set[str]] = field(default_factory=dict)  # group -> ids left unacknowledged
    deleted: list[str] = field(default_factory=list)
    odd: dict[str, str] = field(default_factory=dict)  # what -> entry id (or order for "region")

    def by_id(self, eid: str) -> Entry:
        return next(e for e in self.entries if e.id == eid)


def plan(rnd: random.Random) -> Plan:
    p, amounts, ms = Plan(), set(), BASE_MS
    for n in range(COUNT):
        ms += rnd.randint(400, 9000)  # every id a millisecond of its own, sequence 0: no id is part of another
        amount = f"{rnd.randint(1500, 99000) / 100:.2f}"
        while amount in amounts:
            amount = f"{rnd.randint(1500, 99000) / 100:.2f}"
        amounts.add(amount)
        p.entries.append(Entry(f"{ms}-0", f"ord-{40000 + n * 7}", rnd.choice(SKUS), rnd.randint(1, 9), amount,
                               rnd.choice(REGIONS)))
    ids = [e.id for e in p.entries]
    middle = ids[COUNT // 4:COUNT * 3 // 4]
    for group, consumers in GROUPS.items():
        batches, read = [], 0
        while read < COUNT:
            size = min(rnd.randint(6, 14), COUNT - read)
            batches.append((consumers[len(batches) % len(consumers)], size))
            read += size
        p.reads[group] = batches
    share = {"billing": 0.45, "shipping": 0.08, "audit": 0.04}
    for group in GROUPS:
        left = {i for i in ids if rnd.random() < share[group]}
        # each consumer keeps the last entry of its last batch pending, so only the standby has none
        pos = 0
        last_of = {}
        for consumer, size in p.reads[group]:
            pos += size
            last_of[consumer] = ids[pos - 1]
        p.pending[group] = left | set(last_of.values())
    anywhere = set().union(*p.pending.values())
    billing_only = sorted(set(middle) & p.pending["billing"] - p.pending["shipping"] - p.pending["audit"]
                          - {ids[-1]})
    night, retried, idle = rnd.sample(billing_only, 3)
    gone = sorted(rnd.sample([i for i in middle if i not in anywhere], 2), key=ids.index)
    p.deleted = gone
    shown = [i for i in middle if i not in anywhere and i not in gone]
    p.odd = {"night": night, "retried": retried, "idle": idle}
    p.entries[ids.index(rnd.choice(shown))].region = "is-reykjavik"
    return p


def drive(r, p: Plan) -> None:
    """Add, read, acknowledge, claim and delete as planned (redis-py on the same server)."""
    for e in p.entries:
        r.execute_command("XADD", "orders", e.id, *e.fields())
    for group, batches in p.reads.items():
        r.execute_command("XGROUP", "CREATE", "orders", group, "0")
        for consumer, size in batches:
            got = r.execute_command("XREADGROUP", "GROUP", group, consumer, "COUNT", size, "STREAMS", "orders", ">")
            done = [eid for _, rows in got for eid, _ in rows if eid.decode() not in p.pending[group]]
            if done:
                r.execute_command("XACK", "orders", group, *done)
    r.execute_command("XGROUP", "CREATECONSUMER", "orders", "billing", SPARE)
    r.execute_command("XCLAIM", "orders", "billing", NIGHT, 0, p.odd["night"])
    r.execute_command("XCLAIM", "orders", "billing", "billing-2", 0, p.odd["retried"], "RETRYCOUNT", RETRIES)
    r.execute_command("XCLAIM", "orders", "billing", "billing-3", 0, p.odd["idle"], "IDLE", IDLE_MS)
    r.execute_command("XDEL", "orders", *p.deleted)


def _asks(p: Plan, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of what it added, read, acknowledged, claimed and deleted"
    odd = p.odd
    asks = [
        Ask("night_entry", "named", "named_item", (odd["night"],), note,
            (f"Which entry is {NIGHT} holding?", f"What pending id was claimed by {NIGHT}?"), ("pending",)),
        Ask("night_consumer", "named", "named_item", (NIGHT,), note,
            (f"Who holds pending entry {odd['night']}?", f"Which consumer owns {odd['night']} right now?"),
            ("pending",)),
        Ask("retried", "named", "named_item", (odd["retried"],), note,
            (f"Which pending entry has a delivery count of {RETRIES}?",
             f"One billing entry shows {RETRIES} deliveries: its id?"), ("pending",)),
        Ask("idle", "extreme", "extreme", (odd["idle"],), note,
            ("Which pending billing entry has been idle the longest?", "What entry has sat unacknowledged longest?"),
            ("pending",)),
        # the spare sorts among billing's consumers, billing among the groups: the middle of the reply
        Ask("spare", "named", "named_item", (SPARE,), note,
            ("Which billing consumer has nothing pending?", "Name the consumer in billing that never read."),
            ("full",)),
    ]
    odd_region = next(e for e in p.entries if e.region == "is-reykjavik")
    asks.append(Ask("odd_region", "named", "named_item", (odd_region.order,), note,
                    ("Which order ships to Reykjavik?", "What order went to the is-reykjavik region?"), ("full",)))
    anywhere = set().union(*p.pending.values())
    quiet = [e for e in p.entries[COUNT // 4:COUNT * 3 // 4]
             if e.id not in anywhere and e.id not in p.deleted and e is not odd_region]
    for e in rnd.sample(quiet, 5):
        asks.append(Ask(f"amount_{e.order}", "named", "named_item", (e.amount,), note,
                        (f"What amount was recorded for {e.order}?", f"How much was {e.order}?"), ("full",)))
    for e in rnd.sample(quiet, 4):
        asks.append(Ask(f"id_{e.order}", "named", "named_item", (e.id,), note,
                        (f"Which stream id holds {e.order}?", f"What entry id was {e.order} added under?"), ("full",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    import redis

    rnd = random.Random(1901)
    p = plan(rnd)
    with redis_server(work) as (port, cli):
        drive(redis.Redis(port=port), p)
        outputs = {name: Output({"command": f"redis-cli --no-raw {cmd}"}, "text",
                                run([*cli, "--no-raw", *cmd.split()]).stdout)
                   for name, cmd in COMMANDS.items()}
    out = asked_cases(SOURCE, outputs, _asks(p, rnd))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
