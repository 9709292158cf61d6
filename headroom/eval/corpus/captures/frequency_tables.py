"""Frequency tables as a shell pipeline prints them: ``sort | uniq -c`` (a right-aligned
count, then the value), optionally ranked with ``sort -rn``, over fields of an access log the
capture writes (combined log format, ~6,000 requests): clients by address (~260 rows), paths
(~150 rows), status codes, user agents.

The log is drawn from a seeded plan the capture keeps: a few busy clients and paths, a long
tail, and a few rows that differ in one way each: a client and a path seen exactly once, a
status code returned once, a user agent seen once, named clients and paths whose request
counts no other row shares. Facts come from that plan (``collections.Counter`` over the
requests the capture wrote), never from the pipeline's text: the answer is a count, an
address, a path, a code or an agent. A fact is kept only where its text stands once in the
output. Held out (issue 33, eleventh round): no dev source holds ``uniq -c`` frequency tables.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "frequency_tables"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
AREAS = ("catalog", "cart", "orders", "account", "search", "media", "admin", "reports", "webhooks", "partners")
LEAVES = ("list", "show", "edit", "export", "summary", "history", "preview", "bulk", "status", "lookup", "sync",
          "archive", "restore", "compare", "refresh")
AGENTS = ("Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "Mozilla/5.0 (Macintosh) Safari/605.1.15",
          "Mozilla/5.0 (Windows NT 10.0) Chrome/126.0", "curl/7.88.1", "python-httpx/0.27.0",
          "Go-http-client/1.1", "okhttp/4.12.0", "kube-probe/1.29", "Prometheus/2.51.0", "Wget/1.21.3",
          "shop-ios/5.2.0 CFNetwork/1494", "shop-android/5.2.1 Dalvik/2.1.0")
LONE_AGENT = "legacy-sync/0.9.3 (batch exporter)"
STATUSES = (200,) * 40 + (304,) * 6 + (302,) * 3 + (404,) * 4 + (401, 403, 500, 502)
LONE_STATUS = 507
LONE_CLIENT, LONE_PATH = "10.24.131.77", "/partners/reconcile-ledger"
COMMANDS = {
    "clients": "awk '{print $1}' access.log | sort | uniq -c",
    "paths": "awk '{print $7}' access.log | sort | uniq -c",
    "ranked_paths": "awk '{print $7}' access.log | sort | uniq -c | sort -rn",
    "statuses": "awk '{print $9}' access.log | sort | uniq -c | sort -rn",
    "agents": "awk -F'\"' '{print $6}' access.log | sort | uniq -c | sort -rn",
}


def plan(rnd: random.Random) -> list[tuple[str, str, int, str]]:
    """The requests, in the order written: (client, path, status, agent)."""
    clients = [f"10.{rnd.randint(20, 29)}.{rnd.randint(0, 255)}.{rnd.randint(1, 254)}" for _ in range(260)]
    clients = sorted(set(clients))
    paths = sorted({f"/{a}/{leaf}" for a in AREAS for leaf in rnd.sample(LEAVES, 15)})
    weights = [1 / (1 + n) ** 0.7 for n in range(len(clients))]
    rnd.shuffle(weights)
    path_weights = [1 / (1 + n) ** 0.8 for n in range(len(paths))]
    rnd.shuffle(path_weights)
    # Every client and path twice at least, so that only the planted ones are seen once.
    picked = [(c, p) for c, p in zip(clients * 2, (paths * 4)[:len(clients) * 2], strict=True)]
    picked += [(rnd.choices(clients, weights)[0], rnd.choices(paths, path_weights)[0]) for _ in range(5500)]
    rnd.shuffle(picked)
    rows = [(c, p, rnd.choice(STATUSES), rnd.choice(AGENTS)) for c, p in picked]
    # The rows that differ: one request from a client and to a path nobody else used, one
    # status code and one agent seen once, placed among the others.
    assert LONE_CLIENT not in clients
    seen_once = (LONE_CLIENT, LONE_PATH, LONE_STATUS, LONE_AGENT)
    rows.insert(3100, seen_once)
    return rows


def log_line(n: int, client: str, path: str, status: int, agent: str) -> str:
    minute, second = divmod(n // 3, 60)
    hour, minute = divmod(minute, 60)
    return (f'{client} - - [30/Nov/2026:{8 + hour:02d}:{minute:02d}:{second:02d} +0000] "GET {path} HTTP/1.1" '
            f'{status} {200 + n % 4000} "-" "{agent}"')


def unshared(counts: Counter, pick: list[str]) -> list[str]:
    """Of ``pick`` (in order), those whose count no other value shares."""
    tally = Counter(counts.values())
    return [v for v in pick if tally[counts[v]] == 1]


def middle_ones(counts: Counter, many: int, skip: tuple[str, ...]) -> list[str]:
    """``many`` values of unshared count, nearest the middle of the sorted values first (away
    from either end of the output), ``skip`` (values asked about otherwise) left out."""
    ordered = sorted(counts)
    near_middle = sorted(ordered, key=lambda v: abs(ordered.index(v) - len(ordered) // 2))
    return [v for v in unshared(counts, near_middle) if v not in skip][:many]


def _asks(rows: list[tuple[str, str, int, str]]) -> list[Ask]:
    clients = Counter(r[0] for r in rows)
    paths = Counter(r[1] for r in rows)
    statuses = Counter(str(r[2]) for r in rows)
    agents = Counter(r[3] for r in rows)
    note = "Counter over the requests the capture wrote"
    top_client = clients.most_common(2)
    top_path = paths.most_common(2)
    assert top_client[0][1] > top_client[1][1] and top_path[0][1] > top_path[1][1]
    asks = [
        Ask("busiest", "extreme", "extreme", (top_client[0][0],), note,
            ("Which client sent the most requests?", "What's the noisiest client address?"), ("clients",)),
        Ask("once", "extreme", "extreme", (LONE_CLIENT,), note,
            ("Which client made just a single request?",), ("clients",)),
        Ask("hottest", "extreme", "extreme", (top_path[0][0],), note,
            ("Which endpoint is requested most often?",), ("paths",)),
        Ask("once", "extreme", "extreme", (LONE_PATH,), note,
            ("Which endpoint was hit only once?", "Is there a path that shows up just once in the log?"),
            ("paths", "ranked_paths")),
        Ask("rare_status", "extreme", "extreme", (str(LONE_STATUS),), note,
            ("Which status code is the rarest?",), ("statuses",)),
        Ask("errors", "named", "named_item", (str(statuses["500"]),), note,
            ("How many requests ended in an internal server error?",), ("statuses",)),
        Ask("rare_agent", "extreme", "extreme", (LONE_AGENT,), note,
            ("Which user agent appears only once?",), ("agents",)),
        Ask("curl", "named", "named_item", (str(agents["curl/7.88.1"]),), note,
            ("How many requests came from curl?",), ("agents",)),
    ]
    # Counts stand inside addresses ("41" in 10.41.3.7), so clients are asked the other way round.
    for n, client in enumerate(middle_ones(clients, 3, (top_client[0][0], LONE_CLIENT))):
        asks.append(Ask(f"client_{n}", "named", "named_item", (client,), note,
                        (f"Which client sent exactly {clients[client]} requests?",
                         f"Who is the client with {clients[client]} requests?"), ("clients",)))
    for n, path in enumerate(middle_ones(paths, 4, (top_path[0][0], LONE_PATH))):
        asks.append(Ask(f"path_{n}", "named", "named_item", (str(paths[path]),), note,
                        (f"How many times was {path} requested?", f"How many hits did {path} get?"),
                        (("paths", "ranked_paths")[n % 2],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rows = plan(random.Random(1113))
    (work / "access.log").write_text("".join(log_line(n, *r) + "\n" for n, r in enumerate(rows)))
    return shell_cases(SOURCE, COMMANDS, _asks(rows), cwd=work, env=ENV)
