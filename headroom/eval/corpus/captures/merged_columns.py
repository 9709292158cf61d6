"""Files merged column by column with GNU coreutils: ``paste -d '|'`` (line n of each file
joined by a bar) and ``pr -m -t -w 150`` (the files side by side in fixed-width columns, no
headers) of three lists the capture writes for a warehouse: bin codes, the SKU stored in each
bin and its last count (~380 lines each).

Facts come from the capture's record of the lists it wrote (what sits in the bins it asks
about), never from the merged text; a fact is kept only where it stands once. Held out (issue
33, fifteenth round): dev holds joins on a key (join), side-by-side diffs (diff -y) and
aligned tables, but no positional merge of separate files, where a row's parts are related
only by their line number.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "merged_columns"
AISLES = "ABCDEFGHJK"
GOODS = ("bolt", "hinge", "bracket", "washer", "gasket", "spring", "clamp", "rivet", "anchor", "dowel")
COMMANDS = {
    "paste": "paste -d '|' bins.txt skus.txt counts.txt",
    "pr": "pr -m -t -w 150 bins.txt skus.txt counts.txt",
}


def lists(rnd: random.Random) -> tuple[list[str], list[str], list[str]]:
    bins = sorted(rnd.sample([f"{a}{r:02d}-{s}" for a in AISLES for r in range(1, 40) for s in "LMU"], 380))
    skus = [f"SKU-{rnd.choice(GOODS)}-{n}" for n in rnd.sample(range(10000, 99999), len(bins))]
    counts = [f"counted {rnd.randrange(1, 900)} on {rnd.choice(('mon', 'tue', 'wed', 'thu', 'fri'))}" for _ in bins]
    return bins, skus, counts


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1503)
    bins, skus, counts = lists(rnd)
    for name, rows in (("bins", bins), ("skus", skus), ("counts", counts)):
        (work / f"{name}.txt").write_text("".join(f"{r}\n" for r in rows))
    note = "the capture's record of the lists it wrote (the same line of each)"
    asks = []
    for i in sorted(rnd.sample(range(60, 320), 4)):
        asks.append(Ask(f"sku_{bins[i]}", "named", "named_item", (skus[i],), note,
                        (f"Which SKU is stored in bin {bins[i]}?", f"What's in bin {bins[i]}?")))
    for i in sorted(rnd.sample(range(60, 320), 4)):
        asks.append(Ask(f"bin_{skus[i]}", "named", "named_item", (bins[i],), note,
                        (f"Which bin holds {skus[i]}?", f"Where is {skus[i]} shelved?")))
    return shell_cases(SOURCE, COMMANDS, asks, cwd=work, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
