"""``ruff check`` (the shared venv's ruff, isolated from any config) over real installed
packages' code, as concise text and as ruff's JSON report."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import json_safe, spread, unique_in
from ..questions import choose, pick
from ._run import run

SOURCE = "ruff_check"
RULES = "E,W,F,B,UP,SIM,PL,RUF"
TARGETS = (("requests_httpx", ("requests", "httpx")), ("click", ("click",)))


def _ruff(site: Path, fmt: str, targets: tuple[str, ...]) -> str:
    ruff = Path(sys.executable).with_name("ruff")
    cmd = [str(ruff), "check", "--isolated", "--no-cache", "--select", RULES, "--output-format", fmt, *targets]
    return run(cmd, check=False, cwd=site).stdout


def build(work: Path) -> list[dict[str, Any]]:
    import requests  # locates site-packages (httpx and click are installed beside it)

    site = Path(requests.__file__).parents[1]
    out = []
    for name, targets in TARGETS:
        text, js = _ruff(site, "concise", targets), _ruff(site, "json", targets)
        items = json.loads(js)
        cmd = f"ruff check --select {RULES} " + " ".join(targets)
        args_text = {"command": cmd}
        args_json = {"command": cmd + " --output-format json"}
        codes = Counter(i["code"] for i in items)
        rare = [f for i in items if codes[i["code"]] == 1 and (f := json_safe(i["message"], 12)) and unique_in(f, (text, js))]
        per_file = Counter(str(Path(i["filename"]).relative_to(site)) for i in items)
        worst, n = per_file.most_common(1)[0]
        for form, content, args in (("text", text, args_text), ("json", js, args_json)):
            sid = f"{name}_{form}"
            if rare:
                out.append(make_case(SOURCE, f"{sid}_one_off", form, "bash", args, "one_off",
                                     pick("one_off", f"{SOURCE}/{sid}_one_off", "lint report"), content,
                                     [fact(t, "one_off", "message of a rule code reported exactly once")
                                      for t in spread(rare, 25)]))
            q = choose(f"{SOURCE}/{sid}_worst", ("Which file has the most lint findings?",
                                                  "Where should we start cleaning up: which module did ruff flag most often?"))
            out.append(make_case(SOURCE, f"{sid}_worst", form, "bash", args, "extreme", q, content,
                                 [fact(worst, "extreme", f"file with the most findings ({n})")]))
    return out
