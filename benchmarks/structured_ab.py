"""The structured compressor of another checkout against this one, in one process: same
output bytes, and each one's time next to tiktoken's count (issue 34).

    PYTHONPATH=. .venv/bin/python benchmarks/structured_ab.py --base /work/main \
        --cases 'config_files/*,dpkg_status/*' --rounds 21

The inputs are what the router hands ``StructuredCompressor`` for each dev case (each case
through a fresh pipeline, the compressor's ``compress`` watched). The base checkout's
``compressors/structured`` package is loaded under another name next to this one (the rest
of ``headroom`` is this checkout's), and both compress every input and claim its text,
alternately, ``--rounds`` times: the least time of each, so a busy machine slows both alike.
Prints one row per input (compress and claim ms, base -> this, tiktoken's count ms) and the
number of inputs whose output or claim differs; exits 1 when any does.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import sys
import time
from pathlib import Path

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.compressors import structured as this
from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType, detect
from headroom.eval.corpus import load_cases
from headroom.tokens import counter_for

sys.path.insert(0, str(Path(__file__).parent))
from bench_common import MODEL
from real_corpus_bench import case_messages


def load_base(root: str):
    """The base checkout's structured package, as ``headroom.compressors._base_structured``."""
    folder = Path(root) / "headroom" / "compressors" / "structured"
    name = "headroom.compressors._base_structured"
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py", submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def captured_inputs(patterns: list[str]) -> list[tuple[str, CompressInput]]:
    """(case id, input) for every call the router makes to the structured compressor."""
    seen: list[tuple[str, CompressInput]] = []
    current = [""]
    original = this.StructuredCompressor.compress

    def watch(self, inp):
        seen.append((current[0], inp))
        return original(self, inp)

    this.StructuredCompressor.compress = watch
    try:
        for case in load_cases("dev"):
            if not any(fnmatch.fnmatch(case.id, p) for p in patterns):
                continue
            if this.claim(case.content) is None and detect(case.content).type is not ContentType.TEXT:
                continue
            current[0] = case.id
            compress(case_messages(case), model=MODEL,
                     pipeline=Pipeline(HeadroomConfig(), store=CompressionStore(max_entries=100_000)))
    finally:
        this.StructuredCompressor.compress = original
    return seen


def _text(result) -> object:
    return result.text if hasattr(result, "text") else result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="root of the other checkout (e.g. /work/main)")
    ap.add_argument("--cases", default="*", help="comma-separated globs of dev case ids")
    ap.add_argument("--rounds", type=int, default=15, help="timed rounds per input (0: compare outputs only)")
    args = ap.parse_args(argv)
    base = load_base(args.base)
    enc = counter_for(MODEL).encoding
    base_c, this_c = base.StructuredCompressor(), this.StructuredCompressor()
    differ = 0
    sums = [0.0, 0.0, 0.0]
    done: set[tuple[str, str]] = set()
    for case_id, inp in captured_inputs(args.cases.split(",")):
        if (inp.text, inp.query) in done:
            continue
        done.add((inp.text, inp.query))
        if _text(base_c.compress(inp)) != _text(this_c.compress(inp)) or base.claim(inp.text) != this.claim(inp.text):
            differ += 1
            print("DIFFERS", case_id)
        if not args.rounds:
            continue
        t = [[], [], [], [], []]  # base compress, this compress, base claim, this claim, count
        for _ in range(args.rounds):
            marks = [time.perf_counter()]
            base_c.compress(inp)
            marks.append(time.perf_counter())
            this_c.compress(inp)
            marks.append(time.perf_counter())
            base.claim(inp.text)
            marks.append(time.perf_counter())
            this.claim(inp.text)
            marks.append(time.perf_counter())
            enc.encode(inp.text, disallowed_special=())
            marks.append(time.perf_counter())
            for k in range(5):
                t[k].append((marks[k + 1] - marks[k]) * 1000)
        bc, tc, bk, tk, count = (min(x) for x in t)
        sums[0] += bc + bk
        sums[1] += tc + tk
        sums[2] += count
        print(f"{case_id[:56]:56s} {inp.hint or '-':10s} {len(inp.text):7d}ch  compress {bc:6.2f} -> {tc:6.2f}  "
              f"claim {bk:5.2f} -> {tk:5.2f}  count {count:6.2f}  (compress+claim)/count {(bc + bk) / count:5.2f} -> "
              f"{(tc + tk) / count:5.2f}")
    print(f"{len(done)} inputs, {differ} differ; compress+claim {sums[0]:.1f} -> {sums[1]:.1f} ms, count {sums[2]:.1f} ms")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
