"""``python -m training.image_router generate|train|evaluate`` (run from the repo root)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .dataset import DEFAULT_DATA, DEFAULT_MODEL_DIR


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.image_router")
    sub = parser.add_subparsers(dest="command", required=True)

    gen = sub.add_parser("generate", help="write train.jsonl / test.jsonl from the template banks")
    gen.add_argument("--out", type=Path, default=DEFAULT_DATA)
    gen.add_argument("--seed", type=int, default=13)

    tr = sub.add_parser("train", help="fit the head and write it to --model-dir")
    tr.add_argument("--data", type=Path, default=DEFAULT_DATA)
    tr.add_argument("--model-dir", type=Path, default=DEFAULT_MODEL_DIR)
    tr.add_argument("--device", default="auto", help="auto | cpu | cuda (MiniLM embedding device)")
    tr.add_argument("--seed", type=int, default=0)

    ev = sub.add_parser("evaluate", help="held-out metrics.json and confusion_matrix.png")
    ev.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ev.add_argument("--model-dir", type=Path, default=DEFAULT_MODEL_DIR)
    ev.add_argument("--device", default="cpu")
    ev.add_argument("--split", default="test")
    ev.add_argument("--confidence-floor", type=float, default=0.6)

    args = parser.parse_args(argv)
    if args.command == "generate":
        from .generate import generate

        result = generate(args.out, seed=args.seed)
    elif args.command == "train":
        from .train import train

        result = train(args.data, args.model_dir, args.device, args.seed)
    else:
        from .evaluate import evaluate

        result = evaluate(args.data, args.model_dir, args.device, args.split, args.confidence_floor)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
