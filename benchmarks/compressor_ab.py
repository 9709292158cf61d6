"""Another checkout's copies of some compressor modules against this tree's, in one
process, alternated call by call (issue 34's speed work).

    PYTHONPATH=. .venv/bin/python benchmarks/compressor_ab.py /work/main \\
        headroom/compressors/text.py,headroom/compressors/bm25_fast.py 'man_pages/*' [rounds]

The modules named are loaded a second time from the other checkout (their references to
one another rewired to those copies); the compressor class the router picks for a case
must live in one of them. Each round calls the old compressor, then this tree's, on the
input the router hands it (``compressor_alone.handed_over``), then tiktoken's count of
the output; the least thread CPU time of the rounds is reported for each. Alternating in
one process is what makes a 5-10 % difference readable on a shared machine, where two
runs minutes apart differ by 30-60 % (wall and even CPU time follow the other sessions).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_common import MODEL
from compressor_alone import cases, handed_over, run

from headroom.tokens import counter_for


def load_other(root: str, paths: list[str]) -> dict:
    """Module name -> the module loaded from ``root``, rewired to the other copies."""
    olds = {}
    for rel in paths:
        name = rel[:-3].replace("/", ".")
        importlib.import_module(name)
        spec = importlib.util.spec_from_file_location(name + "_other", str(Path(root) / rel))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name + "_other"] = mod  # dataclasses look their module up
        spec.loader.exec_module(mod)
        olds[name] = mod
    for mod in olds.values():
        for attr, value in list(vars(mod).items()):
            source = getattr(value, "__module__", None)
            if source in olds and hasattr(olds[source], attr):
                setattr(mod, attr, getattr(olds[source], attr))
    return olds


def main() -> None:
    root, paths, patterns = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 15
    olds = load_other(root, paths)
    counter = counter_for(MODEL)
    for case in cases(patterns):
        got = handed_over(case)
        if got is None:
            continue
        comp, inp, parts = got
        cls = type(comp)
        if cls.__module__ not in olds:
            print(f"{case.id}: {cls.__name__} is not in the modules named", flush=True)
            continue
        try:
            other = getattr(olds[cls.__module__], cls.__name__)()
        except TypeError:  # built with arguments by the router (SectionsCompressor): not here
            print(f"{case.id}: {cls.__name__} needs the router's arguments", flush=True)
            continue
        best = {"other": float("inf"), "this": float("inf"), "count": float("inf")}
        for _ in range(rounds):
            for which, c in (("other", other), ("this", comp)):
                counter._cache.clear()
                t = time.thread_time()
                run(c, inp, parts)
                best[which] = min(best[which], time.thread_time() - t)
            t = time.thread_time()
            counter.encoding.encode(case.content, disallowed_special=())
            best["count"] = min(best["count"], time.thread_time() - t)
        o, n, c = (best[k] * 1000 for k in ("other", "this", "count"))
        print(f"{case.id[:50]:50s} {cls.__name__:18s} other {o:7.2f} this {n:7.2f} ms ({(n / o - 1) * 100:+4.0f} %)"
              f"  count {c:6.2f}  x{o / c:.2f} -> x{n / c:.2f}", flush=True)


if __name__ == "__main__":
    main()
