"""`headroom compress FILE|-`: compress a request body, a message list or a tool output,
and show what was done to each block."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

from .compress_input import (
    BODY,
    MESSAGES,
    TOOL_OUTPUT,
    classify,
    compressed_tool_output,
    read_text,
    tool_output_body,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "data" / "examples" / "agent_session.json"
EXIT_OVER_WINDOW = 3


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compress", help="compress a request body, message list or tool output (file or '-')",
                       description="Compress an OpenAI chat / Responses / Anthropic / Gemini request body, a "
                                   "message list, or a raw tool output (a log, a JSON array of rows, any text), "
                                   "and print what was done to each block. Exit 3 when the result still does "
                                   "not fit the model's context budget.")
    p.add_argument("file", nargs="?", help="input file, or '-' for stdin (default: a bundled example)")
    p.add_argument("--model", default=None, help="model name (default: the body's model, else gpt-4o)")
    from ..formats import ADAPTERS

    p.add_argument("--format", choices=sorted(ADAPTERS), default=None, metavar="FORMAT",
                   help=f"wire format of a request body: {', '.join(sorted(ADAPTERS))} (default: detected)")
    p.add_argument("--as-tool-output", action="store_true",
                   help="compress the whole file as one tool output, even if it parses as a body")
    p.add_argument("--question", "--query", dest="query", default=None, metavar="QUESTION",
                   help="the question to compress for (default: the latest user turn; none for a tool output)")
    p.add_argument("--tool-name", default="tool_output", help="tool name for a tool output (default: tool_output)")
    p.add_argument("--output", "-o", default=None,
                   help="write the compressed body (or tool output) here ('-' for stdout)")
    p.add_argument("--json", action="store_true", help="print the summary and every decision as JSON")
    p.add_argument("-v", "--verbose", action="store_true", help="every decision, each with its reason")
    p.add_argument("--fail-over-window", action=argparse.BooleanOptionalAction, default=True,
                   help="exit 3 when the result still does not fit the model's budget (default: on)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..api import DEFAULT_MODEL, compress

    text, name = read_text(args.file, EXAMPLE)
    given = classify(text, name, as_tool_output=args.as_tool_output, fmt=args.format)
    if given.kind == TOOL_OUTPUT:
        model = args.model or DEFAULT_MODEL
        body = tool_output_body(given.data, model=model, tool_name=args.tool_name, question=args.query)
        result = compress(body, model=model, query=args.query or "")
    else:
        data = given.data
        model = args.model or (data.get("model") if given.kind == BODY else None) or DEFAULT_MODEL
        result = compress(data, model=args.model, format=args.format, query=args.query)
    if args.output:
        if given.kind == TOOL_OUTPUT:
            out = compressed_tool_output(result.body)
        else:
            out = json.dumps(result.body if given.kind == BODY else result.messages, ensure_ascii=False, indent=2)
        if args.output == "-":
            print(out)
            return 0
        Path(args.output).write_text(out, encoding="utf-8")
    summary = {
        "source": name,
        "input": given.kind,
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
    budget = _budget(result, model)
    over = budget is not None and result.tokens_after > budget
    if args.json:
        print(json.dumps({**summary, "decisions": [d.to_dict() for d in result.decisions]}, indent=2))
    else:
        from ..config import HeadroomConfig
        from .compress_table import render

        lines = render(result, summary, verbose=args.verbose, min_tokens=HeadroomConfig().router.min_tokens,
                       note=given.note, budget=budget)
        print("\n".join(lines))
    if over:
        print(f"headroom compress: warning: {result.tokens_after:,} tokens still do not fit {model}'s budget of "
              f"{budget:,} (its window minus room for the answer): drop old turns, give --model a larger window, "
              "or set context.max_tokens", file=sys.stderr)
        return EXIT_OVER_WINDOW if args.fail_over_window else 0
    return 0


def _budget(result, model: str) -> int | None:
    """The prompt budget the context stage works to (None when that stage is off)."""
    from ..config import HeadroomConfig
    from ..transforms.context_units import token_budget

    config = HeadroomConfig()
    if config.context.strategy == "off":
        return None
    return token_budget(result.conversation, SimpleNamespace(config=config, model=model))


__all__ = ["BODY", "MESSAGES", "TOOL_OUTPUT", "register", "run"]
