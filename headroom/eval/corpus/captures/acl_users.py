"""Redis access control as ``redis-cli`` shows it: ``ACL LIST`` (one ``user <name> on|off
#<sha256> ~keys &channels +/-commands`` rule line an account, ~260 accounts) and ``ACL LOG``
(the denied attempts, newest first: reason, context, object, username, age, the client's
info line; ~100 entries) as redis-cli renders nested replies (``--no-raw``), of a throwaway
loopback redis-server the capture gives service and staff accounts, then drives as those
accounts.

Most accounts share a few rule shapes and most denials are a service reaching a key outside
its prefix; the odd ones, in the middle, differ once each: an account without a password, a
disabled one, one that may run every command, one allowed FLUSHDB, one with a read-only key
selector, one allowed to publish on an alerts channel; a denial inside MULTI, one inside a Lua
script, a refused channel, a login as an account that does not exist. Facts come from the
capture's record of the accounts it made and what it made them try (passwords hashed by
``hashlib`` the way redis stores them), never from redis-cli's text; a fact is kept only where
it stands once. Held out (issue 33, seventeenth round): dev holds redis' INFO, CLIENT LIST and
SLOWLOG, but no access-control listing or denial log.
"""

from __future__ import annotations

import hashlib
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import free_port, run, wait_for

SOURCE = "acl_users"
ADMIN_PASSWORD = "hunter2-admin"
SERVICES = ("orders", "billing", "catalog", "search", "stock", "media", "mailer", "reports", "auth", "gateway",
            "ledger", "pricing", "returns")
FIRST = ("aya", "ben", "chloe", "dev", "elif", "femi", "gus", "hana", "ivo", "jun", "kira", "lars", "mei", "nia")
LAST = ("ortiz", "park", "quinn", "rossi", "sato", "tan", "ueda", "vance", "wolff", "yilmaz", "zhou", "berg")
ODD = ("nopass", "off", "all", "flushdb", "readonly", "alerts")
GRANT = {"multi": "+@transaction", "lua": "+@scripting", "channel": "+publish"}
ROUTINE_RULES = (["~{p}:*", "+@read", "+@write", "-@dangerous"], ["~{p}:*", "+@read"],
                 ["~{p}:*", "~shared:*", "+@read", "+@write", "+@list"])


@dataclass
class Accounts:
    """The capture's record: user -> password, the odd users, and the denials it provoked."""

    password: dict[str, str] = field(default_factory=dict)
    prefix: dict[str, str] = field(default_factory=dict)
    odd: dict[str, str] = field(default_factory=dict)  # kind -> user
    refused_key: dict[str, str] = field(default_factory=dict)  # user -> the key it was refused
    odd_denial: dict[str, tuple[str, str]] = field(default_factory=dict)  # kind -> (user, object)


def make_accounts(r, rnd: random.Random) -> Accounts:
    record = Accounts()
    names = [f"svc-{s}-{n}" for s in SERVICES for n in range(1, 13)]
    names += rnd.sample([f"{f}.{last}" for f in FIRST for last in LAST], 104)
    rnd.shuffle(names)
    # ACL LIST sorts by name: the odd accounts are drawn from the middle half of that order.
    middle = sorted(names)[len(names) // 4:len(names) * 3 // 4]
    kind_of = dict(zip(rnd.sample(middle, len(ODD)), ODD, strict=True))
    for i, name in enumerate(names):
        pw = f"{rnd.getrandbits(48):012x}"
        # A service's keys carry its name; a person's a desk number (a name stands once in the list).
        prefix = name.split("-")[1] if name.startswith("svc-") else f"desk{i:03d}"
        record.password[name], record.prefix[name] = pw, prefix
        kind = kind_of.get(name)
        record.odd.update({kind: name} if kind else {})
        own = [f"~{prefix}:*", "+@read", "-@dangerous"]
        rules = {None: [f">{pw}", *(x.format(p=prefix) for x in rnd.choice(ROUTINE_RULES))],
                 "nopass": ["nopass", *own], "off": [f">{pw}", *own], "all": [f">{pw}", "~*", "&*", "+@all"],
                 "flushdb": [f">{pw}", *own, "+flushdb"], "readonly": [f">{pw}", f"%R~{prefix}:*", "+@read"],
                 "alerts": [f">{pw}", *own, "&alerts:*", "+publish"]}[kind]
        r.execute_command("ACL", "SETUSER", name, "reset", "off" if kind == "off" else "on", *rules)
    return record


def provoke_denials(r, port: int, record: Accounts, rnd: random.Random) -> None:
    """Routine denials (a service reading another's key), with the odd ones in the middle."""
    import redis

    services = [u for u in record.password if u.startswith("svc-") and u not in record.odd.values()]
    routine = rnd.sample(services, 90)
    odd_kinds = ("multi", "lua", "channel", "login")
    odd_at = dict(zip(odd_kinds, rnd.sample(range(30, 60), len(odd_kinds)), strict=True))
    for i, user in enumerate(routine):
        kind = next((k for k, at in odd_at.items() if at == i), None)
        if kind in GRANT:  # allowed the command, so the refusal is about the key or channel
            r.execute_command("ACL", "SETUSER", user, GRANT[kind])
        c = redis.Redis(port=port, username=user, password=record.password[user])
        key = f"{rnd.choice(SERVICES)}:{rnd.choice(('order', 'invoice', 'sku', 'job'))}:{rnd.randrange(10**6):06d}"
        if key.split(":")[0] == record.prefix[user]:
            key = f"vault:{key}"
        try:
            if kind == "multi":
                with c.pipeline(transaction=True) as p:
                    p.get(f"{record.prefix[user]}:cursor").set(key, "1").execute()
            elif kind == "lua":
                c.eval("return redis.call('GET', KEYS[1])", 1, key)
            elif kind == "channel":
                key = f"payouts.{rnd.randrange(100, 999)}"
                c.publish(key, "ping")
            elif kind == "login":
                key = "ghost-admin"
                redis.Redis(port=port, username=key, password="letmein").ping()
            else:
                c.get(key)
        except redis.exceptions.RedisError:
            pass  # the denial is the point
        finally:
            c.close()
        if kind:
            record.odd_denial[kind] = (user, key)
        else:
            record.refused_key[user] = key


def stored_hash(password: str) -> str:
    """How redis keeps an ACL password (``#`` + SHA-256 hex), computed here, not read back."""
    return hashlib.sha256(password.encode()).hexdigest()


def _asks(record: Accounts, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the accounts it made"
    o = record.odd
    listing = {"nopass": ("Which account has no password at all?", "Is any user set to nopass? Which?"),
               "off": ("Which account is disabled?", "Which user is switched off?"),
               "all": ("Apart from default, which account may run every command?",
                       "Which user has +@all besides default?"),
               "flushdb": ("Which account is allowed to run FLUSHDB?", "Who can flush a database?"),
               "readonly": ("Which account has a read-only key selector?", "Which user may only read its keys (%R)?"),
               "alerts": ("Which account may publish to the alerts channels?", "Who has access to alerts:*?")}
    asks = [Ask(f"user_{kind}", "named", "named_item", (o[kind],), note, words, ("list",))
            for kind, words in listing.items()]
    for user in rnd.sample(sorted(u for u in record.password if u.startswith("svc-") and u not in o.values()), 2):
        asks.append(Ask(f"hash_{user}", "named", "named_item", (stored_hash(record.password[user]),),
                        "the capture's record of the password it set, hashed by hashlib (SHA-256)",
                        (f"What's the stored password hash for {user}?", f"Give me {user}'s password hash."),
                        ("list",)))
    denial = "the capture's record of what it made each account try"
    middle = list(record.refused_key)[35:55]
    for user in rnd.sample(middle, 3):
        asks.append(Ask(f"refused_{user}", "named", "named_item", (record.refused_key[user],), denial,
                        (f"Which key was {user} refused?", f"What key did {user} try to touch without permission?"),
                        ("log",)))
    d = record.odd_denial
    asks += [Ask("refused_multi", "named", "named_item", (d["multi"][1],), denial,
                 ("Which key was refused inside a MULTI transaction?", "A transaction hit a key it may not: which?"),
                 ("log",)),
             Ask("refused_lua", "named", "named_item", (d["lua"][1],), denial,
                 ("Which key did a Lua script try to read without permission?", "What key did the script get denied?"),
                 ("log",)),
             Ask("refused_channel", "named", "named_item", (d["channel"][1],), denial,
                 ("Which channel was someone refused to publish on?", "What pub/sub channel was denied?"), ("log",)),
             Ask("refused_login", "named", "named_item", (d["login"][1],), denial,
                 ("Someone tried to log in as an account that doesn't exist. Which name?",
                  "Which username failed authentication?"), ("log",))]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    import redis

    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(work), "--acllog-max-len", "256"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cli = ["redis-cli", "-p", str(port)]
    rnd = random.Random(1705)
    try:
        wait_for(lambda: run([*cli, "PING"], check=False).stdout.strip() == "PONG")
        r = redis.Redis(port=port)
        record = make_accounts(r, rnd)
        provoke_denials(r, port, record, rnd)
        r.execute_command("ACL", "SETUSER", "default", "resetpass", f">{ADMIN_PASSWORD}")
        auth = ["--no-auth-warning", "-a", ADMIN_PASSWORD]
        commands = {"list": "ACL LIST", "log": "ACL LOG 200"}
        outputs = {name: Output({"command": f"redis-cli -a {ADMIN_PASSWORD} --no-raw {cmd}"}, "text",
                                run([*cli, *auth, "--no-raw", *cmd.split()]).stdout)
                   for name, cmd in commands.items()}
    finally:
        run([*cli, "--no-auth-warning", "-a", ADMIN_PASSWORD, "SHUTDOWN", "NOSAVE"], check=False)
        proc.wait(timeout=20)
    out = asked_cases(SOURCE, outputs, _asks(record, rnd))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
