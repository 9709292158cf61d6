"""Measures one level down in each record (issue 33, tenth session).

``mpstat -o JSON`` nests each sample's numbers in a one-element ``cpu-load`` array, so the
records hold no number of their own and "at what times did user CPU spike?" found no
column to rank by: the burst's samples left view. Now a nested measure the question names
(whole, or by a word it abbreviates: "usr" for "user") keeps the records of its top values.
"""

from __future__ import annotations

import json
import random

import pytest

from headroom.compressors.smart_crusher.nested_extremes import nested_extremes
from headroom.compressors.smart_crusher.stats import field_stats

from .tool_rounds import tool_round


def _samples(rng: random.Random, burst: range, n: int = 60) -> list[dict]:
    out = []
    for k in range(n):
        usr = round(rng.uniform(96, 100), 2) if k in burst else round(rng.uniform(0, 30), 2)
        sys_ = round(rng.uniform(0, 5), 2)
        out.append({"timestamp": f"21:{23 + k // 60:02d}:{k % 60:02d}",
                    "cpu-load": [{"cpu": "all", "usr": usr, "nice": 0.0, "sys": sys_, "iowait": round(rng.uniform(0, 2), 2),
                                  "irq": 0.0, "soft": round(rng.uniform(0, 1), 2), "idle": round(100 - usr - sys_, 2)}]})
    return out


def _mpstat(samples: list[dict]) -> str:
    return json.dumps({"sysstat": {"hosts": [{"nodename": "vm", "number-of-cpus": 2, "date": "11/29/26",
                                              "statistics": samples}]}}, indent=1)


@pytest.mark.parametrize("seed", range(3))
def test_the_burst_of_a_nested_measure_the_question_abbreviates_stays(seed):
    rng = random.Random(seed)
    start = rng.randrange(10, 45)
    samples = _samples(rng, range(start, start + 2))
    got = tool_round("mpstat -o JSON 1 60", _mpstat(samples), "At what times did user CPU time spike?")
    for k in (start, start + 1):
        assert samples[k]["timestamp"] in got


def test_nothing_named_nothing_kept_and_many_named_none_in_particular():
    rng = random.Random(9)
    samples = _samples(rng, range(20, 22))
    stats = field_stats(samples, 3.0, 10)
    assert nested_extremes(samples, stats, "When did the disk fill up?") == set()
    assert nested_extremes(samples, stats, "Compare usr, sys, iowait and idle at their peaks") == set()
    assert nested_extremes(samples, stats, "When was user time highest?") >= {20, 21}
