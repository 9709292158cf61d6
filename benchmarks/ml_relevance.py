"""Recall@k of BM25, embedding (MiniLM) and hybrid relevance on the labelled set.

    .venv/bin/python benchmarks/ml_relevance.py [--data headroom/eval/data/relevance/cases.jsonl]

Each case is a question and the items of one tool output (log lines, JSON records, search
hits, ...) with the indices of the items that answer it. recall@k = share of relevant
items among the top k, averaged over cases; MRR = mean reciprocal rank of the first hit.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from headroom.relevance import BM25
from headroom.relevance.embedding import EmbeddingScorer
from headroom.relevance.hybrid import HybridScorer

DATA = Path(__file__).resolve().parents[1] / "headroom" / "eval" / "data" / "relevance" / "cases.jsonl"
KS = (1, 3)


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def ranking(scores: list[float]) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def evaluate(scorer, cases: list[dict]) -> dict[str, dict[str, float]]:
    per_kind: dict[str, list[dict[str, float]]] = defaultdict(list)
    for case in cases:
        order = ranking(scorer(case["query"], case["items"]))
        rel = set(case["relevant"])
        row = {f"recall@{k}": len(rel & set(order[:k])) / len(rel) for k in KS}
        row["mrr"] = 1 / (1 + min(order.index(r) for r in rel))
        per_kind[case["kind"]].append(row)
        per_kind["all"].append(row)
    return {kind: {m: sum(r[m] for r in rows) / len(rows) for m in rows[0]} | {"n": len(rows)}
            for kind, rows in per_kind.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()
    cases = load(args.data)
    pairs = sum(len(c["items"]) for c in cases)
    print(f"{len(cases)} queries, {pairs} query/item pairs from {args.data.name}")
    scorers = {
        "bm25": lambda q, items: BM25(items).scores(q),
        "embedding": EmbeddingScorer("cpu"),
        "hybrid": HybridScorer("cpu"),
    }
    results = {}
    for name, scorer in scorers.items():
        t0 = time.perf_counter()
        results[name] = evaluate(scorer, cases)
        print(f"  scored with {name} in {time.perf_counter() - t0:.2f}s")
    kinds = ["all", "id", "semantic", "mixed"]
    print(f"\n{'scorer':<10} {'kind':<9} {'n':>3} {'recall@1':>9} {'recall@3':>9} {'MRR':>6}")
    for name, res in results.items():
        for kind in kinds:
            r = res.get(kind)
            if r:
                print(f"{name:<10} {kind:<9} {r['n']:>3} {r['recall@1']:>9.3f} {r['recall@3']:>9.3f} {r['mrr']:>6.3f}")


if __name__ == "__main__":
    main()
