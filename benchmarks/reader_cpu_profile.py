"""Where a local GGUF reader's time goes in a reader-backed eval run, request by request.

    python benchmarks/reader_cpu_profile.py MODEL.gguf [--limit N] [--families a,b]
        [--workers N] [--out FILE.json]

Runs ``run_llm`` over the smoke suite (compression config ``deterministic``) with every
request timed by llama.cpp itself: prompt tokens processed and taken from the prompt
cache, answer tokens, and the milliseconds of each. Prints the totals, the process's
CPU-seconds (all threads, llama.cpp's included) and the load average, so runs on a
shared machine can be read as CPU cost rather than wall time. ``--out`` keeps every
request and every answer (to compare two settings answer for answer).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from headroom.eval.configs import CONFIGS, EvalOptions
from headroom.eval.llm import LLMOptions, run_llm
from headroom.eval.reader import load_reader
from headroom.eval.reader_pool import ReaderPool, members
from headroom.eval.scenarios import build_suite


def process_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Timed:
    """A reader that keeps llama.cpp's timings of every request it answers."""

    def __init__(self, inner, log: list, lock: threading.Lock):
        self.inner, self.log, self.lock = inner, log, lock
        self.name = getattr(inner, "name", "reader")

    def forget(self) -> None:
        getattr(self.inner, "forget", lambda: None)()

    def complete(self, body):
        t = time.time()
        row = {"tools": bool(body.get("tools")), "max_tokens": body.get("max_tokens")}
        try:
            res = self.inner.complete(body)
        except Exception as exc:
            row.update(wall_s=round(time.time() - t, 3), error=str(exc)[:160])
            with self.lock:
                self.log.append(row)
            raise
        tm = res.get("timings") or {}
        row.update(wall_s=round(time.time() - t, 3), prompt_tokens=res.get("usage", {}).get("prompt_tokens"),
                   processed=tm.get("prompt_n"), cached=tm.get("cache_n"), prompt_ms=tm.get("prompt_ms"),
                   answer_tokens=tm.get("predicted_n"), answer_ms=tm.get("predicted_ms"),
                   answer=((res.get("choices") or [{}])[0].get("message") or {}).get("content"))
        with self.lock:
            self.log.append(row)
        return res

    def close(self) -> None:
        self.inner.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--families")
    ap.add_argument("--workers", type=int)
    ap.add_argument("--out")
    args = ap.parse_args()

    c0, t0 = process_cpu_s(), time.time()
    loaded = load_reader(args.model, "cpu", workers=args.workers)
    c1, t1 = process_cpu_s(), time.time()
    log: list = []
    lock = threading.Lock()
    timed = [Timed(m, log, lock) for m in members(loaded)]
    reader = ReaderPool(timed) if len(timed) > 1 else timed[0]
    suite = build_suite("smoke", args.families.split(",") if args.families else None)
    res = run_llm(suite, LLMOptions(f"local:{args.model}", Path(args.model).name), endpoint=reader,
                  config=CONFIGS["deterministic"].build(EvalOptions(device="cpu")), progress=False, limit=args.limit)
    c2, t2 = process_cpu_s(), time.time()

    ok = [r for r in log if "error" not in r]
    total = {
        "questions": len(res["cases"]) // 3, "requests": len(log), "rejected": len(log) - len(ok),
        "readers": len(timed), "threads_per_reader": getattr(members(loaded)[0], "threads", None),
        "prompt_tokens": sum(r["prompt_tokens"] or 0 for r in ok),
        "processed_tokens": sum(r["processed"] or 0 for r in ok), "cached_tokens": sum(r["cached"] or 0 for r in ok),
        "prompt_s": round(sum(r["prompt_ms"] or 0 for r in ok) / 1000, 1),
        "answer_tokens": sum(r["answer_tokens"] or 0 for r in ok),
        "answer_s": round(sum(r["answer_ms"] or 0 for r in ok) / 1000, 1),
        "answers_at_cap": sum(1 for r in ok if r["answer_tokens"] == r["max_tokens"]),
        "answers_over_cap": sum(1 for r in ok if (r["answer_tokens"] or 0) > (r["max_tokens"] or 0)),
        "load_wall_s": round(t1 - t0, 2), "load_cpu_s": round(c1 - c0, 2),
        "run_wall_s": round(t2 - t1, 1), "run_cpu_s": round(c2 - c1, 1),
        "original_accuracy": round(res["original_accuracy"], 3), "loadavg": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(total, indent=1))
    if args.out:
        cases = [{k: c[k] for k in ("arm", "case", "contains", "text", "error")} for c in res["cases"]]
        Path(args.out).write_text(json.dumps({"total": total, "requests": log, "cases": cases}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
