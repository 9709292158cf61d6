"""A listing keeps its smallest rows when the question asks for them (real ``wc -l``).

It kept the largest values of each numeric column only: "which module is the shortest?"
over ``wc -l *.py`` lost the answer to the marker.
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from headroom.compressors.base import CompressInput
from headroom.compressors.listing import ListingCompressor
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for


def listing(text: str, query: str) -> str:
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=query,
                        anchors=extract_anchors(query), aggressiveness=0.5)
    res = ListingCompressor().compress(inp)
    assert res is not None
    return res.text


@pytest.mark.skipif(shutil.which("wc") is None, reason="needs wc")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_real_wc_keeps_the_shortest_file_when_asked(tmp_path, seed):
    rng = random.Random(seed)
    sizes = rng.sample(range(3, 900), 60)
    for i, n in enumerate(sizes):
        (tmp_path / f"mod_{i:02d}.py").write_text("x = 1\n" * n)
    out = subprocess.run("wc -l *.py", shell=True, cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    shortest = f"mod_{sizes.index(min(sizes)):02d}.py"
    longest = f"mod_{sizes.index(max(sizes)):02d}.py"
    assert shortest in listing(out, "Which module is the shortest?")
    assert longest in listing(out, "Which module has the most lines?")
    assert shortest not in listing(out, "Which module has the most lines?") or sizes.index(min(sizes)) in (0, 59)
