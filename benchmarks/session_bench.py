"""Whole agent sessions through the proxy against the same sessions sent direct.

A user pays for a session, not for one tool output: every turn resends the history, and
the provider's prompt cache discounts the prefix it has seen. This benchmark runs scripted
agent loops that execute real commands (grep, cat -n, git, pytest, tail) over real
installed packages and this machine's logs, 30–60 turns each. Each agent decides its next
command from the raw output it got (a definition site found by ``ast``, a commit found by
``git log --numstat``, a rare dpkg action found by dpkg's own field), and that decision is
the fact the next turn needs. Each session is then replayed turn by turn:

- **direct**: the bodies the agent would send, as they are;
- **proxy**: the same bodies sent through ``headroom proxy`` (in process, loopback) to a
  recording fake provider; what the provider received is what is priced.

Two delivery forms: ``tool`` (Anthropic Messages: tool_use / tool_result, with
``cache_control`` on the last block as Claude Code sends it) and ``user`` (OpenAI Chat: a
ReAct loop whose observations come back in ``user`` turns).

Measured per session and form: cumulative input tokens; cost weighted by the prompt cache
(cache reads at the provider's discount, writes at its premium, from ``prices.json``);
cache-prefix breaks caused by the proxy (a request that does not start with the previous
request's messages); facts the next turn needs, in view in the request where the agent
first reads the output.

    .venv/bin/python benchmarks/session_bench.py --json benchmarks/results/session_bench.json
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fastapi import FastAPI, Request  # noqa: E402
from fastapi.responses import JSONResponse  # noqa: E402

from headroom.config import HeadroomConfig  # noqa: E402
from headroom.providers.prices import lookup  # noqa: E402
from headroom.tokens import counter_for  # noqa: E402

SITE = Path(__import__("click").__file__).resolve().parents[1]  # the venv's site-packages
OUTPUT_CAP = 120_000  # characters of one command's output the agent keeps (both arms alike)
TOOL_MODEL, USER_MODEL = "claude-sonnet-4-5", "gpt-4.1"
SYSTEM = ("You are a coding agent working in a terminal. Run one command at a time and read its "
          "output before deciding the next step.")


# ------------------------------------------------------------------ the scripted agents


@dataclass
class Step:
    command: str
    output: str = ""
    needed: list[str] = field(default_factory=list)  # facts the next decision is based on
    why: str = ""


def sh(command: str, cwd: Path | None = None) -> str:
    proc = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, errors="replace",
                          timeout=300, env={**os.environ, "LC_ALL": "C", "COLUMNS": "120", "GIT_PAGER": "cat"})
    out = proc.stdout + proc.stderr
    return out[:OUTPUT_CAP]


def _definitions(pkg: Path) -> list[tuple[str, Path, int, int]]:
    """(name, file, first line, last line) of module-level functions and classes, by ast
    (a class's last line is its header's: reading a class is reading its outline)."""
    found = []
    for f in sorted(pkg.rglob("*.py")):
        try:
            tree = ast.parse(f.read_text(errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and len(node.name) > 5:
                last = node.lineno if isinstance(node, ast.ClassDef) else node.end_lineno or node.lineno
                found.append((node.name, f, node.lineno, last))
    return found


def code_reading_agent(pkg_name: str, turns: int, seed: int) -> Iterator[Step]:
    """Looks up symbols of a package: grep for the name, open the defining file, read the
    function the grep pointed at, grep its callers; pytest of the package's own tests when
    it ships them."""
    pkg = SITE / pkg_name
    rng = random.Random(seed)
    defs = [d for d in _definitions(pkg) if not d[1].name.startswith("test_")]
    counts = Counter(d[0] for d in defs)
    defs = [d for d in defs if counts[d[0]] == 1]  # one definition site: the fact is unambiguous
    rng.shuffle(defs)
    yield Step(f"ls -R {pkg}", why="survey the package")
    n = 1
    for name, path, first, last in defs:
        if n >= turns:
            return
        rel = path.relative_to(SITE)
        grep = sh(f"grep -rn -w {name} {pkg_name}", cwd=SITE)
        if grep.count("\n") < 3:
            continue
        def_line = f"{rel}:{first}:"
        yield Step(f"grep -rn -w {name} {pkg_name}", grep, [def_line], why=f"where is {name} defined?")
        src = path.read_text(errors="replace").splitlines()
        listing = sh(f"cat -n {rel}", cwd=SITE)
        # The next decision quotes the definition's own lines (ast's span), first and last.
        body = list(dict.fromkeys([src[first - 1].strip(), src[last - 1].strip()]))
        yield Step(f"cat -n {rel}", listing, [b for b in body if len(b) > 3], why=f"read {name}")
        n += 2
        if n < turns and rng.random() < 0.4:
            yield Step(f"grep -rn '{name}(' {pkg_name} | head -n 400", sh(f"grep -rn '{name}(' {pkg_name} | head -n 400",
                       cwd=SITE), why=f"callers of {name}")
            n += 1


def git_agent(turns: int, seed: int) -> Iterator[Step]:
    """Archaeology in this repository: log with stats, the biggest commits' diffs, blame."""
    rng = random.Random(seed)
    numstat = sh("git log --numstat --format=%H -n 400", cwd=ROOT)
    sizes: Counter[str] = Counter()
    sha = ""
    for line in numstat.splitlines():
        if re.fullmatch(r"[0-9a-f]{40}", line):
            sha = line
        elif line and sha and line[0].isdigit():
            a, d, _ = line.split("\t", 2)
            sizes[sha] += int(a) + int(d)
    biggest = [s for s, _ in sizes.most_common(40)]
    rng.shuffle(biggest)
    n = 0
    for k in range(0, 400, 60):
        if n >= turns:
            return
        out = sh(f"git log --stat -n 60 --skip {k}", cwd=ROOT)
        shas = [s for s in re.findall(r"^commit ([0-9a-f]{40})", out, re.M)]
        top = max(shas, key=lambda s: sizes.get(s, 0))
        # The agent names the commit next by git's own short form (7 hex digits, what
        # `git log --oneline` prints and every git command accepts).
        yield Step(f"git log --stat -n 60 --skip {k}", out, [top[:7]], why="which commit changed the most?")
        n += 1
        show = sh(f"git show --stat {top}", cwd=ROOT)
        yield Step(f"git show --stat {top}", show, why="what did it touch")
        n += 1
        diff = sh(f"git show {top} -- '*.py'", cwd=ROOT)
        files = re.findall(r"^\+\+\+ b/(\S+)", diff, re.M)
        yield Step(f"git show {top} -- '*.py'", diff, [f"+++ b/{f}" for f in files[:3]], why="read its Python changes")
        n += 1
    for s in biggest:
        if n >= turns:
            return
        yield Step(f"git show --stat {s}", sh(f"git show --stat {s}", cwd=ROOT), why="another large change")
        n += 1


def dpkg_agent(turns: int, seed: int) -> Iterator[Step]:
    """Ops triage of this machine's package history: read the log, find the rare actions
    (dpkg's own action field), follow each package they name."""
    rng = random.Random(seed)
    log = Path("/var/log/dpkg.log")
    lines = log.read_text(errors="replace").splitlines()
    actions = Counter(ln.split()[2] for ln in lines if len(ln.split()) > 3)
    rare = [ln for ln in lines if len(ln.split()) > 3 and actions[ln.split()[2]] <= 5]
    yield Step("cat /var/log/dpkg.log", sh("cat /var/log/dpkg.log"), rare[:20], why="rare actions")
    n = 1
    pkgs = sorted({ln.split()[3] for ln in lines if len(ln.split()) > 3 and ln.split()[2] in ("install", "upgrade")})
    rng.shuffle(pkgs)
    for term in ("apt/term.log", "alternatives.log"):
        yield Step(f"cat /var/log/{term}", sh(f"cat /var/log/{term}"), why="the other logs")
        n += 1
    for p in pkgs:
        if n >= turns:
            return
        out = sh(f"grep -n -F {p} /var/log/dpkg.log")
        installs = [ln for ln in out.splitlines() if " install " in ln]
        yield Step(f"grep -n -F {p} /var/log/dpkg.log", out, installs[:1], why=f"when was {p} installed")
        n += 1
        if n < turns and rng.random() < 0.3:
            yield Step(f"dpkg -L {p.split(':')[0]}", sh(f"dpkg -L {p.split(':')[0]}"), why="its files")
            n += 1


def pytest_agent(turns: int, seed: int) -> Iterator[Step]:
    """Runs the tests networkx ships, module by module, verbose; reads the failing or
    slowest ones. The fact: pytest's own last summary line."""
    rng = random.Random(seed)
    tests = sorted((SITE / "networkx").rglob("test_*.py"))
    rng.shuffle(tests)
    n = 0
    for t in tests:
        if n >= turns:
            return
        rel = t.relative_to(SITE)
        out = sh(f"{sys.executable} -m pytest -q -rA -p no:cacheprovider {rel}", cwd=SITE)
        last = [ln for ln in out.splitlines() if re.search(r"\d+ (passed|failed|error)", ln)]
        yield Step(f"pytest -q -rA {rel}", out, last[-1:], why="did it pass")
        n += 1


SESSIONS: dict[str, Callable[[int, int], Iterator[Step]]] = {
    "click_symbols": lambda t, s: code_reading_agent("click", t, s),
    "rich_symbols": lambda t, s: code_reading_agent("rich", t, s),
    "git_archaeology": git_agent,
    "dpkg_triage": dpkg_agent,
    "networkx_tests": pytest_agent,
}


# ------------------------------------------------------------------ bodies per form


def tool_bodies(steps: list[Step], task: str) -> list[dict[str, Any]]:
    """Anthropic Messages as Claude Code sends them: a Bash tool, cache_control on the
    last block of each request."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": task}]
    bodies = []
    for k, st in enumerate(steps):
        msgs.append({"role": "assistant", "content": [
            {"type": "text", "text": st.why or "next"},
            {"type": "tool_use", "id": f"toolu_{k:03d}", "name": "Bash", "input": {"command": st.command}}]})
        msgs.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{k:03d}", "content": st.output or "(no output)"}]})
        sent = json.loads(json.dumps(msgs))
        sent[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        bodies.append({"model": TOOL_MODEL, "max_tokens": 1024, "system": SYSTEM, "messages": sent,
                       "tools": [{"name": "Bash", "description": "Run a shell command",
                                  "input_schema": {"type": "object", "properties": {"command": {"type": "string"}},
                                                   "required": ["command"]}}]})
    return bodies


def user_bodies(steps: list[Step], task: str) -> list[dict[str, Any]]:
    """OpenAI Chat, a ReAct loop: the agent's action in an assistant turn, the command's
    output back as the next user turn."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
    bodies = []
    for st in steps:
        msgs.append({"role": "assistant", "content": f"Thought: {st.why}\nAction: bash\nAction Input: {st.command}"})
        msgs.append({"role": "user", "content": f"Observation:\n{st.output or '(no output)'}"})
        bodies.append({"model": USER_MODEL, "messages": json.loads(json.dumps(msgs))})
    return bodies


FORMS = {"tool": (tool_bodies, "/v1/messages"), "user": (user_bodies, "/v1/chat/completions")}


# ------------------------------------------------------------------ the proxy and a recording provider


def recording_provider() -> tuple[Any, list[dict[str, Any]]]:
    app, seen = FastAPI(), []

    @app.post("/v1/messages")
    async def messages(request: Request):
        seen.append(await request.json())
        return JSONResponse({"id": "msg_1", "type": "message", "role": "assistant", "model": TOOL_MODEL,
                             "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                             "usage": {"input_tokens": 1, "output_tokens": 1}})

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        seen.append(await request.json())
        return JSONResponse({"id": "c1", "object": "chat.completion", "created": 0, "model": USER_MODEL,
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": "ok"}}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    return app, seen


# ------------------------------------------------------------------ pricing with a prompt cache


class Pricer:
    """Input cost of a request sequence under the provider's prompt cache.

    Anthropic: the breakpoint on the last block writes the whole prompt; the next request
    reads the longest prefix it shares with the previous one (at least 1,024 tokens), pays
    the write premium on the rest. OpenAI: the shared prefix (≥ 1,024 tokens, in 128-token
    steps) is read at the cached price, the rest at the input price, no write premium.
    """

    def __init__(self, model: str, anthropic: bool):
        self.counter = counter_for(model)
        self.anthropic = anthropic
        self.price = lookup("anthropic" if anthropic else "openai", model)
        self._memo: dict[str, int] = {}

    def tokens(self, part: Any) -> int:
        text = part if isinstance(part, str) else json.dumps(part, sort_keys=True)
        key = hashlib.sha256(text.encode()).hexdigest()
        if key not in self._memo:
            self._memo[key] = self.counter.count(text)
        return self._memo[key]

    def parts(self, body: dict[str, Any]) -> list[Any]:
        head = [body.get("system", ""), body.get("tools", [])]
        msgs = []
        for m in body["messages"]:
            m = json.loads(json.dumps(m))
            if isinstance(m.get("content"), list):  # the moving breakpoint is not content
                for b in m["content"]:
                    b.pop("cache_control", None)
            msgs.append(m)
        return head + msgs

    def run(self, bodies: list[dict[str, Any]]) -> dict[str, Any]:
        total = read = write = 0
        cost = 0.0
        breaks = []
        prev: list[Any] = []
        for k, body in enumerate(bodies):
            parts = self.parts(body)
            sizes = [self.tokens(p) for p in parts]
            shared = 0
            while shared < min(len(prev), len(parts)) and prev[shared] == parts[shared]:
                shared += 1
            if k and shared < len(prev):
                breaks.append({"turn": k, "at_message": shared - 2, "of": len(prev) - 2})
            n = sum(sizes)
            hit = sum(sizes[:shared]) if k else 0
            if self.anthropic:
                hit = hit if hit >= 1024 else 0
                cost += hit * self.price.cached_input + (n - hit) * self.price.cache_write
                write += n - hit
            else:
                hit = (hit // 128) * 128 if hit >= 1024 else 0
                cost += hit * self.price.cached_input + (n - hit) * self.price.input
            read += hit
            total += n
            prev = parts
        return {"input_tokens": total, "cache_read_tokens": read, "cache_write_tokens": write,
                "cost_usd": round(cost / 1e6, 4), "prefix_breaks": breaks}


def last_output_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    out = []
    for b in content:
        c = b.get("content", b.get("text", ""))
        out.append(c if isinstance(c, str) else "".join(x.get("text", "") for x in c if isinstance(x, dict)))
    return "\n".join(out)


# ------------------------------------------------------------------ the run


def run(names: list[str], turns: int, seed: int) -> dict[str, Any]:
    from headroom.proxy import ProxyConfig, create_app
    from tests.servers import ServerThread

    provider, seen = recording_provider()
    results = []
    with ServerThread(provider) as up:
        cfg = ProxyConfig(port=0, openai_api_url=up.url, anthropic_api_url=up.url, metrics_db=None,
                          log_level="error")
        app = create_app(cfg, HeadroomConfig(image={"enabled": False}))
        with ServerThread(app) as proxy:
            import httpx

            client = httpx.Client(base_url=proxy.url, timeout=300,
                                  headers={"x-api-key": "k", "authorization": "Bearer k",
                                           "anthropic-version": "2023-06-01"})
            for name in names:
                t0 = time.perf_counter()
                steps = list(SESSIONS[name](turns, seed))
                gather_s = time.perf_counter() - t0
                task = f"Session {name}: investigate and report what you find."
                out_tokens = Pricer(USER_MODEL, False)
                biggest = max(out_tokens.tokens(st.output) for st in steps)
                for form, (make, path) in FORMS.items():
                    bodies = make(steps, task)
                    model = TOOL_MODEL if form == "tool" else USER_MODEL
                    seen.clear()
                    t1 = time.perf_counter()
                    for b in bodies:
                        r = client.post(path, json=b)
                        if r.status_code != 200:
                            raise SystemExit(f"{path}: {r.status_code} {r.text[:500]}")
                    proxy_s = time.perf_counter() - t1
                    sent = list(seen)
                    direct = Pricer(model, form == "tool").run(bodies)
                    via = Pricer(model, form == "tool").run(sent)
                    needed = in_view = beyond_cap = 0
                    missing = []
                    for st, body in zip(steps, sent):
                        text = last_output_text(body)
                        for fact in st.needed:
                            if fact not in st.output:  # cut off by the agent's own output cap: unseen direct too
                                beyond_cap += 1
                                continue
                            needed += 1
                            if fact in text:
                                in_view += 1
                            else:
                                missing.append({"command": st.command, "fact": fact[:120]})
                    row = {"session": name, "form": form, "model": model, "turns": len(steps),
                           "largest_output_tokens": biggest, "direct": direct, "proxy": via,
                           "cost_change": round(via["cost_usd"] / direct["cost_usd"] - 1, 4) if direct["cost_usd"] else 0,
                           "tokens_change": round(via["input_tokens"] / direct["input_tokens"] - 1, 4),
                           "facts_needed": needed, "facts_in_view": in_view, "missing": missing[:10],
                           "facts_beyond_output_cap": beyond_cap,
                           "gather_s": round(gather_s, 1), "proxy_s": round(proxy_s, 1)}
                    results.append(row)
                    print(f"{name:16} {form:4} turns={len(steps):3} largest={biggest:6} tok "
                          f"tokens {direct['input_tokens']:>9} -> {via['input_tokens']:>9} ({row['tokens_change']:+.1%}) "
                          f"cost ${direct['cost_usd']:.3f} -> ${via['cost_usd']:.3f} ({row['cost_change']:+.1%}) "
                          f"breaks={len(via['prefix_breaks'])} facts {in_view}/{needed}", flush=True)
    return {"turns": turns, "seed": seed, "output_cap_chars": OUTPUT_CAP, "sessions": results,
            "median_cost_change_large": statistics.median(
                [r["cost_change"] for r in results if r["largest_output_tokens"] > 5000] or [0])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", default=",".join(SESSIONS), help="comma-separated: " + ", ".join(SESSIONS))
    ap.add_argument("--turns", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    res = run([s for s in args.sessions.split(",") if s], args.turns, args.seed)
    res["command"] = " ".join(["benchmarks/session_bench.py", *sys.argv[1:]])
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
