"""``redis-cli`` replies of a loopback redis-server after a seeded mixed workload: ``INFO
everything`` (sections of ``field:value`` lines, per-command and per-error statistics,
the keyspace), ``CLIENT LIST`` with 24 named connections (one ``key=value`` line each)
and ``SLOWLOG GET`` as redis-cli renders nested replies (``--no-raw``: ``1) 1) (integer)
…``) and as its ``--json``.

Facts come from another reader than the text asked about: redis-py's RESP client
(``info()`` sections, ``slowlog_get()``) and each connection's own socket
(``getsockname()``, ``CLIENT ID``); a fact is kept only where its text occurs once in the
output. Held out (issue 33): no dev source holds a database's own status replies.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import free_port, run, wait_for

SOURCE = "redis_replies"
CLIENT_ROLES = ("api", "worker", "cron", "reporter", "session-cache", "rate-limiter", "indexer", "mailer")
SEED = 33


def _workload(r, rng: random.Random) -> None:
    """Keys of several types in several databases, some expiring; slow and failing commands."""
    import redis

    for db in range(6):
        c = redis.Redis(host=r.connection_pool.connection_kwargs["host"],
                        port=r.connection_pool.connection_kwargs["port"], db=db)
        pipe = c.pipeline(transaction=False)
        for k in range(rng.randint(40, 400)):
            kind = rng.random()
            key = f"{['user', 'order', 'sess', 'feed', 'cart'][k % 5]}:{db}:{k}"
            if kind < 0.4:
                pipe.set(key, rng.randbytes(rng.randint(8, 400)).hex(), ex=rng.choice((None, None, 600, 3600)))
            elif kind < 0.6:
                pipe.hset(key, mapping={f"f{j}": rng.randint(0, 10**6) for j in range(rng.randint(2, 30))})
            elif kind < 0.75:
                pipe.rpush(key, *[rng.randint(0, 999) for _ in range(rng.randint(1, 200))])
            elif kind < 0.9:
                pipe.sadd(key, *[rng.randint(0, 5000) for _ in range(rng.randint(1, 300))])
            else:
                pipe.zadd(key, {f"m{j}": rng.random() for j in range(rng.randint(1, 150))})
        pipe.execute()
        for _ in range(rng.randint(50, 300)):  # reads, some of a key of another type (WRONGTYPE)
            try:
                c.get(f"{['user', 'order'][rng.random() < 0.1]}:{db}:{rng.randint(0, 500)}")
            except redis.ResponseError:
                pass
        c.close()
    for ms in (3, 7, 12, 18, 26):
        r.execute_command("DEBUG", "SLEEP", f"{ms / 1000:.3f}")
    for k in range(60):
        r.sadd(f"tags:{k}", *range(k * 50, k * 50 + rng.randint(100, 4000)))
    r.sunionstore("all-members", [f"tags:{k}" for k in range(60)])
    r.sort("all-members", desc=True, store="sorted-members")
    for bad in (("INCR", "user:0:0"), ("LPUSH", "sess:0:2", "x"), ("NOSUCHCMD",), ("GET",), ("EVAL", "return x", "0")):
        try:
            r.execute_command(*bad)
        except redis.ResponseError:
            pass


def _info_facts(text: str, info: dict[str, Any]) -> list[tuple[str, str, tuple[str, ...], str, str]]:
    """(scenario, intent, wordings, fact text, note) from redis-py's parsed INFO sections."""
    out = []
    stats = {k[len("cmdstat_"):]: v for k, v in info["commandstats"].items()
             if k[len("cmdstat_"):] not in ("info", "client|list", "slowlog|get", "ping", "client|setname", "client|id", "client|getname")}
    slowest = max(stats, key=lambda k: stats[k]["usec"])
    most = max(stats, key=lambda k: stats[k]["calls"])
    for sid, name, wordings in (
            ("most_time", slowest, ("Which command has taken the most total time on this server?",
                                    "Where did the server spend most of its command time?")),
            ("most_calls", most, ("Which command has been called most often?",
                                  "What is the busiest command on this server by number of calls?"))):
        t = f"cmdstat_{name}:calls={stats[name]['calls']},usec={stats[name]['usec']}"
        if text.count(t) == 1:
            out.append((sid, "extreme", wordings, t, f"redis-py info('commandstats'): the largest {sid}"))
    errs = info["errorstats"]
    top = max(errs, key=lambda k: errs[k]["count"])
    if sum(e["count"] == errs[top]["count"] for e in errs.values()) == 1:
        t = f"{top}:count={errs[top]['count']}"
        if text.count(t) == 1:
            out.append(("top_error", "extreme", ("Which kind of error has the server returned most often?",
                                                 "What error reply is most common, and how many times was it sent?"),
                        t, "redis-py info('errorstats'): the largest count"))
    space = info["keyspace"]
    for db in spread(sorted(space), 2):
        t = f"{db}:keys={space[db]['keys']},expires={space[db]['expires']}"
        if text.count(t) == 1:
            n = db[2:]
            out.append((f"keyspace_{db}", "named", (f"How many keys does database {n} hold, and how many expire?",
                                                    f"What is the key count of logical database {n}?"),
                        t, f"redis-py info('keyspace') of {db}"))
    mem = info["memory"]
    t = f"used_memory_peak:{mem['used_memory_peak']}"
    if text.count(t + "\r") == 1 and text.count(t) == 1:
        out.append(("peak_memory", "named", ("What was the server's peak memory use in bytes?",
                                            "How high did the memory use of this instance get at most?"),
                    t, "redis-py info('memory') used_memory_peak"))
    return out


def build(work: Path) -> list[dict[str, Any]]:
    import redis

    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(work), "--enable-debug-command", "local",
                             "--slowlog-log-slower-than", "2000", "--slowlog-max-len", "64"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cli = ["redis-cli", "-p", str(port)]
    out: list[dict[str, Any]] = []
    clients = []
    try:
        wait_for(lambda: run([*cli, "PING"], check=False).stdout.strip() == "PONG")
        r = redis.Redis(host="127.0.0.1", port=port)
        rng = random.Random(SEED)
        _workload(r, rng)
        for k in range(24):
            c = redis.Redis(host="127.0.0.1", port=port, db=k % 6, single_connection_client=True)
            c.client_setname(f"{CLIENT_ROLES[k % len(CLIENT_ROLES)]}-{k // len(CLIENT_ROLES) + 1}")
            c.exists(f"user:{k % 6}:{k}") if k % 3 else c.ttl(f"order:{k % 6}:{k}")
            clients.append(c)
        info_text = run([*cli, "INFO", "everything"]).stdout
        info = {s: r.info(s) for s in ("commandstats", "errorstats", "keyspace", "memory")}
        list_text = run([*cli, "CLIENT", "LIST"]).stdout
        own = [(c.client_getname(), c.connection._sock.getsockname(), c.client_id()) for c in clients]
        slow_text = run([*cli, "--no-raw", "SLOWLOG", "GET", "64"]).stdout
        slow_json = run([*cli, "--json", "SLOWLOG", "GET", "64"]).stdout
        slow = r.slowlog_get(64)
    finally:
        for c in clients:
            c.close()
        run([*cli, "SHUTDOWN", "NOSAVE"], check=False)
        proc.wait(timeout=20)

    args = {"command": "redis-cli INFO everything"}
    for sid, intent, wordings, t, note in _info_facts(info_text, info):
        q = choose(f"{SOURCE}/info_{sid}", wordings)
        kind = "extreme" if intent == "extreme" else "named_item"
        out.append(make_case(SOURCE, f"info_{sid}", "text", "bash", args, intent, q, info_text,
                             [fact(t, kind, note, basis="independent")]))

    args = {"command": "redis-cli CLIENT LIST"}
    for k, (name, (host, cport), cid) in enumerate(spread(own, 5)):
        name = name.decode() if isinstance(name, bytes) else name
        t = f"id={cid} addr={host}:{cport} "
        if list_text.count(t) != 1:
            continue
        sid = f"clients_{name}"
        q = choose(f"{SOURCE}/{sid}", (f"Which client id and source port does the connection named {name} have?",
                                       f"Where is the client called {name} connecting from?"))
        out.append(make_case(SOURCE, sid, "text", "bash", args, "named", q, list_text,
                             [fact(t.strip(), "named_item", "the connection's own CLIENT ID and getsockname()",
                                   basis="independent")]))

    top = max(slow, key=lambda e: e["duration"])
    if sum(e["duration"] == top["duration"] for e in slow) == 1:
        for form, content, t in (("text", slow_text, f"(integer) {top['duration']}"),
                                 ("json", slow_json, f",{top['duration']},")):
            if content.count(t) != 1 or content.count(t.strip(",")) != 1:
                continue
            sid = f"slowlog_{form}_slowest"
            q = choose(f"{SOURCE}/{sid}", ("How long did the slowest logged command take, in microseconds?",
                                           "What is the longest execution time in the slow log?"))
            out.append(make_case(SOURCE, sid, form, "bash",
                                 {"command": f"redis-cli {'--json' if form == 'json' else '--no-raw'} SLOWLOG GET 64"},
                                 "extreme", q, content,
                                 [fact(t.strip(","), "extreme", "redis-py slowlog_get(): the largest duration",
                                       basis="independent")]))
    assert len(out) >= 8, f"too few redis reply cases: {len(out)}"
    return out
