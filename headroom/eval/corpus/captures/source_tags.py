"""Source-tag cross-references as Universal Ctags prints them: ``ctags -x -R`` (one line per
definition, sorted by name: name, kind, line, file and the defining line's text; ~300
lines) and ``ctags -R --output-format=json`` (one JSON object per tag: name, path, search
pattern, kind, scope), over a Python package the capture generates: 16 modules of
functions, classes with methods, and a constant each.

A few definitions differ in one way each: one function takes far more parameters than any
other, one is a coroutine (``async def``), one function is defined inside a method, one class
is the package's error type, and one constant is far larger than the others. Facts come from
another reader of the same files, Python's ``ast`` (each definition's node, its arguments,
its line as written), never from ctags' text: the answer is a definition's line, without its
indentation. A fact is kept only where its text stands once in the output. Held out (issue
33, tenth round): no dev source holds tag cross-references.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "source_tags"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
MODULES = ("billing", "catalog", "checkout", "coupons", "customers", "delivery", "exports", "fraud", "inventory",
           "invoices", "ledger", "loyalty", "payments", "pricing", "returns", "shipping")
VERBS = ("load", "save", "merge", "split", "render", "verify", "reconcile", "schedule", "archive", "refresh")
PARAMS = ("order", "customer", "amount", "currency", "when", "limit", "strict", "region", "batch", "dry_run")


def module_text(name: str, rnd: random.Random) -> str:
    """One module: a constant, a class with methods, a few functions (names unique package-wide)."""
    lines = [f'"""The {name} part of the shop."""', "", f"{name.upper()}_TIMEOUT_MS = {rnd.randint(2, 60) * 500}",
             "", "", f"class {name.title()}Service:", f'    """Operations on {name}."""', ""]
    for verb in rnd.sample(VERBS, 4):
        args = ", ".join(["self", *rnd.sample(PARAMS, rnd.randint(0, 3))])
        lines += [f"    def {verb}_{name}_record({args}):", "        return None", ""]
    for verb in rnd.sample(VERBS, 5):
        args = ", ".join(rnd.sample(PARAMS, rnd.randint(1, 4)))
        lines += ["", f"def {verb}_{name}({args}):", "    return None", ""]
    return "\n".join(lines) + "\n"


def odd_ones(name: str) -> str:
    """The definitions that differ, added to one module each."""
    return {
        "ledger": ("\n\ndef rebuild_ledger_totals(order, customer, amount, currency, when, limit, strict, region, "
                   "batch, dry_run, audit_trail):\n    return None\n"),
        "payments": "\n\nasync def settle_payments_async(batch, when):\n    return None\n",
        "fraud": ("\n\nclass FraudScreen:\n    def score_fraud(self, order):\n"
                  "        def weigh_signal(signal, weight=1.0):\n            return signal * weight\n"
                  "        return weigh_signal(order)\n"),
        "invoices": "\n\nclass InvoiceMismatchError(ValueError):\n    pass\n",
        "exports": "\nEXPORTS_ARCHIVE_TIMEOUT_MS = 86400000\n",
    }.get(name, "")


def write_package(work: Path) -> Path:
    rnd = random.Random(1012)
    root = work / "shop"
    root.mkdir()
    (root / "__init__.py").write_text('"""The shop package."""\n')
    for name in MODULES:
        (root / f"{name}.py").write_text(module_text(name, rnd) + odd_ones(name))
    return root


def definitions(root: Path) -> list[dict[str, Any]]:
    """Every def, class and module constant, by ``ast``: name, kind, depth, arguments, line."""
    out = []
    for path in sorted(root.glob("*.py")):
        source = path.read_text().splitlines()
        tree = ast.parse("\n".join(source))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                depth, up = 0, parents.get(node)
                while up is not None:
                    depth += isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef))
                    up = parents.get(up)
                out.append({"name": node.name, "node": type(node).__name__, "line": source[node.lineno - 1].strip(),
                            "args": len(node.args.args) if not isinstance(node, ast.ClassDef) else 0,
                            "inside_function": depth > 0,
                            "bases": [ast.unparse(b) for b in getattr(node, "bases", [])]})
            elif isinstance(node, ast.Assign) and parents.get(node) is tree:
                out.append({"name": node.targets[0].id, "node": "constant", "line": source[node.lineno - 1].strip(),
                            "value": ast.literal_eval(node.value), "args": 0, "inside_function": False, "bases": []})
    return out


def _one(defs: list[dict[str, Any]], test) -> str:
    found = [d["line"] for d in defs if test(d)]
    assert len(found) == 1, found
    return found[0]


def _asks(defs: list[dict[str, Any]]) -> list[Ask]:
    note = "Python's ast over the generated package"
    most = max(d["args"] for d in defs)
    biggest = max(d.get("value", 0) for d in defs)
    asks = [
        Ask("most_params", "extreme", "extreme", (_one(defs, lambda d: d["args"] == most),), note,
            ("Which function takes the most parameters?", "What's the function with the longest parameter list?")),
        Ask("coroutine", "named", "named_item", (_one(defs, lambda d: d["node"] == "AsyncFunctionDef"),), note,
            ("Which function is async?", "Is there a coroutine in the package? Show its definition.")),
        Ask("nested", "named", "named_item", (_one(defs, lambda d: d["inside_function"]),), note,
            ("Which function is defined inside a method?", "Where's the helper nested inside another function?")),
        Ask("error_type", "named", "named_item", (_one(defs, lambda d: "ValueError" in d["bases"]),), note,
            ("Which class is the package's error type?", "Is there a custom exception class? Which one?")),
        Ask("largest_timeout", "extreme", "extreme", (_one(defs, lambda d: d.get("value") == biggest),), note,
            ("Which timeout constant is the largest?", "What's the longest timeout configured in the package?")),
    ]
    for name in ("verify_coupons", "schedule_delivery", "reconcile_inventory", "split_invoices", "refresh_loyalty"):
        found = [d["line"] for d in defs if d["name"] == name]
        if len(found) == 1:
            asks.append(Ask(f"signature_{name}", "named", "named_item", tuple(found), note,
                            (f"What parameters does {name} take?", f"What's the signature of {name}?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    root = write_package(work)
    commands = {"xref": "ctags -x -R shop", "json": "ctags -R --output-format=json -f - shop | jq -s ."}
    return shell_cases(SOURCE, commands, _asks(definitions(root)), cwd=work, env=ENV, json_outputs=("json",))
