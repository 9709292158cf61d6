"""RollingWindow: fit the conversation into the model's context window.

When the prompt exceeds the budget (context window minus room for the answer), drop the
oldest tool units first (a tool call and all its results together), then the oldest
turns, until it fits. System prompts, the last N turns and the frozen prefix stay.
Everything dropped goes to CCR behind one marker, so the model can still ask for it.
"""

from __future__ import annotations

from ..formats import Conversation
from .base import TransformContext
from .context_units import drop_units, group_units, over_budget, report_if_still_over

NAME = "rolling_window"


class RollingWindow:
    name = NAME

    def apply(self, conv: Conversation, ctx: TransformContext) -> Conversation:
        fit = over_budget(conv, ctx, NAME)
        if fit is None:
            return conv
        budget, total = fit
        units = group_units(conv, ctx)
        candidates = [u for u in units if not u.protected and u.kind == "tool"]
        candidates += [u for u in units if not u.protected and u.kind == "turn"]
        drop = []
        for u in candidates:
            if total <= budget:
                break
            drop.append(u)
            total -= u.tokens
        drop_units(conv, ctx, drop, NAME, f"over budget ({budget} tokens); oldest first")
        report_if_still_over(conv, ctx, units, budget, NAME)
        return conv
