"""A structural diff of two JSON documents as a JSON Patch (RFC 6902), as python-jsonpatch's
``jsondiff`` writes it: ``jsondiff --indent 2 -t old.json new.json`` (one object an operation,
each ``remove`` and ``replace`` preceded by a ``test`` of the old value; ~1,150 lines, ~20 kB)
and ``jsondiff old.json new.json`` (the operations alone on one line, ~8 kB), of two exports
of a shop's catalogue the capture writes: ~400 products keyed by SKU, the second export with
prices and stock changed for ~110 of them.

Most operations replace a price or a stock count; in the middle, one product is removed, one
added, one product's ``tags`` list gains an entry and one loses its ``discontinued`` flag. Facts
come from the capture's own record of the edits it made between the two exports, never from
jsondiff's text; a fact is kept only where it stands once (an old value stands only in the
``test`` form, so it is asked there). Held out (issue 33, twenty-third round): dev holds line,
word and byte diffs and jq paths of one document, but no structural patch between two.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "json_patch_diff"
KINDS = ("kettle", "lantern", "tent", "leash", "towel", "puzzle", "racket", "planter", "blender", "binder", "collar",
         "kite", "mirror", "helmet", "hose", "stapler")
COLOURS = ("slate", "coral", "olive", "amber", "teal", "plum", "sand", "ink")


def catalogue(rnd: random.Random) -> dict[str, Any]:
    skus = rnd.sample(range(10000, 99999), 400)
    products = {}
    for s in skus:
        products[f"SKU-{s}"] = {"name": f"{rnd.choice(COLOURS)} {rnd.choice(KINDS)}",
                                "price": round(rnd.uniform(3, 400), 2), "stock": rnd.randint(0, 900),
                                "tags": sorted(rnd.sample(("garden", "kitchen", "outdoor", "pet", "sale", "new"), 2))}
    return {"exported": "2026-11-30", "products": products}


def edit(rnd: random.Random, old: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The second export and the capture's record of what changed."""
    new = json.loads(json.dumps(old))
    new["exported"] = "2026-12-01"
    skus = list(old["products"])
    middle = skus[len(skus) // 3: 2 * len(skus) // 3]
    gone, tagged, flagged = rnd.sample(middle, 3)
    record: dict[str, Any] = {"price": {}, "stock": {}}
    for s in rnd.sample([x for x in skus if x not in (gone, tagged, flagged)], 110):
        if rnd.random() < 0.6:
            # a fresh draw; a price that happens to stand twice is never asked (stands_once)
            price = round(rnd.uniform(3, 400), 2)
            record["price"][s] = (old["products"][s]["price"], price)
            new["products"][s]["price"] = price
        else:
            stock = rnd.randint(1000, 9999)
            record["stock"][s] = (old["products"][s]["stock"], stock)
            new["products"][s]["stock"] = stock
    del new["products"][gone]
    added = f"SKU-{rnd.randint(100000, 999999)}"
    new["products"][added] = {"name": "graphite anvil", "price": 999.5, "stock": 4, "tags": ["new"]}
    new["products"][tagged]["tags"].append("clearance")
    old["products"][flagged]["discontinued"] = True
    record.update(gone=gone, added=added, tagged=tagged, flagged=flagged)
    return new, record


def _asks(r: dict[str, Any], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the edits it made between the two exports"
    asks = [Ask("removed", "named", "named_item", (r["gone"],), note,
                ("Which product was removed from the catalogue?", "What SKU no longer exists in the new export?"),
                only=("compact",)),
            Ask("added", "named", "named_item", (r["added"],), note,
                ("Which product is new in the catalogue?", "What SKU was added in the new export?")),
            Ask("clearance", "named", "named_item", (r["tagged"],), note,
                ("Which product gained the clearance tag?", "What SKU was tagged clearance?")),
            Ask("flag", "named", "named_item", (r["flagged"],), note,
                ("Which product lost its discontinued flag?", "What SKU is no longer marked discontinued?"),
                only=("compact",))]
    prices = sorted(r["price"])
    for s in rnd.sample(prices, 3):
        asks.append(Ask(f"new_price_{s}", "named", "named_item", (json.dumps(r["price"][s][1]),), note,
                        (f"What is the new price of {s}?", f"What price does {s} have after the change?")))
    for s in rnd.sample(prices, 3):
        asks.append(Ask(f"old_price_{s}", "named", "named_item", (json.dumps(r["price"][s][0]),), note,
                        (f"What was the price of {s} before the change?", f"What old price does the patch test for {s}?"),
                        only=("tested",)))
    for s in rnd.sample(sorted(r["stock"]), 3):
        asks.append(Ask(f"stock_{s}", "named", "named_item", (str(r["stock"][s][1]),), note,
                        (f"What is the new stock count of {s}?", f"How many units of {s} are in stock now?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2306)
    old = catalogue(rnd)
    new, record = edit(rnd, old)
    (work / "old.json").write_text(json.dumps(old, indent=2))
    (work / "new.json").write_text(json.dumps(new, indent=2))
    tool = str(Path(sys.executable).parent / "jsondiff")
    commands = {"tested": f"{tool} --indent 2 -t old.json new.json", "compact": f"{tool} old.json new.json"}
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    # jsondiff exits 1 when the documents differ, as diff does: the finding, not a failure
    out = shell_cases(SOURCE, commands, _asks(record, rnd), cwd=work, env=env, json_outputs=("tested", "compact"),
                      least=12, check=False)
    for c in out:  # the agent typed ``jsondiff``, not this machine's venv path
        c["tool_arguments"]["command"] = c["tool_arguments"]["command"].replace(tool, "jsondiff")
    return out
