"""Does what stays in view depend on how the question is worded? Every real-corpus case
asked with each paraphrase of its intent.

    .venv/bin/python benchmarks/wording_bench.py
    .venv/bin/python benchmarks/wording_bench.py --split dev --cases 'redis_server/*' --json out.json

``real_corpus_bench.py`` asks each case one wording, picked by a hash of its id. Here a
case whose question is one of the shared paraphrases (``headroom.eval.corpus.questions``:
one-off, errors, last, first, change, summary) is compressed once per paraphrase of its
intent, cold (fresh store and memo), and every fact is checked in view under each. A
source's own wordings (named lookups, extremes) have no shared paraphrases and are left
out. A paraphrase that would contain a fact's text is skipped, as the corpus builder
never asks one.

Reported per split (dev and held-out apart): facts in view under every wording, under
some only (wording-sensitive), under none; one-off/error/warning facts in view over all
(fact, wording) pairs, the measure issue 11's >= 95 % target uses; the same per wording,
so one bad phrasing shows; and each wording-sensitive fact with the wordings that lost it.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the shared helpers, also when loaded by path (tests)
from real_corpus_bench import ANOMALOUS, MODEL, bench_ours, case_messages, select

from headroom import compress
from headroom.eval.corpus import CorpusCase, load_cases
from headroom.eval.corpus.questions import all_wordings


@dataclass
class CaseWordings:
    case: CorpusCase
    wordings: list[str]
    # per fact (in case order): in view under each wording, in wording order
    in_view: list[list[bool]] = field(default_factory=list)


def wordings_for(case: CorpusCase) -> list[str]:
    """The paraphrases of the case's intent that give no fact away (the case's own included)."""
    return [w for w in all_wordings(case.intent, case.question) if not any(f.text in w for f in case.facts)]


def run_case(case: CorpusCase) -> CaseWordings | None:
    wordings = wordings_for(case)
    if len(wordings) < 2:
        return None
    out = CaseWordings(case, wordings, [[] for _ in case.facts])
    for w in wordings:
        row = bench_ours(replace(case, question=w), rounds=1)
        for i, f in enumerate(row.facts):
            out.in_view[i].append(f["status"] == "in_view")
    return out


def split_report(split: str, results: list[CaseWordings]) -> str:
    facts = [(r, i) for r in results for i in range(len(r.case.facts))]
    every = sum(all(r.in_view[i]) for r, i in facts)
    some = sum(any(r.in_view[i]) and not all(r.in_view[i]) for r, i in facts)
    never = sum(not any(r.in_view[i]) for r, i in facts)
    anomalous = [(r, i) for r, i in facts if r.case.facts[i].kind in ANOMALOUS]
    pairs = sum(len(r.in_view[i]) for r, i in anomalous)
    seen = sum(sum(r.in_view[i]) for r, i in anomalous)
    share = seen / pairs if pairs else 1.0
    return (f"| {split} | {len(results)} | {sum(len(r.wordings) for r in results)} | {len(facts)} | {every} | "
            f"{some} | {never} | {seen}/{pairs} ({100 * share:.1f}%) |")


def per_wording(results: list[CaseWordings]) -> list[str]:
    """One-off/error/warning facts in view per intent and paraphrase position."""
    tally: dict[tuple[str, int], list[int]] = {}
    for r in results:
        for i, f in enumerate(r.case.facts):
            if f.kind not in ANOMALOUS:
                continue
            for k, w in enumerate(r.wordings):
                t = tally.setdefault((r.case.intent, k), [0, 0])
                t[0] += r.in_view[i][k]
                t[1] += 1
    return [f"| {intent} | {k + 1} | {seen}/{total} ({100 * seen / total:.1f}%) |"
            for (intent, k), (seen, total) in sorted(tally.items())]


def sensitive(results: list[CaseWordings]) -> list[str]:
    out = []
    for r in results:
        for i, f in enumerate(r.case.facts):
            flags = r.in_view[i]
            if any(flags) and not all(flags):
                lost = [k + 1 for k, ok in enumerate(flags) if not ok]
                out.append(f"- {r.case.split} {r.case.id} [{f.kind}] {f.text[:80]!r}: not in view under "
                           f"wording(s) {lost} of {len(flags)}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "heldout"), default="dev",
                    help="dev (default); held-out sources are measured once, at the end, only when asked for")
    ap.add_argument("--cases", help="comma-separated glob(s) or substrings of case ids")
    ap.add_argument("--json", help="also write per-case, per-fact, per-wording results to this JSON file")
    args = ap.parse_args(argv)
    cases = [c for c in select(load_cases(args.split), args.cases) if len(wordings_for(c)) >= 2]
    if not cases:
        ap.error("no case with shared paraphrases matches")
    compress(case_messages(cases[0])[:2], model=MODEL)  # warm-up: imports, tokenizer
    results = []
    for c in cases:
        r = run_case(c)
        if r is not None:
            results.append(r)
            print(f"{c.id:>48}: {len(r.wordings)} wordings", file=sys.stderr)
    print("| split | cases | compressions | facts | in view under every wording | under some only | under none "
          "| one-off/error/warning in view (fact x wording) |")
    print("|" + "---|" * 8)
    for split in ("dev", "heldout"):
        part = [r for r in results if r.case.split == split]
        if part:
            print(split_report(split, part))
    for split in ("dev", "heldout"):
        part = [r for r in results if r.case.split == split]
        if not part:
            continue
        print(f"\n{split}: one-off/error/warning facts in view per wording\n")
        print("| intent | wording | in view |\n|---|---|---|")
        print("\n".join(per_wording(part)))
        lines = sensitive(part)
        print(f"\n{split}: wording-sensitive facts ({len(lines)})\n")
        print("\n".join(lines) if lines else "- none")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([{"id": r.case.id, "split": r.case.split, "intent": r.case.intent, "wordings": r.wordings,
                        "facts": [{"text": f.text, "kind": f.kind, "in_view": r.in_view[i]}
                                  for i, f in enumerate(r.case.facts)]} for r in results], fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
