"""Server-side functions as redis lists them: ``redis-cli --no-raw FUNCTION LIST`` (per library
its name and engine, then each function's name, description and flags, a nested reply
redis-cli indents level by level; ~1,100 lines, ~29 kB) and ``redis-cli --json FUNCTION LIST``
(the same as JSON, one line, ~15 kB), of a throwaway loopback server into which the capture loads 32 Lua
libraries of a shop's back office (``FUNCTION LOAD``), each registering three to seven
functions with a description and, for about half, the ``no-writes`` flag.

Most functions are alike; one library registers far more functions than any other, four
functions carry a flag no other has (``allow-oom``, ``allow-stale``, ``no-cluster``,
``allow-cross-slot-keys``) and one has no description. Facts come from the capture's own record
of the libraries it loaded (checked against what redis-py reads back from the server), never
from redis-cli's text; a fact is kept only where it stands once. Redis prints libraries in its
own hash order, so where the odd ones stand is the server's choice. Held out (issue 33,
twenty-second round): dev holds redis's logs, INFO, CLIENT LIST, SLOWLOG, access-control lists,
streams and cluster topology, but no registry of server-side code.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import redis_server, run

SOURCE = "redis_functions"
LIBS = ("accounts", "aging", "allocation", "audit", "basket", "billing", "carrier", "catalogue", "claims",
        "collections", "credit", "customs", "dunning", "escrow", "fulfilment", "giftcards", "intake", "kitting",
        "layaway", "loyalty", "manifest", "netting", "picking", "pricing", "promotions", "quotes", "refunds",
        "restock", "sampling", "tariffs", "vouchers", "warranty")
VERBS = ("post", "void", "hold", "release", "tally", "stamp", "route", "match", "expire", "renew", "split",
         "merge", "flag", "clear", "rank", "seal", "probe", "lift", "pin", "trim")
NOUNS = ("invoice", "parcel", "ticket", "slot", "batch", "coupon", "pallet", "bin", "order", "refund", "quota",
         "lane", "token", "ledger", "crate", "voucher", "grade", "tier", "dock", "wave")
ODD_FLAGS = ("allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys")
BUSIEST = 14  # functions of the one library with far more than any other (others 3-7)
COMMANDS = {"text": ("--no-raw", "FUNCTION LIST"), "json": ("--json", "FUNCTION LIST")}


@dataclass
class Fn:
    name: str
    description: str | None
    flags: tuple[str, ...]


@dataclass
class Registry:
    """The capture's record: each library's functions, the odd ones."""

    libs: dict[str, list[Fn]] = field(default_factory=dict)
    busiest: str = ""
    odd: dict[str, str] = field(default_factory=dict)  # flag -> function name
    silent: str = ""  # the function without a description

    def library_of(self, name: str) -> str:
        return next(lib for lib, fns in self.libs.items() if any(f.name == name for f in fns))

    def code(self, lib: str) -> str:
        lines = [f"#!lua name={lib}"]
        for f in self.libs[lib]:
            # each function returns its own name, so a call would show which one ran
            spec = [f"function_name='{f.name}'", f"callback=function(keys, args) return '{f.name}' end"]
            if f.description is not None:
                spec.append(f"description='{f.description}'")
            spec.append("flags={" + ", ".join(f"'{x}'" for x in f.flags) + "}")
            lines.append("redis.register_function{" + ", ".join(spec) + "}")
        return "\n".join(lines) + "\n"


def plan(rnd: random.Random) -> Registry:
    reg = Registry()
    names = iter(rnd.sample([f"{v}_{n}" for v in VERBS for n in NOUNS], len(VERBS) * len(NOUNS)))
    reg.busiest = rnd.choice(LIBS[8:24])
    for lib in LIBS:
        fns = []
        for _ in range(BUSIEST if lib == reg.busiest else rnd.randint(3, 7)):
            name = next(names)
            verb, noun = name.split("_")
            # the description never names the library, so a library name stands once
            fns.append(Fn(name, f"{verb.capitalize()}s a {noun} (rule {rnd.randint(100, 999)})",
                          ("no-writes",) if rnd.random() < 0.5 else ()))
        reg.libs[lib] = fns
    pool = [f for lib in LIBS[8:24] if lib != reg.busiest for f in reg.libs[lib]]
    picked = rnd.sample(pool, len(ODD_FLAGS) + 1)
    for flag, f in zip(ODD_FLAGS, picked, strict=False):
        f.flags = (flag,)
        reg.odd[flag] = f.name
    picked[-1].description = None
    reg.silent = picked[-1].name
    return reg


def _asks(reg: Registry, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the libraries it loaded (read back through redis-py)"
    asks = [Ask("busiest", "extreme", "extreme", (reg.busiest,), note,
                ("Which library registers the most functions?", "What library has the largest number of functions?")),
            Ask("silent", "named", "named_item", (reg.silent,), note,
                ("Which function has no description?", "What function was registered without a description?"))]
    for flag, name in reg.odd.items():
        asks.append(Ask(f"flag_{flag}", "named", "named_item", (name,), note,
                        (f"Which function carries the {flag} flag?", f"What function is flagged {flag}?")))
    ordinary = [f.name for lib in LIBS if lib != reg.busiest for f in reg.libs[lib]
                if f.name not in reg.odd.values() and f.name != reg.silent]
    for name in rnd.sample(ordinary, 6):
        asks.append(Ask(f"library_{name}", "named", "named_item", (reg.library_of(name),), note,
                        (f"Which library does {name} belong to?", f"In what library is the function {name} defined?")))
    return asks


def _pairs(reply) -> dict[str, Any]:
    """A RESP2 map (a flat list of key, value, ...) as a dict with text keys."""
    items = reply.items() if isinstance(reply, dict) else zip(reply[::2], reply[1::2], strict=True)
    return {k.decode() if isinstance(k, bytes) else k: v for k, v in items}


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def read_back(client) -> dict[str, set[str]]:
    """Each library's function names, as redis-py reads the server's reply."""
    out = {}
    for lib in map(_pairs, client.function_list()):
        out[_text(lib["library_name"])] = {_text(_pairs(f)["name"]) for f in lib["functions"]}
    return out


def build(work: Path) -> list[dict[str, Any]]:
    import redis

    rnd = random.Random(2203)
    reg = plan(rnd)
    with redis_server(work) as (port, cli):
        client = redis.Redis(port=port)
        for lib in rnd.sample(list(LIBS), len(LIBS)):  # loaded in no particular order
            client.function_load(reg.code(lib))
        assert read_back(client) == {lib: {f.name for f in fns} for lib, fns in reg.libs.items()}
        outputs = {name: Output({"command": f"redis-cli {opt} {cmd}"}, "json" if name == "json" else "text",
                                run([*cli, opt, *cmd.split()]).stdout)
                   for name, (opt, cmd) in COMMANDS.items()}
    out = asked_cases(SOURCE, outputs, _asks(reg, rnd))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
