"""`headroom compress FILE|-`: compress a request body and show the savings per block."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "examples" / "agent_session.json"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compress", help="compress a request body (JSON file or '-' for stdin)",
                       description="Compress an OpenAI chat / Responses / Anthropic request body or "
                                   "message list and print the savings per block.")
    p.add_argument("file", nargs="?", help="JSON file, or '-' for stdin (default: a bundled example)")
    p.add_argument("--model", default=None, help="model name (default: the body's model, else gpt-4o)")
    from ..formats import ADAPTERS

    p.add_argument("--format", choices=sorted(ADAPTERS), default=None,
                   help="wire format (default: detected)")
    p.add_argument("--query", default=None, help="the question to compress for (default: the latest user turn)")
    p.add_argument("--output", "-o", default=None, help="write the compressed body here ('-' for stdout)")
    p.add_argument("--json", action="store_true", help="print the summary and decisions as JSON")
    p.set_defaults(func=run)


def _load(path: str | None):
    if path in (None, ""):
        text, name = EXAMPLE.read_text(), str(EXAMPLE)
    elif path == "-":
        text, name = sys.stdin.read(), "stdin"
    else:
        text, name = Path(path).read_text(), path
    try:
        return json.loads(text), name
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name} is not valid JSON: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from ..api import DEFAULT_MODEL, compress

    data, name = _load(args.file)
    if not isinstance(data, (list, dict)):
        raise ValueError(f"{name}: expected a request body object or a list of messages")
    result = compress(data, model=args.model, format=args.format, query=args.query)
    model = args.model or (data.get("model") if isinstance(data, dict) else None) or DEFAULT_MODEL
    if args.output:
        out = json.dumps(result.body if isinstance(data, dict) else result.messages, ensure_ascii=False, indent=2)
        if args.output == "-":
            print(out)
            return 0
        Path(args.output).write_text(out)
    summary = {
        "source": name,
        "format": result.format,
        "model": model,
        "tokens_before": result.tokens_before,
        "tokens_after": result.tokens_after,
        "tokens_saved": result.tokens_saved,
        "compression_ratio": round(result.compression_ratio, 4),
        "transforms_applied": result.transforms_applied,
        "ccr_hashes": result.ccr_hashes,
        "duration_ms": round(result.duration_ms, 2),
    }
    if args.json:
        print(json.dumps({**summary, "decisions": [d.to_dict() for d in result.decisions]}, indent=2))
        return 0
    _print_table(result, summary)
    return 0


def _print_table(result, summary: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"headroom compress — {summary['source']} ({summary['format']}, {summary['model']})")
    for col in ("msg", "tool", "transform", "action", "type / strategy", "before", "after", "saved", "hash / reason"):
        table.add_column(col, justify="right" if col in ("msg", "before", "after", "saved") else "left")
    for d in result.decisions:
        if d.action == "skipped" and not d.tokens_before:
            continue  # tiny blocks and no-ops; --json shows everything
        saved = f"{d.tokens_saved / d.tokens_before:.0%}" if d.tokens_before else ""
        table.add_row(
            "" if d.message_index is None else str(d.message_index),
            d.tool_name or "",
            d.transform,
            d.action,
            d.strategy or d.content_type or "",
            str(d.tokens_before),
            str(d.tokens_after),
            saved,
            d.ccr_hash or d.reason,
        )
    console = Console()
    console.print(table)
    console.print(
        f"tokens: {summary['tokens_before']} -> {summary['tokens_after']} "
        f"(saved {summary['tokens_saved']}, {summary['compression_ratio']:.1%}) in {summary['duration_ms']} ms"
    )
