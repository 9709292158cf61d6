"""LLMLingua-2 latency per 1 000 tokens: the tiny test model and a real-size one.

    .venv/bin/python benchmarks/ml_llmlingua.py [--device cpu|cuda] [--tokens 1000] [--repeats 3] [--skip-large]
                                                [--json out.json]

"large" is an XLM-RoBERTa-large-shaped token classifier (24 layers, hidden 1024, 16 heads,
FFN 4096, 250 002-token vocabulary, ~560 M parameters) with random weights: the same
compute as microsoft/llmlingua-2-xlm-roberta-large-meetingbank, which cannot be downloaded
here; "base" is bert-base-multilingual-cased-shaped (12 layers, hidden 768, ~177 M
parameters), the smaller LLMLingua-2 variant. Both are built once into
$HEADROOM_CACHE_DIR/bench-models and loaded through the registry like real checkpoints. Random weights keep arbitrary words, so only the
timings mean anything.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from headroom.config import HeadroomConfig, LLMLinguaConfig, RouterConfig
from headroom.compressors.llmlingua import LLMLinguaCompressor
from headroom.ml.testing import build_bert, build_xlm_roberta
from headroom.tokens import counter_for
from headroom.compressors.base import CompressInput

SENTENCES = [
    "The on-call engineer reviewed the dashboards and noticed that latency had doubled since the morning deploy.",
    "After a short discussion the team agreed to roll back the change and investigate the cache configuration.",
    "Customers in the EU region reported slow checkout pages, mostly on mobile devices with older browsers.",
    "The incident channel stayed busy for an hour while people compared graphs and shared hypotheses.",
    "Eventually someone found that the connection pool had been resized to a much smaller value by mistake.",
]


def prose(tokens: int) -> str:
    counter = counter_for("gpt-4o")
    out: list[str] = []
    i = 0
    while counter.count(" ".join(out)) < tokens:
        out.append(SENTENCES[i % len(SENTENCES)])
        i += 1
    return " ".join(out)


def large_dir() -> Path:
    base = Path(os.environ.get("HEADROOM_CACHE_DIR", Path.home() / ".cache" / "headroom")) / "bench-models"
    path = base / "random-xlm-roberta-large"
    if not (path / "config.json").exists():
        t0 = time.perf_counter()
        build_xlm_roberta(path, hidden=1024, layers=24, heads=16, intermediate=4096, vocab=2000)
        # The tokenizer stays small; the embedding table gets the real 250 002 rows.
        from transformers import XLMRobertaForTokenClassification

        model = XLMRobertaForTokenClassification.from_pretrained(path)
        model.resize_token_embeddings(250_002)
        model.save_pretrained(path)
        print(f"built {path} in {time.perf_counter() - t0:.0f}s")
    return path


def base_dir() -> Path:
    """bert-base-multilingual-cased shape: 12 layers, hidden 768, 119 547-token vocabulary."""
    base = Path(os.environ.get("HEADROOM_CACHE_DIR", Path.home() / ".cache" / "headroom")) / "bench-models"
    path = base / "random-bert-base-multilingual-cased"
    if not (path / "config.json").exists():
        t0 = time.perf_counter()
        build_bert(path, hidden=768, layers=12, heads=12, intermediate=3072, vocab=2000)
        from transformers import BertForTokenClassification

        model = BertForTokenClassification.from_pretrained(path)
        model.resize_token_embeddings(119_547)
        model.save_pretrained(path)
        print(f"built {path} in {time.perf_counter() - t0:.0f}s")
    return path


def measure(name: str, path: Path, device: str, text: str, repeats: int) -> dict:
    cfg = LLMLinguaConfig(enabled=True, device=device, model_path=str(path), min_tokens=0, timeout_ms=10**7)
    t0 = time.perf_counter()
    comp = LLMLinguaCompressor(cfg)
    comp.warm_up()
    load = time.perf_counter() - t0
    counter = counter_for("gpt-4o")
    tokens = counter.count(text)
    inp = CompressInput(text=text, config=HeadroomConfig(router=RouterConfig(timeout_ms=10**7)), counter=counter)
    comp.compress(inp)  # first call pays lazy init (allocator, kernels)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = comp.compress(inp)
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    model = comp._model().model
    params = sum(p.numel() for p in model.parameters()) / 1e6
    dtype = str(next(model.parameters()).dtype).replace("torch.", "")
    kept = f"{out.items_after}/{out.items_before} words" if out else "-"
    print(f"{name:<7} {params:>7.0f}M {comp.device:<5} {dtype:<8} load {load:>6.1f}s  {tokens} tokens: median "
          f"{med * 1000:>8.1f} ms = {med * 1000 * 1000 / tokens:>8.1f} ms per 1000 tokens  (kept {kept}, "
          f"runs {[round(t, 3) for t in times]})", flush=True)
    return {"model": name, "params_m": round(params, 1), "device": comp.device, "dtype": dtype,
            "load_s": round(load, 2), "tokens": tokens, "median_ms": round(med * 1000, 2),
            "ms_per_1000_tokens": round(med * 1e6 / tokens, 2), "runs_s": [round(t, 4) for t in times],
            "strategy": out.strategy if out else None,
            "words_before": out.items_before if out else None, "words_after": out.items_after if out else None}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--tokens", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-large", action="store_true")
    ap.add_argument("--skip-base", action="store_true")
    ap.add_argument("--json", type=Path, help="also write the rows (and the machine) to this JSON file")
    args = ap.parse_args()
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    print(f"torch {torch.__version__}, {torch.get_num_threads()} CPU threads, cuda={torch.cuda.is_available()}"
          + (f" ({gpu})" if gpu else ""), flush=True)
    text = prose(args.tokens)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rows.append(measure("tiny", build_xlm_roberta(Path(tmp) / "tiny-xlm-roberta-large"), args.device, text,
                            args.repeats))
    if not args.skip_base:
        rows.append(measure("base", base_dir(), args.device, text, args.repeats))
    if not args.skip_large:
        rows.append(measure("large", large_dir(), args.device, text, args.repeats))
    if args.json:
        args.json.write_text(json.dumps({"torch": torch.__version__, "cpu_threads": torch.get_num_threads(),
                                         "gpu": gpu, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
