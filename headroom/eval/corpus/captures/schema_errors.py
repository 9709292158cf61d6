"""JSON Schema validation reports as the ``jsonschema`` command prints them: ``--output pretty``
(a ``===[ValidationError]===(file)===`` block per error: the message, the failing keyword
with the schema fragment, the instance path and the offending value) and the plain form (one
``value: message`` line per error), of 24 store export files the capture writes (~20 orders
each) checked against one order schema.

Most files are clean or hold a routine slip (a quantity of 0, ~50 of them); the odd orders,
in files in the middle of the run, each break the schema in a way of their own: a malformed
SKU or order id, a negative price, an unknown currency, an unknown warehouse, a quantity or a
gift-wrap flag written as a word, repeated tags, a missing SKU or id, a property the schema
does not allow, a gift note without gift wrap. Facts come from the capture's record of what
it broke where (the file, the order's place and id), never from the report; a fact is kept
only where it stands once (the plain form prints a field's value twice, so it is asked only
for whole-order errors).
Held out (issue 33, seventeenth round): dev holds lint and type-check reports of code, but
no data-validation report.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "schema_errors"
STORES = 24
ORDERS = 20
CURRENCIES = ("EUR", "USD", "GBP", "SEK", "CHF")
WAREHOUSES = ("lyon-1", "lyon-2", "porto-1", "gdansk-1", "gdansk-2")
TAGS = ("gift", "rush", "fragile", "bulk", "repeat", "promo", "b2b")
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "array",
    "items": {
        "type": "object",
        "required": ["id", "sku", "qty", "price", "currency", "warehouse"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "pattern": "^ord-[0-9]{5}$"},
            "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
            "qty": {"type": "integer", "minimum": 1},
            "price": {"type": "number", "minimum": 0},
            "currency": {"enum": list(CURRENCIES)},
            "warehouse": {"enum": list(WAREHOUSES)},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "gift_note": {"type": "string"},
            "gift_wrap": {"type": "boolean"},
        },
        "dependentRequired": {"gift_note": ["gift_wrap"]},
    },
}
FILES = " ".join(f"-i stores/store-{n:02d}.json" for n in range(1, STORES + 1))
COMMANDS = {"pretty": f"jsonschema --output pretty {FILES} order.schema.json 2>&1",
            "plain": f"jsonschema {FILES} order.schema.json 2>&1"}
# How each odd order is broken: (field, bad value); None for the whole-order errors.
BREAKS = {"id": ("id", "ORD-7a"), "wrap": ("gift_wrap", "yes"), "sku": ("sku", "skU-88x1"), "price": ("price", -12.75), "currency": ("currency", "DOGE"),
          "warehouse": ("warehouse", "reno-9"), "qty": ("qty", "three"), "tags": ("tags", ["rush", "gift", "rush"]),
          "missing": None, "extra": None, "gift": None, "no_id": None}


@dataclass
class Broken:
    """The capture's record: break -> (file name, index in the file, order id; its SKU if it has none)."""

    where: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    slips: int = 0  # routine zero quantities


def order(rnd: random.Random, oid: str) -> dict[str, Any]:
    return {"id": oid, "sku": f"{rnd.choice('ABCDEFGHJKLMNPRSTUVWXZ') * 2}{rnd.choice('QWXYZ')}-{rnd.randrange(10000):04d}",
            "qty": rnd.randint(1, 9), "price": round(rnd.uniform(2, 400), 2), "currency": rnd.choice(CURRENCIES),
            "warehouse": rnd.choice(WAREHOUSES), "tags": rnd.sample(TAGS, rnd.randint(0, 2))}


def break_order(o: dict[str, Any], how: str) -> None:
    if BREAKS[how] is not None:
        key, value = BREAKS[how]
        o[key] = value
    elif how == "missing":
        del o["sku"]
    elif how == "no_id":
        del o["id"]
    elif how == "extra":
        o["coupon_code"] = "WINTER-FIFTY"
    else:  # a gift note, no gift wrap flag
        o["gift_note"] = "Happy birthday, Noor!"
        o.pop("gift_wrap", None)


def write_stores(work: Path, rnd: random.Random) -> Broken:
    (work / "stores").mkdir()
    (work / "order.schema.json").write_text(json.dumps(SCHEMA, indent=2))
    record, ids = Broken(), iter(rnd.sample(range(10000, 100000), STORES * ORDERS))
    middle = [(s, i) for s in range(STORES // 4, STORES * 3 // 4) for i in range(2, ORDERS - 2)]
    odd = dict(zip(BREAKS, rnd.sample(middle, len(BREAKS)), strict=True))
    for s in range(STORES):
        orders = [order(rnd, f"ord-{next(ids)}") for _ in range(ORDERS)]
        for i, o in enumerate(orders):
            how = next((h for h, spot in odd.items() if spot == (s, i)), None)
            if how:
                break_order(o, how)
                record.where[how] = (f"store-{s + 1:02d}.json", i, o["id"] if "id" in o else o["sku"])
            elif rnd.random() < 0.1 and i != odd["qty"][1]:  # the odd quantity's path stays its own
                o["qty"], record.slips = 0, record.slips + 1
        (work / "stores" / f"store-{s + 1:02d}.json").write_text(json.dumps(orders, indent=1))
    return record


def spot(index: int, key: str) -> str:
    """The instance path the pretty report names, built from the record (not read from it)."""
    return f"instance[{index}][{key!r}]"


def _asks(record: Broken) -> list[Ask]:
    note = "the capture's record of the orders it broke"
    w = record.where
    field_asks = {
        "sku": ("Which order has a malformed SKU? Where in the file?", "Where's the SKU that doesn't fit the pattern?"),
        "price": ("Which order has a negative price?", "Where is the price below zero?"),
        "currency": ("Which order uses a currency we don't support?", "Where's the bad currency code?"),
        "warehouse": ("Which order names a warehouse that doesn't exist?", "Where's the unknown warehouse?"),
        "qty": ("Which order has a quantity that isn't a number?", "Where is qty not an integer?"),
        "tags": ("Which order has duplicate tags?", "Where are the tags repeated?"),
        "id": ("Which order's id is malformed? Where?", "Where's the order id that doesn't match the pattern?"),
        "wrap": ("Where is gift_wrap set to something that isn't a boolean?", "Which order has a bad gift_wrap value?"),
    }
    asks = [Ask(f"where_{how}", "named", "named_item", (spot(w[how][1], BREAKS[how][0]),), note, words, ("pretty",))
            for how, words in field_asks.items()]
    whole = {"missing": ("Which order is missing its SKU? Give the order id.", "Which order has no sku at all?"),
             "extra": ("Which order carries a field the schema doesn't allow? Order id?",
                       "Which order has an unexpected extra property?"),
             "gift": ("Which order has a gift note but no gift_wrap flag?",
                      "Which order id breaks the gift note rule?"),
             "no_id": ("One order has no id at all. What's its SKU?", "Which SKU is on the order missing its id?")}
    asks += [Ask(f"id_{how}", "named", "named_item", (w[how][2],), note, words) for how, words in whole.items()]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1701)
    record = write_stores(work, rnd)
    # The venv's CLI; its deprecation notice (which names the venv's path) silenced.
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONWARNINGS": "ignore"}
    return shell_cases(SOURCE, COMMANDS, _asks(record), cwd=work, env=env, check=False)
