"""A log whose lines are mostly variants of one event, each with its own URL.

A package manager fetches one URL per package: every fetch line has a key of its own (the
URL differs) but they are one kind of event. URLs are values like paths: the template
tree does not route on them, so the fetches form one cluster, and the few events that
happen once (the platform, the runtime version, the working directory) stay in view.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.base import CompressInput
from headroom.compressors.logs import LogCompressor
from headroom.compressors.templates import mine
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

ONE_OFFS = ["tool verbose os Plan9 4.2.1-custom", "tool verbose runtime v7.3.9", "tool verbose cwd /srv/build/app",
            "tool info using engine@3.14.1"]


def _name(rnd: random.Random) -> str:
    return "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 12)))


def fetch_log(n: int, seed: int, scheme: str = "https", host: str = "registry.example.org") -> str:
    rnd = random.Random(seed)
    names = list(dict.fromkeys(_name(rnd) for _ in range(n * 2)))[:n]
    lines = ["tool verbose cli /usr/bin/runner /usr/bin/tool", *ONE_OFFS[:2]]
    for k, name in enumerate(names):
        if k == n // 3:
            lines.append(ONE_OFFS[2])
        if k == 2 * n // 3:
            lines.append(ONE_OFFS[3])
        cache = rnd.choice(["(cache miss)", "(cache hit)", "(cache revalidated)"])
        lines.append(f"tool http fetch GET 200 {scheme}://{host}/{name} {rnd.randint(3, 90)}ms {cache}")
    lines.append("tool verbose exit 0")
    return "\n".join(lines)


def _compress(text: str, question: str) -> str:
    cfg = HeadroomConfig()
    inp = CompressInput(text=text, config=cfg, counter=counter_for("gpt-4o"), query=question,
                        anchors=extract_anchors(question))
    out = LogCompressor().compress(inp)
    return text if out is None else out.text


@given(n=st.integers(min_value=80, max_value=300), seed=st.integers(0, 10_000),
       scheme=st.sampled_from(["https", "http", "s3", "git+ssh"]))
@settings(max_examples=25, deadline=None)
def test_urls_do_not_split_one_event_into_clusters(n, seed, scheme):
    keys = [ln for ln in fetch_log(n, seed, scheme).splitlines() if " fetch " in ln]
    from headroom.compressors.templates import keys_of

    _, miner = mine(keys_of(keys))
    sizes = sorted((c.count for c in miner.clusters), reverse=True)
    # One cluster per cache outcome at most (the last word differs), never one per URL.
    assert len(sizes) <= 3 and sum(sizes) == n


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("question", ["What unusual or one-off events does the install log contain?",
                                      "Anything out of the ordinary in there?"])
def test_the_events_that_happen_once_stay_in_view(seed, question):
    text = fetch_log(220, seed)
    out = _compress(text, question)
    assert len(out) < 0.6 * len(text), "the fetches must be folded for this test to mean anything"
    for line in ONE_OFFS:
        assert line in out
