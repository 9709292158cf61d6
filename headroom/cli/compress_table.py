"""The table ``headroom compress`` prints: one line per decision that matters, 80 columns.

Columns: where (system, msg N, or the whole request), kind (tool and content type, or
the transform), strategy (or what happened instead), tokens before → after, saved.
``-v`` adds each decision's reason under its line and shows the routine ones too.
Plain text, not a terminal table widget, so nothing wraps or is cut to a few letters.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

WIDTH = 80
# where, kind, strategy, tokens, saved; single spaces between: 7+24+24+16+5+4 = 80.
COLS = (7, 24, 24, 16, 5)
CHANGED = ("compressed", "moved", "shrunk", "dropped", "expanded")
_FAILED = re.compile(r"\b(error|fail(ed|ure)?|exception|timed out|time-?out|deadline|budget (is )?spent|"
                     r"unavailable)\b", re.IGNORECASE)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _row(cells: tuple[str, ...]) -> str:
    where, kind, strategy, tokens, saved = (_cut(c, w) for c, w in zip(cells, COLS))
    return (f"{where:<{COLS[0]}} {kind:<{COLS[1]}} {strategy:<{COLS[2]}} {tokens:>{COLS[3]}} "
            f"{saved:>{COLS[4]}}").rstrip()


def outcome(d: Any) -> str:
    """What happened, in the words the table uses: the action, or why it matters."""
    if d.action in ("skipped", "kept"):
        if "over budget" in d.reason and "within" not in d.reason:
            return "OVER BUDGET"
        if _FAILED.search(d.reason):
            return "FAILED"
    return d.action


def matters(d: Any, min_tokens: int) -> bool:
    """Shown without -v: every change, every failure or over-budget, every large block kept."""
    if d.action in CHANGED or outcome(d) in ("OVER BUDGET", "FAILED"):
        return True
    return d.action == "kept" and d.tokens_before >= min_tokens


def _n(x: int) -> str:
    """A token count in at most 7 characters: 17,403 · 123k · 1.35M."""
    if x < 100_000:
        return f"{x:,}"
    if x < 1_000_000:
        return f"{x / 1000:.0f}k"
    return f"{x / 1_000_000:.3g}M"


def _where(d: Any) -> str:
    if d.message_index is None:
        return "request"
    if d.message_index < 0:
        return "system"
    return f"msg {d.message_index}" + (f".{d.block_index}" if d.block_index else "")


def _kind(d: Any) -> str:
    if d.tool_name:
        return f"{d.tool_name} ({d.content_type})" if d.content_type else d.tool_name
    return d.content_type or d.transform.replace("_", " ")


def _cells(d: Any, tool_output: bool = False) -> tuple[str, ...]:
    state = outcome(d)
    if state == "compressed" and d.strategy:
        strategy = d.strategy
    elif d.strategy and state in CHANGED:
        strategy = f"{state}: {d.strategy}"
    else:
        strategy = state
    tokens = saved = ""
    if d.tokens_before or d.tokens_after:
        tokens = f"{_n(d.tokens_before)} → {_n(d.tokens_after)}"
        if d.tokens_after > d.tokens_before:
            # The cache aligner's trailer costs tokens to buy a stable prefix: a cost, not a saving.
            strategy = f"{strategy}, +{d.tokens_after - d.tokens_before:,} tok"
            saved = "-"
        elif d.tokens_before:
            share = d.tokens_saved / d.tokens_before
            # 99.7 % is not 100 %: something is left, and its marker says how to get the rest.
            saved = f"{share:.1%}" if 0.995 <= share < 1 else f"{share:.0%}"
    where = "output" if tool_output and d.message_index == 2 else _where(d)
    return where, _kind(d), strategy, tokens, saved


def render(result: Any, summary: dict[str, Any], *, verbose: bool, min_tokens: int, note: str = "",
           budget: int | None = None) -> list[str]:
    """The table's lines (each at most 80 columns)."""
    lines = [_cut(f"headroom compress: {summary['source']}", WIDTH),
             _cut(f"{summary['input']}{'' if summary['input'] == 'tool output' else ' (' + summary['format'] + ')'}, "
                  f"{summary['model']}", WIDTH)]
    if note:
        lines += textwrap.wrap(note, WIDTH)
    lines += ["", _row(("where", "kind", "strategy", "tokens", "saved"))]
    hidden = shown = 0
    for d in result.decisions:
        if not verbose and not matters(d, min_tokens):
            hidden += 1
            continue
        shown += 1
        cells = _cells(d, summary["input"] == "tool output")
        lines.append(_row(cells))
        if not verbose and outcome(d) in ("OVER BUDGET", "FAILED"):
            # A failure's reason is the point of showing it.
            lines += textwrap.wrap(d.reason, WIDTH, initial_indent="        ", subsequent_indent="        ")
        if verbose:
            if len(cells[2]) > COLS[2]:
                lines += textwrap.wrap(f"strategy: {cells[2]}", WIDTH, initial_indent="        ",
                                       subsequent_indent="        ")
            if d.reason != d.action:
                lines += textwrap.wrap(d.reason, WIDTH, initial_indent="        ",
                                       subsequent_indent="        ")
            if d.ccr_hash:
                lines.append(f"        retrieve: hash={d.ccr_hash}")
    if not shown:
        lines.append("(no block was large enough to compress)")
    lines.append("")
    pct = f"{summary['compression_ratio']:.1%}"
    lines += textwrap.wrap(f"tokens: {summary['tokens_before']:,} → {summary['tokens_after']:,} "
                           f"(saved {summary['tokens_saved']:,}, {pct}) in {summary['duration_ms']:.0f} ms", WIDTH)
    if budget is not None and summary["tokens_after"] <= budget:
        lines.append(f"fits {summary['model']}'s budget of {budget:,} tokens")
    if hidden:
        lines.append(f"{hidden} routine decision(s) hidden: -v shows them with every reason, --json has all")
    return lines
