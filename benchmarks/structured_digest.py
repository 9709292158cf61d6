"""Every dev-corpus output that may go through the structured compressor, as one digest:
for checking that a speed-up of compressors/structured/ changed no byte (issue 34).

    PYTHONPATH=. .venv/bin/python benchmarks/structured_digest.py --out /tmp/before.json
    ... change the code ...
    PYTHONPATH=. .venv/bin/python benchmarks/structured_digest.py --out /tmp/after.json --compare /tmp/before.json

A case is taken when the structured claim takes its text or the general detector calls
it plain text (which ``refine`` may hand to the lines selector); each goes through a
fresh pipeline as ``real_corpus_bench.py`` sends it. About 250 cases, ten seconds; the
whole-corpus check is ``output_digest.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.compressors.detect import ContentType, detect
from headroom.compressors.structured import claim
from headroom.eval.corpus import load_cases

sys.path.insert(0, str(Path(__file__).parent))
from bench_common import MODEL
from real_corpus_bench import case_messages


def digests() -> dict[str, str]:
    out: dict[str, str] = {}
    for case in load_cases("dev"):
        if claim(case.content) is None and detect(case.content).type is not ContentType.TEXT:
            continue
        pipeline = Pipeline(HeadroomConfig(), store=CompressionStore(max_entries=100_000))
        result = compress(case_messages(case), model=MODEL, pipeline=pipeline)
        out[case.id] = hashlib.sha256(json.dumps(result.messages, ensure_ascii=False).encode()).hexdigest()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="write the per-case digests to this JSON file")
    ap.add_argument("--compare", help="a file written by --out before: list the cases whose output changed")
    args = ap.parse_args(argv)
    now = digests()
    total = hashlib.sha256("".join(f"{k}{v}" for k, v in sorted(now.items())).encode()).hexdigest()[:16]
    print(f"{len(now)} outputs, digest {total}")
    if args.out:
        Path(args.out).write_text(json.dumps(now, indent=0, sort_keys=True))
    if args.compare:
        before = json.loads(Path(args.compare).read_text())
        changed = sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))
        for k in changed:
            print("changed:", k)
        print(f"{len(changed)} of {len(now)} outputs changed")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
