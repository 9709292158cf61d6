"""JSON tool outputs: metrics, application logs, database rows, REST API listings.

Each generator plants a few answer-bearing items (a spike, an error, the row a question
names) among many repetitive ones, the shape where SmartCrusher must keep the needle.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone

from .base import Probe, Scenario, ToolCall, Turn

_T0 = datetime(2026, 3, 4, 8, 0, tzinfo=timezone.utc)
_SYSTEM = "You are an SRE assistant. Answer from the tool results; quote exact values."


def _ts(minutes: int) -> str:
    return (_T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _spoken(minutes: int) -> str:
    """The same instant as :func:`_ts`, the way a person says it."""
    t = _T0 + timedelta(minutes=minutes)
    return f"{t:%H:%M} UTC on {t.day} {t:%B}"


def _pick_middle(rng: random.Random, n: int) -> int:
    """An index away from the first/last items, which compressors keep anyway."""
    return rng.randrange(min(5, n - 1), max(min(5, n - 1) + 1, n - 5))


def metrics(size: int, seed: int) -> Scenario:
    rng = random.Random(f"metrics:{seed}:{size}")
    host = f"web-{rng.randint(1, 40):02d}"
    spike = _pick_middle(rng, size)
    look = _pick_middle(rng, size)
    while look == spike:
        look = _pick_middle(rng, size)
    rows = []
    for i in range(size):
        p99 = round(rng.gauss(120, 6), 2)
        rows.append({"ts": _ts(i), "host": host, "cpu_pct": round(rng.uniform(30, 45), 1),
                     "mem_pct": round(rng.uniform(60, 64), 1), "p99_latency_ms": p99, "rps": rng.randint(780, 840)})
    spike_value = round(4000 + rng.uniform(100, 900), 2)
    rows[spike].update(p99_latency_ms=spike_value, cpu_pct=97.6)
    look_value = rows[look]["p99_latency_ms"]
    out = json.dumps(rows, indent=1)
    probes = [
        Probe(f"Which timestamp had the highest p99 latency on {host}, and what was it?",
              f"{rows[spike]['ts']} {spike_value}", (rows[spike]["ts"], str(spike_value)), kind="spike"),
        # Asked as a person would ("at 08:37 UTC on 4 March"), answered by the ISO row.
        Probe(f"What was the p99 latency on {host} at `{_spoken(look)}`?",
              str(look_value), (rows[look]["ts"], str(look_value)), key=_spoken(look)),
    ]
    call = ToolCall("get_metrics", {"host": host, "metric": "all", "window": f"{size}m"}, out)
    return Scenario("metrics", size, seed, _SYSTEM, [Turn("Check the host metrics.", (call,))], probes)


_SERVICES = ("checkout", "cart", "auth", "search")
_ROUTES = ("GET /api/cart", "POST /api/cart/items", "GET /api/products", "GET /api/session", "POST /api/login")


def json_logs(size: int, seed: int) -> Scenario:
    rng = random.Random(f"json_logs:{seed}:{size}")
    err = _pick_middle(rng, size)
    look = _pick_middle(rng, size)
    while look == err:
        look = _pick_middle(rng, size)
    rows = []
    for i in range(size):
        rows.append({"ts": _ts(i // 20),
                     "level": "INFO", "service": rng.choice(_SERVICES),
                     "request_id": f"req-{rng.getrandbits(40):010x}", "msg": f"{rng.choice(_ROUTES)} 200",
                     "latency_ms": round(rng.uniform(8, 60), 2)})
    rows[err].update(level="ERROR", service="checkout", msg="payment gateway timeout after 30000 ms (upstream=stripe-eu)",
                     latency_ms=30000.0)
    out = json.dumps(rows)
    r_err, r_look = rows[err], rows[look]
    probes = [
        Probe("Which request failed, and why?", f"{r_err['request_id']} payment gateway timeout",
              (r_err["request_id"], "payment gateway timeout"), kind="error"),
        # People quote the tail of an id; the row is found by its full request_id.
        Probe(f"What was the latency of the request whose id ends in `{r_look['request_id'][-6:]}`?",
              str(r_look["latency_ms"]), (r_look["request_id"], str(r_look["latency_ms"])),
              key=r_look["request_id"][-6:]),
    ]
    call = ToolCall("search_logs", {"index": "app-logs", "since": "1h", "limit": size}, out)
    return Scenario("json_logs", size, seed, _SYSTEM, [Turn("Look at the application logs.", (call,))], probes)


_STATUSES = ("shipped", "delivered", "processing")


def db_rows(size: int, seed: int) -> Scenario:
    rng = random.Random(f"db_rows:{seed}:{size}")
    odd = _pick_middle(rng, size)
    look = _pick_middle(rng, size)
    while look == odd:
        look = _pick_middle(rng, size)
    rows = []
    for i in range(size):
        rows.append({"order_id": f"ORD-{100000 + i * 7 + rng.randint(0, 6)}", "customer_id": f"cust_{rng.randint(1000, 9999)}",
                     "status": rng.choice(_STATUSES), "currency": "EUR", "total": round(rng.uniform(10, 300), 2),
                     "created_at": _ts(i * 3)})
    rows[odd].update(status="refund_failed", total=round(rng.uniform(5000, 9000), 2))
    out = json.dumps(rows)
    r_odd, r_look = rows[odd], rows[look]
    probes = [
        Probe("Which order has a failed refund, and what is its total?", f"{r_odd['order_id']} {r_odd['total']}",
              (r_odd["order_id"], str(r_odd["total"])), kind="anomaly"),
        Probe(f"What is the total of order number `{r_look['order_id'].removeprefix('ORD-')}`?",
              str(r_look["total"]), (r_look["order_id"], str(r_look["total"])),
              key=r_look["order_id"].removeprefix("ORD-")),
    ]
    call = ToolCall("sql_query", {"sql": f"SELECT * FROM orders ORDER BY created_at LIMIT {size}"}, out)
    return Scenario("db_rows", size, seed, "You are a data analyst. Answer from the query results.",
                    [Turn("Pull recent orders.", (call,))], probes)


_WORDS = ("ledger", "sync", "billing", "gateway", "ingest", "notify", "search", "export", "audit", "cache")


def api_listing(size: int, seed: int) -> Scenario:
    rng = random.Random(f"api_listing:{seed}:{size}")
    look = _pick_middle(rng, size)
    arch = _pick_middle(rng, size)
    while arch == look:
        arch = _pick_middle(rng, size)
    items = []
    for i in range(size):
        name = f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-{i}"
        owner = f"team-{rng.choice(_WORDS)}"
        items.append({"id": 500000 + i, "full_name": f"acme/{name}", "owner": {"login": owner, "type": "Organization"},
                      "private": True, "archived": False, "default_branch": "main",
                      "topics": sorted(rng.sample(_WORDS, 2)), "open_issues": rng.randint(0, 30),
                      "updated_at": _ts(i * 11), "url": f"https://api.example.com/repos/acme/{name}"})
    items[look]["owner"]["login"] = f"maintainer-{rng.getrandbits(24):06x}"
    items[arch]["archived"] = True
    out = json.dumps({"total_count": size, "incomplete_results": False, "items": items}, indent=2)
    i_look, i_arch = items[look], items[arch]
    probes = [
        Probe(f"Who owns repository `{i_look['full_name']}`?", i_look["owner"]["login"],
              (i_look["owner"]["login"],), key=i_look["full_name"]),
        Probe("Which repository is archived?", i_arch["full_name"], (i_arch["full_name"],), kind="anomaly"),
    ]
    call = ToolCall("list_repositories", {"org": "acme", "per_page": size}, out)
    return Scenario("api_listing", size, seed, "You are a platform engineer. Answer from the API responses.",
                    [Turn("List the org's repositories.", (call,))], probes)
