"""`headroom models`: which optional models are present, where, and on which device."""

from __future__ import annotations

import argparse
import json
import time


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="list optional models (present/missing, path, device)",
                       description="List the optional models headroom can use, where each resolves on disk "
                                   "(nothing is ever downloaded) and which device 'auto' picks.")
    p.add_argument("--device", default="auto", help="device to report/load on: auto, cpu, cuda, mps (default auto)")
    p.add_argument("--load", action="store_true",
                   help="also load the present MiniLM/LLMLingua-2 models once and report load time")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def _try_load(name: str, path: str, device: str) -> str:
    t0 = time.perf_counter()
    try:
        if name == "all-minilm-l6-v2":
            from ..ml.embeddings import embed

            embed(["load check"], device, path)
        elif name.startswith("llmlingua-2"):
            from ..compressors.llmlingua import LLMLinguaCompressor
            from ..config import LLMLinguaConfig

            model_name = "bert-base-multilingual" if "bert-base" in name else "xlm-roberta-large"
            LLMLinguaCompressor(LLMLinguaConfig(enabled=True, device=device, model_path=path,
                                                model_name=model_name)).warm_up()
        else:
            return "not loaded here (used by the image pipeline)"
    except Exception as exc:  # noqa: BLE001 - report any load failure, keep listing
        return f"load FAILED: {type(exc).__name__}: {exc}"
    return f"loaded in {time.perf_counter() - t0:.1f}s"


def run(args: argparse.Namespace) -> int:
    from ..ml.registry import resolve_device, status

    device = resolve_device(args.device)
    rows = status()
    for row in rows:
        row["device"] = device if row["present"] else None
        if args.load and row["present"]:
            row["load"] = _try_load(row["name"], row["path"], device)
    if args.json:
        print(json.dumps({"device": device, "models": rows}, indent=2))
        return 0
    print(f"device: {device} (from --device {args.device})")
    for row in rows:
        mark = "present" if row["present"] else "missing"
        print(f"\n{row['name']:<36} {mark}")
        print(f"  {row['description']}")
        if row["present"]:
            print(f"  path:   {row['path']}  (source: {row['source']})")
            if row.get("load"):
                print(f"  load:   {row['load']}")
        else:
            print(f"  how:    {row['hint']}")
    return 0
