"""Sizes sent as strings with their unit are numbers to the JSON keep plan (issue 33, eighth
session): ``lsipc --json`` and ``lsblk --json`` print "540K", "96M". Asked for the largest
item, the item holding the largest size stays, whatever unit letters the others carry."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from .tool_rounds import tool_round

UNITS = ["K", "M"]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(30, 80))
def test_the_largest_size_with_a_unit_stays(seed, n):
    rng = random.Random(seed)
    rows = [{"key": f"0x{rng.randrange(16**8):08x}", "id": str(k), "perms": "rw-r--r--", "owner": "root",
             "size": f"{rng.randrange(100, 999)}K", "nattch": "0"} for k in range(n)]
    big = rng.randrange(n)
    rows[big]["size"] = f"{rng.randrange(2, 9)}{rng.choice(['M', 'G'])}"  # fewer digits, larger value
    text = json.dumps({"sharedmemory": rows}, indent=3)
    got = tool_round("lsipc -m --json", text, "Which shared memory segment is the largest?")
    assert got != text
    assert rows[big]["key"] in got
