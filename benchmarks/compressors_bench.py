"""Latency and savings of the non-JSON compressors (log, search, diff, text, HTML, code).

    .venv/bin/python benchmarks/compressors_bench.py [--runs 5]

Each compressor is called directly (no router, memo or CCR) on a generated realistic
input at two sizes, with a question that names one planted fact. Printed per row: input
lines and tokens, output tokens, savings, best and median wall time of ``compress()``
over ``--runs`` runs, and whether every planted fact is in the output verbatim.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from headroom.config import HeadroomConfig
from headroom.tokens import counter_for
from headroom.query.anchors import extract_anchors
from headroom.compressors.code import CodeCompressor
from headroom.compressors.base import CompressInput
from headroom.compressors.diff import DiffCompressor
from headroom.compressors.html import HTMLCompressor
from headroom.compressors.logs import LogCompressor
from headroom.compressors.search import SearchCompressor
from headroom.compressors.text import TextCrusher

Case = tuple[str, str, list[str]]  # text, question, facts that must survive


def build_log(n: int) -> Case:
    rnd = random.Random(n)
    out = ["$ make test"]
    for i in range(n):
        if i == n // 3:
            out.append("2026-11-22T03:10:00Z ERROR db.pool: connection refused to 10.0.0.5:5432")
        elif i == 2 * n // 3:
            out += ["Traceback (most recent call last):", '  File "/app/worker.py", line 88, in run',
                    "    result = handle(job)", "KeyError: 'invoice_v2'"]
        elif rnd.random() < 0.02:
            out.append(f"2026-11-22T03:{i % 60:02d}:00Z WARN cache miss ratio high: {rnd.randint(50, 99)}%")
        else:
            out.append(f"2026-11-22T03:{i % 60:02d}:{i % 60:02d}Z INFO worker-{rnd.randint(1, 8)} "
                       f"processed job {rnd.randint(1000, 99999)} in {rnd.randint(1, 500)}ms")
    out.append("===== 1 failed, 412 passed in 12.34s =====")
    return "\n".join(out), "why did the build fail?", ["connection refused", "KeyError: 'invoice_v2'", "1 failed"]


def rg_output(n: int) -> Case:
    out = []
    for i in range(n):
        path = f"src/pkg{i % 7}/module_{i // 12}.py"
        content = ("    raise PaymentDeclined(code='CARD_EXPIRED_4417')" if i == n // 2
                   else f"    total = compute_total(items_{i % 12}, discount={i % 5})")
        out.append(f"{path}:{10 + (i % 12) * 7}:{content}")
    return "\n".join(out), "where is CARD_EXPIRED_4417 raised?", ["CARD_EXPIRED_4417"]


def unified_diff(files: int) -> Case:
    import difflib

    parts = []
    for f in range(files):
        old = [f"    step_{i} = compute(payload, {i})" for i in range(80)]
        new = list(old)
        new[10 + f % 50] = f"    step_{10 + f % 50} = compute(payload, {1000 + f})"
        if f == files // 2:
            new[40] = "    MAX_RETRIES = 9931"
        path = f"src/module_{f}.py"
        parts += [f"diff --git a/{path} b/{path}", "index 1a2b3c4..5d6e7f8 100644",
                  *difflib.unified_diff(old, new, f"a/{path}", f"b/{path}", n=3, lineterm="")]
    lock_old = [f'    "node_modules/pkg{i}": "1.0.{i}",' for i in range(files * 10)]
    lock_new = [ln.replace("1.0.", "1.1.") for ln in lock_old]
    parts += ["diff --git a/package-lock.json b/package-lock.json",
              *difflib.unified_diff(lock_old, lock_new, "a/package-lock.json", "b/package-lock.json", n=3, lineterm="")]
    return "\n".join(parts), "what is MAX_RETRIES now?", ["+    MAX_RETRIES = 9931"]


def prose(paragraphs: int) -> Case:
    rnd = random.Random(paragraphs)
    subjects = ["The scheduler", "Each worker", "The gateway", "A client", "The cache layer", "The billing job"]
    verbs = ["coordinates", "reports", "negotiates", "summarises", "replicates", "validates"]
    objects = ["incoming requests", "nightly snapshots", "customer invoices", "session tokens", "usage metrics"]
    fact = "Outbound calls to the card network time out after 37 seconds."
    paras = []
    for p in range(paragraphs):
        sents = [f"{rnd.choice(subjects)} {rnd.choice(verbs)} {rnd.choice(objects)} in zone {rnd.randint(1, 9)}."
                 for _ in range(5)]
        if p == paragraphs // 2:
            sents.insert(2, fact)
        paras.append(" ".join(sents))
    return "\n\n".join(paras), "when do calls to the card network time out?", [fact]


def html_page(sections: int) -> Case:
    nav = "<nav>" + "".join(f'<a href="/s{i}">Section {i}</a>' for i in range(40)) + "</nav>"
    body = "".join(f"<h2>Topic {i}</h2><p>This section explains behaviour {i} in general terms. "
                   f"It repeats the overview in other words.</p>" for i in range(sections))
    table = "<table><tr><td>E_CARD_DECLINED</td><td>The issuer declined the card</td></tr></table>"
    page = (f"<html><head><title>API</title><script>{'var x=1;' * 300}</script></head><body>{nav}"
            f"<main><h1>Payments API</h1>{body}{table}</main><footer>(c) 2026</footer></body></html>")
    return page, "what does E_CARD_DECLINED mean?", ["E_CARD_DECLINED | The issuer declined the card"]


def python_source(funcs: int) -> Case:
    out = ['"""Billing."""', "", "import json", ""]
    for f in range(funcs):
        name = "reconcile_ledger" if f == funcs // 2 else f"handler_{f}"
        out += [f"def {name}(event: dict) -> dict:"] + [f"    v{k} = event.get('k{k}', {k}) + {f}" for k in range(12)]
        out += ["    return {'ok': True}", "", ""]
    return "\n".join(out), "why does reconcile_ledger fail?", ["def reconcile_ledger(event: dict) -> dict:"]


CASES: list[tuple[str, Callable[[int], Case], object, tuple[int, int]]] = [
    ("log", build_log, LogCompressor(), (1000, 10000)),
    ("search", rg_output, SearchCompressor(), (1000, 10000)),
    ("diff", unified_diff, DiffCompressor(), (20, 200)),
    ("text", prose, TextCrusher(), (40, 400)),
    ("html", html_page, HTMLCompressor(), (40, 400)),
    ("code", python_source, CodeCompressor(), (30, 300)),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    cfg = HeadroomConfig()
    print(f"{'compressor':<10} {'size':>6} {'lines':>7} {'tokens in':>10} {'tokens out':>10} {'savings':>8} "
          f"{'best ms':>8} {'median ms':>9}  facts")
    for name, make, compressor, sizes in CASES:
        for size in sizes:
            text, question, facts = make(size)
            counter = counter_for("gpt-4o")
            inp = CompressInput(text=text, config=cfg, counter=counter, query=question,
                                anchors=extract_anchors(question))
            times = []
            out = None
            for _ in range(args.runs):
                t0 = time.perf_counter()
                out = compressor.compress(inp)
                times.append((time.perf_counter() - t0) * 1000)
            before = counter.count(text)
            after = counter.count(out.text) if out else before
            kept = sum(f in (out.text if out else text) for f in facts)
            print(f"{name:<10} {size:>6} {text.count(chr(10)) + 1:>7} {before:>10,} {after:>10,} "
                  f"{100 * (1 - after / before):>7.1f}% {min(times):>8.1f} {statistics.median(times):>9.1f}  "
                  f"{kept}/{len(facts)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
