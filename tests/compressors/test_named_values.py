"""A nested record the question names by a whole value stays in view, even when that
name is inside many other records' longer strings (a package every other package
requires). Real data: the metadata of the distributions installed in this venv."""

from __future__ import annotations

import json
import re
from importlib import metadata

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.compressors.smart_crusher.keep_plan import named_value_indices


def installed() -> list[dict]:
    out = []
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if not name:
            continue
        out.append({"metadata": {"name": name, "version": dist.version, "summary": dist.metadata["Summary"] or "",
                                 "requires_dist": list(dist.requires or [])},
                    "installer": "pip", "requested": False})
    out.sort(key=lambda d: d["metadata"]["name"].lower())
    return out


def most_required(items: list[dict]) -> str:
    """The installed name found inside the most other packages' requirement strings."""
    names = {it["metadata"]["name"].lower() for it in items if len(it["metadata"]["name"]) >= 4}
    counts = {n: sum(any(n in r.lower() for r in it["metadata"]["requires_dist"]) for it in items) for n in names}
    return max(sorted(counts), key=counts.__getitem__)


def test_a_package_named_whole_is_kept_among_packages_requiring_it():
    items = installed()
    assert len(items) > 60
    name = most_required(items)
    holders = sum(any(name in r.lower() for r in it["metadata"]["requires_dist"]) for it in items)
    assert holders > 3  # the name alone is no rare word here
    report = json.dumps({"version": "1", "installed": items}, indent=1)
    question = f"Find {name} in the report: what version is it?"
    messages = [{"role": "user", "content": question},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": report}]
    out = compress(messages, model="gpt-4o", pipeline=Pipeline(HeadroomConfig(), store=CompressionStore()))
    text = out.messages[-1]["content"]
    assert len(text) < len(report) / 2
    item = next(it for it in items if it["metadata"]["name"].lower() == name)
    assert f'"name":"{item["metadata"]["name"]}","version":"{item["metadata"]["version"]}"' in text


def test_named_values_only_name_rare_holders():
    items = [{"meta": {"name": f"pkg{i}", "tags": ["common", f"t{i}"]}} for i in range(40)]
    assert named_value_indices(items, "what is pkg7 tagged with?") == {7}
    assert named_value_indices(items, "which are common?") == set()  # held by all 40
    assert named_value_indices([{"name": "pkg7", "n": 1}] * 5, "what about pkg7?") == set()  # flat: not walked


def test_the_most_requirements_ranks_the_requires_dist_lists():
    """"Declares the most requirements" names ``requires_dist`` (a shared stem, and a short
    qualifier beside it): the item with the longest list stays in view."""
    items = installed()
    top = max(items, key=lambda it: (len(it["metadata"]["requires_dist"]), it["metadata"]["name"]))
    body = json.dumps({"version": "1", "installed": items}, indent=2)
    msgs = [{"role": "user", "content": "Which installed distribution declares the most requirements?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "pip inspect"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": body}]
    out = compress(msgs, model="gpt-4o", pipeline=Pipeline(HeadroomConfig(), store=CompressionStore()))
    text = out.messages[-1]["content"]
    assert len(text) < len(body) // 2
    assert re.search(r'"name":\s*"' + re.escape(top["metadata"]["name"]) + '"', text)
