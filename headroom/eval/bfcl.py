"""Berkeley Function Calling Leaderboard questions, read from the ``bfcl-eval`` data files.

``bfcl-eval`` pins numpy 1.26 and a dozen provider SDKs, so we never import it: we only
read its JSON-lines data. Point ``--bfcl-data`` at its ``bfcl_eval/data`` folder, or
install it without dependencies (``pip install --no-deps bfcl-eval``) and the folder is
found from the installed package. Scoring follows its answer format: the call must name
the expected function, and every parameter must take one of the allowed values (``""``
among them means the parameter may be omitted).
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_CATEGORY = "simple_python"
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}


@dataclass(frozen=True)
class BFCLItem:
    id: str
    messages: list[dict[str, Any]]
    functions: list[dict[str, Any]]
    ground_truth: list[dict[str, dict[str, list[Any]]]]


def find_data_dir(explicit: str | Path | None = None) -> Path | None:
    if explicit:
        p = Path(explicit)
        return p if p.is_dir() else None
    spec = importlib.util.find_spec("bfcl_eval")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    p = Path(next(iter(spec.submodule_search_locations))) / "data"
    return p if p.is_dir() else None


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_items(data_dir: Path, category: str = DEFAULT_CATEGORY, limit: int | None = 20) -> list[BFCLItem]:
    questions = data_dir / f"BFCL_v4_{category}.json"
    answers = data_dir / "possible_answer" / f"BFCL_v4_{category}.json"
    if not questions.exists() or not answers.exists():
        raise FileNotFoundError(f"BFCL category {category!r} not found under {data_dir}")
    truth = {a["id"]: a["ground_truth"] for a in _jsonl(answers)}
    items = []
    for q in _jsonl(questions):
        if q["id"] not in truth:
            continue
        turns = q["question"]
        items.append(BFCLItem(q["id"], list(turns[0]), q["function"], truth[q["id"]]))
        if limit and len(items) >= limit:
            break
    return items


def openai_name(name: str) -> str:
    """OpenAI function names allow [a-zA-Z0-9_-]; BFCL uses dotted names."""
    return name.replace(".", "_")


def _schema(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _schema(v) for k, v in node.items()}
        if isinstance(out.get("type"), str):
            out["type"] = _TYPES.get(out["type"], out["type"])
        return out
    if isinstance(node, list):
        return [_schema(v) for v in node]
    return node


def openai_tools(functions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": openai_name(f["name"]), "description": f.get("description", ""),
                                              "parameters": _schema(f.get("parameters", {}))}} for f in functions]


def _same(value: Any, allowed: Any) -> bool:
    if isinstance(allowed, str) and isinstance(value, str):
        return value.strip().lower() == allowed.strip().lower()
    if isinstance(allowed, (int, float)) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) == float(allowed)
    return value == allowed


def call_matches(tool_calls: list[dict[str, Any]], ground_truth: list[dict[str, dict[str, list[Any]]]]) -> bool:
    """True when the first call matches one ground-truth function with allowed values."""
    if not tool_calls:
        return False
    fn = tool_calls[0].get("function") or {}
    try:
        args = json.loads(fn.get("arguments") or "{}")
    except ValueError:
        return False
    if not isinstance(args, dict):
        return False
    for option in ground_truth:
        for name, params in option.items():
            if openai_name(name) != fn.get("name"):
                continue
            if set(args) - set(params):
                continue
            if all((p in args and any(_same(args[p], a) for a in allowed)) or (p not in args and "" in allowed)
                   for p, allowed in params.items()):
                return True
    return False


def ask_bfcl(item: BFCLItem, options: Any, llm: Any, proxy: Any, pipeline: Any) -> list[dict[str, Any]]:
    """Ask one BFCL question in each arm; ``contains`` is 1 when the call matches."""
    from ..api import compress
    from .llm import ask

    tools = openai_tools(item.functions)
    rows = []

    def body(messages: list[dict[str, Any]]) -> dict[str, Any]:
        return {"model": options.model, "messages": messages, "tools": tools, "temperature": 0,
                "max_tokens": options.max_tokens}

    def record(arm: str, ans: Any) -> None:
        ok = float(call_matches(ans.tool_calls, item.ground_truth))
        rows.append({"arm": arm, "case": item.id, "family": "bfcl", "question": item.messages[-1].get("content", ""),
                     "expected": json.dumps(item.ground_truth), "exact": ok, "contains": ok, "f1": ok,
                     "prompt_tokens": ans.prompt_tokens, "completion_tokens": ans.completion_tokens,
                     "rounds": ans.rounds, "retrieve_calls": ans.retrieve_calls, "error": ans.error, "text": ans.text})

    record("original", ask(llm, body(item.messages)))
    compressed = compress(item.messages, model=options.model, pipeline=pipeline).messages
    record("compressed", ask(llm, body(compressed)))
    if proxy is not None:
        record("proxy", ask(proxy, body(item.messages)))
    return rows
