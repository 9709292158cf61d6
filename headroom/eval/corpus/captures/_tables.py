"""Shared pieces of the table captures (``statsmodels_csv``, ``penguins_csv``): a CSV cell
as the JSON value an API would return, the "occurs once in every form" test a fact needs,
and the lookup case (one column asked by the key columns that name one row)."""

from __future__ import annotations

import json
from typing import Any

from ..cases import fact, make_case
from ..questions import choose


def json_value(token: str) -> Any:
    """The JSON value of a CSV cell: a number when JSON writes it back as the same text."""
    for conv in (int, float):
        try:
            v = conv(token)
        except ValueError:
            continue
        return v if json.dumps(v) == token else token
    return token


def once(token: str, contents: tuple[str, ...]) -> bool:
    return all(c.count(token) == 1 for c in contents)


def lookup_case(source: str, name: str, form: str, tool: str, args: dict[str, Any], content: str,
                target: dict[str, str], keys: tuple[str, ...], answer: str) -> dict[str, Any]:
    key_text = ", ".join(f"{k} {target[k]}" for k in keys)
    sid = f"{name}_{form}_lookup"
    q = choose(f"{source}/{sid}", (f"What is the {answer} for {key_text}?",
                                   f"Look up the row with {key_text} and report its {answer}."))
    return make_case(source, sid, form, tool, args, "named", q, content,
                     [fact(target[answer], "named_item", f"{answer} of the one row with {key_text}")])
