"""Every compressed output of the real corpus and the synthetic families, for checking
that a speed-up changed no byte.

    .venv/bin/python benchmarks/output_digest.py --out /tmp/before.json
    ... change the code ...
    .venv/bin/python benchmarks/output_digest.py --out /tmp/after.json --compare /tmp/before.json

Corpus cases each go through a fresh pipeline (as ``real_corpus_bench.py`` sends them);
each synthetic family and size goes, every probe and then eight more seeds, through one
pipeline per family, so TOIN's learned hints (after ``min_observations`` outputs of one
signature) are exercised too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.eval.corpus import load_cases
from headroom.eval.scenarios import FAMILIES

sys.path.insert(0, str(Path(__file__).parent))
from bench_common import MODEL
from real_corpus_bench import case_messages

SIZES = {"default": (100, 1000), "git_diff": (30, 150), "documents": (60, 300), "plain_text": (30, 150),
         "agent_session": (12, 30)}
LARGE = {"metrics": 10000, "json_logs": 10000, "db_rows": 10000, "api_listing": 10000}


def fresh() -> Pipeline:
    return Pipeline(HeadroomConfig(), store=CompressionStore(max_entries=100_000))


def digest_all(families: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for case in load_cases("dev"):  # held-out sources are measured once, at the end
        r = compress(case_messages(case), model=MODEL, pipeline=fresh())
        out[f"corpus/{case.id}"] = json.dumps(r.messages, ensure_ascii=False)
    for fam in families:
        sizes = SIZES.get(fam, SIZES["default"]) + ((LARGE[fam],) if fam in LARGE else ())
        for n in sizes:
            pipeline = fresh()
            s = FAMILIES[fam](n, 1)
            for i, p in enumerate(s.probes):
                r = compress(s.openai_messages(p), model=MODEL, pipeline=pipeline)
                out[f"{fam}/{n}/probe{i}"] = json.dumps(r.messages, ensure_ascii=False)
            for seed in range(2, 10 if n <= 1000 else 4):
                v = FAMILIES[fam](n, seed)
                r = compress(v.openai_messages(v.probes[0]), model=MODEL, pipeline=pipeline)
                out[f"{fam}/{n}/seed{seed}"] = json.dumps(r.messages, ensure_ascii=False)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare")
    ap.add_argument("--families", default=",".join(f for f in FAMILIES if f != "images"))
    args = ap.parse_args(argv)
    outputs = digest_all([f for f in args.families.split(",") if f])
    Path(args.out).write_text(json.dumps(outputs, ensure_ascii=False))
    print(f"{len(outputs)} outputs, digest "
          f"{hashlib.sha256(json.dumps(outputs, sort_keys=True).encode()).hexdigest()[:16]}")
    if args.compare:
        old = json.loads(Path(args.compare).read_text())
        diff = sorted(k for k in old.keys() | outputs.keys() if old.get(k) != outputs.get(k))
        print(f"{len(diff)} differ" + (": " + ", ".join(diff[:30]) if diff else ""))
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
