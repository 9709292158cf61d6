"""How far a corpus source's one-off facts coincide with the log compressor's own rule.

    .venv/bin/python benchmarks/fact_key_overlap.py                     # every dev source with one-off facts
    .venv/bin/python benchmarks/fact_key_overlap.py --sources pg_sessions_jsonlog,redis_server

For each one-off fact: the line holding it (a JSON form: the record's field holding it)
and that line's key by ``headroom.compressors.templates.keys_of``. When the key occurs
once, the compressor keeps the line as a one-off by its own rule, so the fact cannot show
a blind spot (DESIGN.md §6). Issue 33's audit; docs/eval.md quotes the result. Dev only:
held-out sources are measured once, at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict

from headroom.compressors.templates import keys_of
from headroom.eval.corpus import CorpusCase, load_cases


def lines_of(case: CorpusCase) -> list[str]:
    """The lines the compressor keys: a text's lines, or a record array's values of the
    field that holds the facts."""
    if case.form != "json":
        return case.content.splitlines()
    rows = json.loads(case.content)
    if not isinstance(rows, list):
        return []
    for f in case.facts:
        for r in rows:
            for k, v in (r.items() if isinstance(r, dict) else ()):
                if isinstance(v, str) and f.text in v:
                    return [str(x.get(k, "")) if isinstance(x, dict) else "" for x in rows]
    return []


def overlap(case: CorpusCase) -> tuple[int, int]:
    """(one-off facts whose line's key occurs once, one-off facts)."""
    lines = lines_of(case)
    keys = keys_of(lines)
    counts = Counter(keys)
    facts = [f for f in case.facts if f.kind == "one_off"]
    hit = 0
    for f in facts:
        idx = [i for i, ln in enumerate(lines) if f.text in ln]
        hit += len(idx) == 1 and counts[keys[idx[0]]] == 1
    return hit, len(facts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sources", help="comma-separated source names (default: every dev source)")
    args = ap.parse_args(argv)
    cases = load_cases("dev", args.sources.split(",") if args.sources else None)
    by: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for c in cases:
        if not any(f.kind == "one_off" for f in c.facts):
            continue
        hit, n = overlap(c)
        basis = next(f.basis for f in c.facts if f.kind == "one_off")
        by[(basis, c.source)][0] += hit
        by[(basis, c.source)][1] += n
    print("| basis | source | one-off facts | on a line whose compressor key occurs once |")
    print("|---|---|---|---|")
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (basis, source), (hit, n) in sorted(by.items()):
        print(f"| {basis} | {source} | {n} | {hit} |")
        totals[basis][0] += hit
        totals[basis][1] += n
    for basis, (hit, n) in sorted(totals.items()):
        print(f"| **{basis}** | all | {n} | {hit} ({100 * hit / n:.0f}%) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
