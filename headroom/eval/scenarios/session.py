"""Long multi-turn agent sessions, for the context-budget transforms.

``size`` is the number of past turns. The session is longer than its token budget, so
RollingWindow / IntelligentContext must drop or shrink old turns; one probe asks about a
fact from an early tool output (it must stay reachable: kept, or behind a CCR marker) and
one about the latest tool output.
"""

from __future__ import annotations

import random

from .base import Probe, Scenario, ToolCall, Turn, as_lines

_FILES = ("app/settings.py", "app/models.py", "app/views.py", "deploy/values.yaml", "app/tasks.py", "README.md")


def _file_body(rng: random.Random, path: str, lines: int, extra: str | None = None) -> str:
    body = []
    for k in range(lines):
        body.append(f"{k + 1:4d}  {'    ' * (k % 3)}{rng.choice(('value', 'result', 'item', 'config'))}_{k} = "
                    f"{rng.choice(('compute', 'load', 'fetch', 'build'))}_{rng.randint(1, 99)}(ctx)")
    if extra:
        body.insert(len(body) // 2, extra)
    return as_lines([f"# {path}", *body])


def agent_session(size: int, seed: int) -> Scenario:
    rng = random.Random(f"agent_session:{seed}:{size}")
    region = f"eu-{rng.choice(('west', 'central', 'north'))}-{rng.randint(1, 9)}"
    port = rng.randint(20000, 29999)
    turns: list[Turn] = []
    for t in range(size):
        path = _FILES[t % len(_FILES)]
        extra = f"   DEPLOY_REGION = \"{region}\"  # pinned by infra ticket" if t == 1 else None
        if t == size - 1:
            extra = f"   WORKER_PORT = {port}"
        call = ToolCall("read_file", {"path": path, "turn": t}, _file_body(rng, path, 60, extra))
        turns.append(Turn(f"Step {t + 1}: look at {path} and continue the refactor.", (call,),
                          f"I read {path}; the next change is in the {rng.choice(('loader', 'view', 'task'))} layer."))
    total_chars = sum(len(c.output) for t in turns for c in t.calls)
    budget = max(1500, int(total_chars / 4 * 0.3))
    probes = [
        Probe("Which port does `WORKER_PORT` use?", str(port), (f"WORKER_PORT = {port}",), key="WORKER_PORT"),
        Probe("Which region is `DEPLOY_REGION` pinned to?", region, (region,),
              key="DEPLOY_REGION", kind="early_fact"),
    ]
    return Scenario("agent_session", size, seed, "You are a coding agent working through a refactor.",
                    turns, probes, context_budget=budget)
