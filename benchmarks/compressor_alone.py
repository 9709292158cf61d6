"""The compressor alone, on real corpus cases: its time against tiktoken's count, or its
output for a before/after diff (issue 34's speed work).

    PYTHONPATH=. .venv/bin/python benchmarks/compressor_alone.py time 'man_pages/*,node_dep_tree/*'
    PYTHONHASHSEED=0 PYTHONPATH=. .venv/bin/python benchmarks/compressor_alone.py dump '*' before.json
    ... change the code ...
    PYTHONHASHSEED=0 PYTHONPATH=. .venv/bin/python benchmarks/compressor_alone.py dump '*' after.json
    PYTHONPATH=. .venv/bin/python benchmarks/compressor_alone.py diff before.json after.json

Each case runs once through ``headroom.compress()`` to learn what the router hands its
compressor (the compressor, its input, the sections when there are several); the
compressor is then called on that input directly. ``time`` reports the least CPU time of
the calling thread over 15 calls, for the compressor and for tiktoken's count of the
output (thread CPU time, not wall time: on a shared 2-core machine the wall clock mostly
measures the other sessions). ``PYTHONHASHSEED=0`` makes BM25's sums add in one order in
both runs of a dump.
"""

from __future__ import annotations

import fnmatch
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import headroom.transforms.router as R  # noqa: E402
from bench_common import MODEL  # noqa: E402
from headroom import HeadroomConfig, Pipeline, compress  # noqa: E402
from headroom.ccr.store import CompressionStore  # noqa: E402
from headroom.eval.corpus import load_cases  # noqa: E402
from headroom.tokens import counter_for  # noqa: E402
from real_corpus_bench import case_messages  # noqa: E402

_seen: dict = {}
_call = R._FirstTry.__call__
_plan = R.plan_sections


def _plan_and_keep(text):
    parts = _plan(text)
    _seen["parts"] = parts
    return parts


def _call_and_keep(self, arg=None):
    _seen["parts"] = None
    out = _call(self, arg)
    _seen["compressor"], _seen["inp"] = self.compressor, self.inp
    return out


def handed_over(case):
    """(compressor, input, sections) the router gave this case, or None."""
    _seen.clear()
    R._FirstTry.__call__, R.plan_sections = _call_and_keep, _plan_and_keep
    try:
        pipe = Pipeline(HeadroomConfig(), store=CompressionStore(max_entries=100))
        pipe.memo = R.CompressionMemo(read_store=False)
        compress(case_messages(case), model=MODEL, pipeline=pipe)
    finally:
        R._FirstTry.__call__, R.plan_sections = _call, _plan
    if _seen.get("inp") is None:
        return None
    return _seen["compressor"], _seen["inp"], _seen.get("parts")


def run(compressor, inp, parts):
    return compressor.compress(inp, parts) if parts else compressor.compress(inp)


def least_cpu_ms(fn, rounds: int = 15) -> float:
    counter = counter_for(MODEL)
    best = float("inf")
    for _ in range(rounds):
        counter._cache.clear()
        t = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t)
    return best * 1000


def cases(patterns: str):
    seen = set()
    for case in load_cases():
        if any(fnmatch.fnmatch(case.id, p) for p in patterns.split(",")) and case.content not in seen:
            seen.add(case.content)
            yield case


def main() -> None:
    mode, patterns = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "*"
    if mode == "diff":
        a, b = (json.loads(Path(p).read_text()) for p in sys.argv[2:4])
        changed = [k for k in b if k in a and a[k] != b[k]]
        for k in changed:
            print("changed:", k, b[k][0])
        print(f"{len(changed)} of {len([k for k in b if k in a])} outputs changed")
        return
    encoding = counter_for(MODEL).encoding
    dump = {}
    for case in cases(patterns):
        got = handed_over(case)
        if got is None:
            continue
        compressor, inp, parts = got
        name = type(compressor).__name__
        if mode == "dump":
            counter_for(MODEL)._cache.clear()
            r = run(compressor, inp, parts)
            dump[case.id] = [name, None if r is None or isinstance(r, str) else
                             [r.text, r.strategy, r.items_before, r.items_after, r.summary]]
            continue
        ms = least_cpu_ms(lambda: run(compressor, inp, parts))
        count = least_cpu_ms(lambda: encoding.encode(case.content, disallowed_special=()))
        print(f"{case.id[:56]:56s} {name:20s} compressor {ms:8.2f} ms  count {count:7.2f} ms  x{ms / count:5.2f}",
              flush=True)
    if mode == "dump":
        Path(sys.argv[3]).write_text(json.dumps(dump, indent=0, sort_keys=True))
        print(f"{len(dump)} outputs written to {sys.argv[3]}")


if __name__ == "__main__":
    main()
