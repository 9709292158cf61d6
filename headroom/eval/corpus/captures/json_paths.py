"""JSON documents taken apart by jq 1.6: ``jq -c --stream .`` (one ``[[path...], leaf]`` event a
line, and the closing events), a ``paths(scalars)`` listing of ``dotted.path = value`` lines,
and the same as one JSON array of ``{"path", "value"}`` objects, of a service inventory the
capture builds: ~70 services with ports, replicas, limits, owners, images, webhooks and
feature flags (~1,500 leaves).

A few services differ in one way each, all in the middle of the list: one is scaled to zero,
one has no owner (``null``), one serves without TLS, one holds far more memory than any other,
one was deployed last, one webhook waits far longer than the rest, one flag sits deeper than
any other leaf. Facts come from the capture's own record of the document (the Python objects
it serialised), never from jq's text: the answer is a service's name, a value, or a key. A
fact is kept only where its text stands once in the output. Held out (issue 33, eleventh
round): no dev source holds JSON path or stream listings.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "json_paths"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
TEAMS = ("payments", "catalog", "growth", "platform", "search", "logistics", "identity", "data")
PARTS = ("ledger", "quote", "basket", "coupon", "parcel", "refund", "invoice", "shelf", "carrier", "rating",
         "session", "profile", "notify", "export", "import", "report", "pricing", "tax", "stock", "media")
ROLES = ("api", "worker", "sync", "gateway")
COMMANDS = {
    "stream": "jq -c --stream . inventory.json",
    "leaves": "jq -r 'paths(scalars) as $p | \"\\($p | map(tostring) | join(\".\")) = \\(getpath($p))\"' "
              "inventory.json",
    "pairs": "jq '[paths(scalars) as $p | {path: ($p | map(tostring) | join(\".\")), value: getpath($p)}]' "
             "inventory.json",
}
# The odd services, placed among the middle third (index -> what differs).
ODD_AT = {24: "idle", 27: "unowned", 31: "plain", 35: "biggest", 38: "latest", 41: "slow_hook", 44: "deep_flag"}


def service(n: int, name: str, rnd: random.Random) -> dict[str, Any]:
    return {
        "name": name,
        "team": rnd.choice(TEAMS),
        "owner": f"{name.split('-')[0]}-oncall@shop.example",
        # The image is named by its build, not the service, so a service's name stands once.
        "image": f"registry.shop.example/builds/b{rnd.randint(1000, 9999)}:{rnd.randint(1, 9)}.{rnd.randint(0, 30)}",
        "port": 8000 + n * 7 + rnd.randint(0, 6),
        "replicas": rnd.randint(2, 12),
        "tls": True,
        "limits": {"cpu_millis": rnd.choice((250, 500, 1000, 2000)), "memory_mib": rnd.choice((256, 512, 768, 1024))},
        "deployed_at": f"2026-11-{rnd.randint(2, 27):02d}T{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:00Z",
        "webhooks": [{"event": e, "timeout_ms": rnd.choice((1500, 3000, 5000))}
                     for e in rnd.sample(("created", "updated", "deleted", "failed"), rnd.randint(1, 3))],
        "flags": {"canary": rnd.random() < 0.3, "read_only": False},
    }


def inventory(rnd: random.Random) -> dict[str, Any]:
    names = sorted({f"{p}-{r}" for p in PARTS for r in ROLES})
    names = rnd.sample(names, 70)
    services = [service(n, name, rnd) for n, name in enumerate(names)]
    for at, odd in ODD_AT.items():
        s = services[at]
        if odd == "idle":
            s["replicas"] = 0
        elif odd == "unowned":
            s["owner"] = None
        elif odd == "plain":
            s["tls"] = False
        elif odd == "biggest":
            s["limits"]["memory_mib"] = 24576
        elif odd == "latest":
            s["deployed_at"] = "2026-11-29T23:41:00Z"
        elif odd == "slow_hook":
            s["webhooks"][0]["timeout_ms"] = 45000
        elif odd == "deep_flag":
            s["flags"]["rollout"] = {"regions": {"eu_north": {"drain_before_cutover": True, "max_surge": 2}}}
    return {"generated": "2026-11-30T06:00:00Z", "cluster": "shop-prod-2", "services": services}


def _asks(doc: dict[str, Any]) -> list[Ask]:
    services = doc["services"]
    odd = {kind: services[at] for at, kind in ODD_AT.items()}
    note = "the capture's record of the document it serialised"
    named = [services[n] for n in (22, 30, 33, 40, 47)]
    asks = [
        Ask("idle", "extreme", "extreme", (odd["idle"]["name"],), note,
            ("Which service is scaled down to zero replicas?", "Is any service not running at all?"),
            ("stream", "pairs")),
        Ask("unowned", "named", "named_item", (odd["unowned"]["name"],), note,
            ("Which service has no owner set?",), ("leaves",)),
        Ask("plain", "named", "named_item", (odd["plain"]["name"],), note,
            ("Which service has TLS turned off?",), ("pairs",)),
        Ask("deep", "extreme", "extreme", ("drain_before_cutover",), note,
            ("What's the most deeply nested setting in the inventory?",), ("stream", "leaves")),
        Ask("slow_hook", "extreme", "extreme", ("45000",), note,
            ("What's the longest webhook timeout?",), ("leaves",)),
        Ask("memory", "extreme", "extreme", ("24576",), note,
            ("What's the biggest memory limit of any service?",), ("stream",)),
    ]
    for n, s in enumerate(named):
        asks.append(Ask(f"port_{n}", "named", "named_item", (str(s["port"]),), note,
                        (f"Which port does {s['name']} listen on?", f"What port is {s['name']} on?"),
                        (tuple(COMMANDS)[n % 3],)))
        if n < 3:
            asks.append(Ask(f"image_{n}", "named", "named_item", (s["image"],), note,
                            (f"Which image does {s['name']} run?",), (("pairs", "leaves")[n % 2],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    doc = inventory(random.Random(1114))
    (work / "inventory.json").write_text(json.dumps(doc, indent=2) + "\n")
    return shell_cases(SOURCE, COMMANDS, _asks(doc), cwd=work, env=ENV, json_outputs=("pairs",))
