"""uvicorn serving the ``uvicorn_access`` app under the same seeded traffic, logging through
a real structured logger: python-json-logger's ``JsonFormatter`` (installed with
``pip install --target`` into the build's scratch directory, not into the venv), one JSON
object a record. The tool output is the records as a JSON array, as a log API returns
them.

Facts independent of the compressor: an event type is the format string uvicorn's own
source passes to its logger (found with ``ast`` in the installed package: string, f-string
or a name bound to one), so a one-off is a format string the run used once; errors and
warnings are what the record's own ``levelname`` says, and the access records' status
code (a field uvicorn writes) marks failed requests: 5xx errors, 4xx warnings.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from ..cases import fact
from ..facts import json_safe, spread
from . import _catalogue
from ._pg_runs import cases
from ._run import run
from .uvicorn_access import capture

SOURCE = "uvicorn_json_logger"
JSON_LOGGER = "python-json-logger==4.2.0"
FORMAT = "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s"
LOG_CONFIG = {
    "version": 1, "disable_existing_loggers": False,
    "formatters": {"json": {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": FORMAT}},
    "handlers": {"default": {"formatter": "json", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"}},
    "loggers": {"uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
                "uvicorn.error": {"level": "INFO"},
                "uvicorn.access": {"handlers": ["default"], "level": "INFO", "propagate": False}},
}
_LEVELS = {"debug", "info", "warning", "error", "exception", "critical"}
_ACCESS = re.compile(r'^(.*?) - "(\S+) (\S+) HTTP/([\d.]+)" (\d{3})$')


def _format_string(node: ast.expr, names: dict[str, list[str]]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):  # an f-string: its interpolations are parameters
        return ["".join(v.value if isinstance(v, ast.Constant) else "%s" for v in node.values)]
    if isinstance(node, ast.Name):
        return names.get(node.id, [])
    return []


def uvicorn_catalogue() -> list[str]:
    """Every format string uvicorn's source hands to a logger call."""
    import uvicorn

    out: list[str] = []
    for path in sorted(Path(uvicorn.__file__).parent.rglob("*.py")):
        tree = ast.parse(path.read_text())
        names: dict[str, list[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                names.setdefault(node.targets[0].id, []).extend(_format_string(node.value, {}))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _LEVELS \
                    and node.args:
                out += [f.strip() for f in _format_string(node.args[0], names) if f.strip()]
    return sorted(set(out))


def _facts(records: list[dict[str, Any]], content: str) -> dict[str, list[dict[str, str]]]:
    entries = [e for e in map(_catalogue._compile, uvicorn_catalogue()) if e is not None]
    match = _catalogue.Matcher(sorted(entries, key=lambda e: (-e.literal, e.msgid)))
    messages = [str(r.get("message", "")).strip() for r in records]
    counts = _catalogue.event_counts(messages, match)
    one_offs = []
    for m in messages:
        entry = match(m)
        text = json_safe(m)
        if entry is not None and counts[entry.msgid] == 1 and text and content.count(text) == 1:
            one_offs.append(text)
    problems: list[dict[str, str]] = []
    seen: set[str] = set()
    for r, m in zip(records, messages):
        level = str(r.get("levelname", ""))
        access = _ACCESS.match(m) if r.get("name") == "uvicorn.access" else None
        status = int(access.group(5)) if access else 0
        if level in ("ERROR", "CRITICAL") or status >= 500:
            kind = "error"
        elif level == "WARNING" or status >= 400:
            kind = "warning"
        else:
            continue
        entry = match(m)
        exc = str(r.get("exc_info") or "").strip().splitlines()
        key = f"{access.group(2)} {access.group(3)} {status}" if access else exc[-1] if exc else \
            entry.msgid if entry else m
        if key in seen:
            continue
        seen.add(key)
        if access:  # the request line names the request only where no other status shares it
            text, why = json_safe(f"{access.group(2)} {access.group(3)} HTTP/{access.group(4)}"), f"status {status}"
            text = text if text and content.count(text) == 1 else None
        elif exc:  # an exception is known by the last line of its traceback
            text, why = json_safe(exc[-1]), f"levelname {level}, exc_info's last line"
        else:
            text, why = json_safe(m.splitlines()[0] if m else ""), f"levelname {level}"
        if text and text in content and all(f["text"] != text for f in problems):
            problems.append(_catalogue_fact(text, kind, f"{why} in the record uvicorn wrote; one per request or "
                                            "format string"))
    return {"one_off": [_catalogue_fact(t, "one_off", "the only record of its format string in uvicorn's source")
                        for t in spread(one_offs, 30)],
            "errors": problems}


def _catalogue_fact(text: str, kind: str, note: str) -> dict[str, str]:
    # "program-field", not "independent": these one-offs coincide with the log compressor's
    # own key singletons and levelname is a field log_records reads by name (issue 33).
    return fact(text, kind, note, basis="program-field")


def build(work: Path) -> list[dict[str, Any]]:
    target = work / "json-logger"
    run([sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--target", str(target),
         JSON_LOGGER], timeout=600)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(target), os.environ.get("PYTHONPATH")) if p)}
    text = capture(work, 1900, LOG_CONFIG, env)
    records = [json.loads(ln) for ln in text.splitlines() if ln.startswith("{")]
    content = json.dumps(records)
    return cases(SOURCE, "api_json", "json", content, _facts(records, content), what="web server's JSON log records",
                 tool_name="http_get", tool_args={"url": "http://logs.internal/api/v1/services/inventory-api/records"})
