"""Python syntax trees as the interpreter's own ``ast`` module prints them: ``python3 -m ast``
(``Module(body=[FunctionDef(name=..., args=arguments(...), body=[...]), ...])`` indented
three spaces a level; a few thousand lines for a module) and ``python3 -m ast -a`` (the same
with every node's line and column), of two modules the capture generates: about forty-five
small functions each (an assignment, a call, a return), a few module-level settings.

A few definitions differ in one way each, all in the middle of their module: one function is
cached with ``functools.lru_cache``, one is a coroutine, one a generator, one rebinds a global,
one loops with ``while``, one takes far more parameters than the others, one raises an error of
a module it imports, one catches one, one asserts with a message; a setting is given a value of
its own and one literal is far larger than the rest. Facts come from the capture's own record
of what it wrote (each odd definition's name, the values it chose), never from the dump's text.
A fact is kept only where its text stands once in the output. Held out (issue 33, eleventh
round): no dev source holds syntax-tree dumps.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "syntax_trees"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "PYTHONDONTWRITEBYTECODE": "1"}
VERBS = ("load", "save", "merge", "split", "render", "verify", "price", "schedule", "archive", "refresh", "match",
         "score", "count", "group", "trim")
NOUNS = ("order", "basket", "coupon", "parcel", "refund", "invoice", "shelf", "carrier")
PARAMS = ("item", "limit", "region", "batch", "when", "strict", "currency", "rate")
# The odd definition of each kind, per module: (function name, the value or name the capture
# records as the answer). Names are unique, so each stands once in a dump.
ODD = {
    "pricing": {"cached": "tier_discount_table", "coroutine": "fetch_exchange_rates", "generator": "iter_price_bands",
                "global": "reset_price_cache", "while": "round_to_cents", "many_params": "quote_bulk_shipment",
                "raises": ("reserve_margin", "MarginBelowFloor"), "catches": ("apply_tariffs", "TariffFeedStale"),
                "assert": ("check_markup", "markup must stay under the ceiling"),
                "setting": ("PRICE_RETRY_BUDGET", 7341), "largest": 2147480011},
    "fulfilment": {"cached": "zone_for_postcode", "coroutine": "poll_carrier_status", "generator": "walk_pick_list",
                   "global": "rotate_label_printer", "while": "drain_outbox", "many_params": "plan_pallet_layout",
                   "raises": ("allocate_bin", "BinCapacityExceeded"), "catches": ("book_courier", "CourierOffline"),
                   "assert": ("seal_parcel", "parcel weight must be known before sealing"),
                   "setting": ("LABEL_BATCH_SIZE", 6083), "largest": 9007199254740881},
}


def plain_function(name: str, rnd: random.Random) -> list[str]:
    args = ", ".join(rnd.sample(PARAMS, rnd.randint(1, 3)))
    first = args.split(", ")[0]
    return [f"def {name}({args}):", f"    value = normalise({first}, {rnd.randint(2, 900)})",
            "    return value", "", ""]


def odd_function(kind: str, spec: dict[str, Any]) -> list[str]:
    """The one definition of ``kind`` in a module, as the record names it."""
    name = spec[kind][0] if isinstance(spec[kind], tuple) else spec[kind]
    body = {
        "cached": ["@functools.lru_cache(maxsize=64)", f"def {name}(region):", "    return normalise(region, 3)"],
        "coroutine": [f"async def {name}(when):", "    return await remote.fetch(when)"],
        "generator": [f"def {name}(batch):", "    for item in batch:", "        yield normalise(item, 1)"],
        "global": [f"def {name}():", "    global STATE", "    STATE = None"],
        "while": [f"def {name}(item):", "    while item > 1:", "        item = item - 1", "    return item"],
        "many_params": [(f"def {name}(item, limit, region, batch, when, strict, currency, rate, carrier, "
                         "depot, pallet, priority):"), "    return normalise(item, 12)"],
        "raises": [f"def {name}(item):", "    if item is None:", f"        raise errors.{spec[kind][1]}(item)",
                   "    return item"],
        "catches": [f"def {name}(item):", "    try:", "        return remote.fetch(item)",
                    f"    except feeds.{spec[kind][1]}:", "        return None"],
        "assert": [f"def {name}(item):", f"    assert item, {spec[kind][1]!r}", "    return item"],
    }[kind]
    return [*body, "", ""]


def module_text(module: str, rnd: random.Random) -> str:
    """About forty-five plain functions with the odd ones placed among the middle third."""
    spec = ODD[module]
    setting, value = spec["setting"]
    names = [f"{v}_{n}" for v in VERBS for n in NOUNS]
    plain = rnd.sample(names, 45)
    odd = [k for k in spec if k not in ("setting", "largest")]
    lines = [f'"""The {module} rules of the shop."""', "", "import functools", "", "from . import errors, feeds, remote",
             "", f"{setting} = {value}", "STATE = None", "", ""]
    for n, name in enumerate(plain):
        lines += plain_function(name, rnd)
        if 15 <= n < 15 + len(odd):
            lines += odd_function(odd[n - 15], spec)
        if n == 22:
            lines += [f"def ceiling_{module}():", f"    return {spec['largest']}", "", ""]
    lines += ["def normalise(value, places):", "    return round(value, places)", ""]
    return "\n".join(lines)


# What is asked of each module; each question goes to one of its two dumps, in turn.
ASKED = {"pricing": ("cached", "coroutine", "while", "params", "raises", "assert", "setting", "largest"),
         "fulfilment": ("generator", "global", "params", "catches", "raises", "setting", "largest", "cached")}
NOTE = "the capture's record of the module it wrote"


def questions(spec: dict[str, Any]) -> dict[str, tuple[str, str, str, tuple[str, ...]]]:
    """kind -> (intent, fact kind, answer, wordings) for one module."""
    raiser, raised = spec["raises"]
    catcher, caught = spec["catches"]
    asserter, message = spec["assert"]
    setting, value = spec["setting"]
    return {
        "cached": ("named", "named_item", spec["cached"],
                   ("Which function is memoised with lru_cache?", "Which function has a cache decorator on it?")),
        "coroutine": ("named", "named_item", spec["coroutine"],
                      ("Which function is declared async?", "Is there a coroutine in this module? What's it called?")),
        "generator": ("named", "named_item", spec["generator"],
                      ("Which function yields values instead of returning them?",)),
        "global": ("named", "named_item", spec["global"],
                   ("Which function rebinds module state with a global statement?",)),
        "while": ("one_off", "named_item", spec["while"], ("Which function contains a while loop?",)),
        "params": ("extreme", "extreme", spec["many_params"],
                   ("Which function takes the most parameters?",
                    "What's the function with the longest argument list?")),
        "raises": ("named", "named_item", raised, (f"What exception does {raiser} raise?",)),
        "catches": ("named", "named_item", caught,
                    (f"Which error does {catcher} swallow?", f"What exception type is handled in {catcher}?")),
        "assert": ("named", "named_item", message, (f"What message does the assertion in {asserter} give?",)),
        "setting": ("named", "named_item", str(value),
                    (f"What is the {setting.lower().replace('_', ' ')} set to at module level?",)),
        "largest": ("extreme", "extreme", str(spec["largest"]), ("What's the largest integer literal in the module?",)),
    }


def _asks() -> list[Ask]:
    asks = []
    for module, spec in ODD.items():
        asked = questions(spec)
        dumps = (f"tree_{module}", f"positions_{module}")
        for n, kind in enumerate(ASKED[module]):
            intent, fact_kind, answer, wordings = asked[kind]
            asks.append(Ask(kind, intent, fact_kind, (answer,), NOTE, wordings, (dumps[n % 2],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1112)
    (work / "shop").mkdir()
    commands = {}
    for module in ODD:
        (work / "shop" / f"{module}.py").write_text(module_text(module, rnd))
        commands[f"tree_{module}"] = f"python3 -m ast shop/{module}.py"
        commands[f"positions_{module}"] = f"python3 -m ast -a shop/{module}.py"
    return shell_cases(SOURCE, commands, _asks(), cwd=work, env=ENV)
