"""Comparisons of two configuration trees as GNU diffutils prints them, in the forms that are
not unified diffs: ``diff -r`` (normal format: ``diff -r old/x new/x`` headers, ``12c12``
commands, ``<`` and ``>`` lines, ``Only in`` lines), ``diff -rq`` (one line per changed, added
or removed file) and ``diff -y`` (the two versions of one long file side by side, ``|``, ``<``
and ``>`` in the gutter), of a deployment's configuration the capture writes twice: ~40 files
of ``key = value`` settings in four folders, then a release that changes some of them.

The release is a record the capture keeps: settings changed in thirty files (each old and new
value of its own), one file removed and one added, and in the gateway's long file one setting
dropped, one added and one changed among ~300 unchanged lines. Facts come from that record,
never from diff's text: the answer is a value, a key or a file's name. A fact is kept only where
its text stands once in the output. Held out (issue 33, eleventh round): no dev source holds
normal-format, brief or side-by-side diffs (the dev diffs are git's unified ones).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "tree_diffs"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
FOLDERS = {"services": ("billing", "catalog", "checkout", "search", "accounts", "media", "mailer", "notify",
                        "reports", "pricing"),
           "db": ("primary", "replica", "analytics", "sessions", "queue", "archive", "cache", "ledger"),
           "edge": ("cdn", "ratelimit", "tls", "routes", "headers", "geo", "bots", "health"),
           "jobs": ("nightly-reindex", "invoice-run", "cleanup", "backup", "exports", "digest", "warmup",
                    "rotate-keys", "vacuum", "sitemaps")}
KEYS = ("listen_port", "upstream_host", "pool_size", "timeout", "retry_limit", "log_level", "cache_ttl", "max_body",
        "region", "owner", "queue_name", "batch_size", "keepalive", "drain_grace", "audit_sink", "feature_gate")
REMOVED, ADDED = "jobs/nightly-reindex.conf", "edge/waf-rules.conf"


def value(key: str, n: int) -> str:
    """A value of ``key`` that no other setting anywhere shares (``n`` is unique per setting)."""
    return {
        "listen_port": str(20000 + n), "upstream_host": f"node-{n}.svc.internal", "pool_size": f"{n}conns",
        "timeout": f"{n * 10 + 5}ms", "retry_limit": f"{n}tries", "log_level": f"level{n}",
        "cache_ttl": f"{n}s", "max_body": f"{n}KiB", "region": f"zone-{n}", "owner": f"team-{n}",
        "queue_name": f"q-{n}", "batch_size": f"{n}rows", "keepalive": f"{n}keep", "drain_grace": f"{n}grace",
        "audit_sink": f"sink-{n}", "feature_gate": f"gate-{n}",
    }[key]


def trees(rnd: random.Random) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]], list[tuple]]:
    """(old files, new files, changes): file -> {key: value}; each change (file, key, old, new)."""
    counter = iter(range(100, 100_000))
    old = {f"{folder}/{name}.conf": {k: value(k, next(counter)) for k in rnd.sample(KEYS, 12)}
           for folder, names in FOLDERS.items() for name in names}
    old["services/gateway.conf"] = {f"{k}_{m:02d}": value(k, next(counter)) for m in range(19) for k in KEYS}
    new = {path: dict(settings) for path, settings in old.items() if path != REMOVED}
    new[ADDED] = {k: value(k, next(counter)) for k in rnd.sample(KEYS, 10)}
    changes = []
    for path in rnd.sample(sorted(p for p in new if p != ADDED and "gateway" not in p), 30):
        for key in rnd.sample(sorted(new[path]), rnd.randint(1, 3)):
            new[path][key] = value(key, next(counter))
            changes.append((path, key, old[path][key], new[path][key]))
    gateway = new["services/gateway.conf"]
    keys = list(gateway)
    middle = len(keys) // 2
    changes.append(("services/gateway.conf", keys[middle - 9], gateway.pop(keys[middle - 9]), None))
    gateway[keys[middle + 8]] = value(keys[middle + 8].rsplit("_", 1)[0], next(counter))
    changes.append(("services/gateway.conf", keys[middle + 8], old["services/gateway.conf"][keys[middle + 8]],
                    gateway[keys[middle + 8]]))
    # The added setting goes in the middle, where the operator wrote it, not at the end.
    items = list(gateway.items())
    items.insert(middle, ("canary_weight", "7percent"))
    new["services/gateway.conf"] = dict(items)
    changes.append(("services/gateway.conf", "canary_weight", None, "7percent"))
    return old, new, changes


def write_tree(root: Path, files: dict[str, dict[str, str]]) -> None:
    for path, settings in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("".join(f"{k} = {v}\n" for k, v in settings.items()))


def _asks(changes: list[tuple]) -> list[Ask]:
    note = "the capture's record of the release it made"
    plain = [c for c in changes if c[0] != "services/gateway.conf"]
    gateway = {("dropped" if new is None else "added" if old is None else "changed"): (key, old, new)
               for path, key, old, new in changes if path == "services/gateway.conf"}
    asks = [
        Ask("removed", "named", "named_item", (REMOVED.split("/")[1],), note,
            ("Which file was dropped in the new release?", "What config file no longer exists?"),
            ("recursive", "brief")),
        Ask("added", "named", "named_item", (ADDED.split("/")[1],), note,
            ("Which config file is new in this release?",), ("recursive", "brief")),
        Ask("dropped_key", "named", "named_item", (gateway["dropped"][0],), note,
            ("Which gateway setting was removed?",), ("side_by_side",)),
        Ask("added_key", "named", "named_item", (gateway["added"][0],), note,
            ("What setting was added to the gateway config?",), ("side_by_side",)),
        Ask("changed_value", "change", "named_item", (gateway["changed"][2],), note,
            (f"What's the gateway's {gateway['changed'][0].replace('_', ' ')} now?",), ("side_by_side",)),
        Ask("changed_before", "change", "named_item", (gateway["changed"][1],), note,
            (f"What was the gateway's {gateway['changed'][0].replace('_', ' ')} before the release?",),
            ("side_by_side",)),
    ]
    # Ten of the changes, spread over the listing (diff -r walks the files in sorted order).
    plain.sort()
    for n, (path, key, old, new) in enumerate(plain[len(plain) // 6::len(plain) // 10][:10]):
        where = path.replace(".conf", "").replace("/", " ")
        said = key.replace("_", " ")
        if n % 3 == 2:
            asks.append(Ask(f"before_{n}", "change", "named_item", (old,), note,
                            (f"What was {said} in {where} before?",), ("recursive",)))
        else:
            asks.append(Ask(f"now_{n}", "change", "named_item", (new,), note,
                            (f"What is {said} set to now in {where}?", f"What's the new {said} for {where}?"),
                            ("recursive",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    old, new, changes = trees(random.Random(1116))
    write_tree(work / "old", old)
    write_tree(work / "new", new)
    commands = {"recursive": "diff -r old new", "brief": "diff -rq old new",
                "side_by_side": "diff -y -W 110 old/services/gateway.conf new/services/gateway.conf"}
    return shell_cases(SOURCE, commands, _asks(changes), cwd=work, env=ENV, check=False)
