"""Many nodes naming the question's word: the one whose key says least besides comes first.

A lock file lists a package and a dozen packages named after it ("typescript" and
"@typescript-eslint/parser", "@typescript-eslint/utils", ...). "Which version of typescript
is locked?" ranked every ``version:`` under them alike and kept the first twelve in file
order, which the package itself, sorted after its namesakes, was not among.
"""

from __future__ import annotations

import random

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.base import CompressInput
from headroom.compressors.structured import StructuredCompressor
from headroom.compressors.structured.select import question_terms
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=9)


def lockfile(name: str, others: list[str], kin: list[str], rng: random.Random) -> tuple[str, str]:
    entries = {}
    for pkg in [f"@{name}-{k}/{rng.choice(others)}" for k in kin] + others + [name]:
        v = f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 30)}"
        deps = {d: f"npm:^{rng.randint(1, 5)}.0.0" for d in rng.sample(others + [name], 3)}
        entries[f"{pkg}@npm:{v}"] = {"version": v, "resolution": f"{pkg}@npm:{v}", "dependencies": deps,
                                      "checksum": f"10c0/{rng.getrandbits(128):032x}", "languageName": "node",
                                      "linkType": "hard"}
    text = yaml.safe_dump(dict(sorted(entries.items())), sort_keys=False, width=200)
    return text, next(v["version"] for k, v in entries.items() if k.startswith(name + "@npm:"))


@settings(max_examples=25, deadline=None)
@given(name=WORD, others=st.lists(WORD, min_size=30, max_size=60, unique=True),
       kin=st.lists(WORD, min_size=13, max_size=20, unique=True), seed=st.integers(0, 10_000))
def test_the_package_itself_before_its_namesakes(name, others, kin, seed):
    q = f"Which version of {name} is locked?"
    # Namesakes whose names hold another word of the question ("@x-locked/y") name more of it.
    asked = question_terms(q)
    others = [o for o in others if name not in o and o not in name and o not in asked]
    kin = [k for k in kin if k not in asked]
    if name not in asked or len(others) < 20 or len(kin) < 13:  # (a stop word names nothing)
        return
    text, version = lockfile(name, others, kin, random.Random(seed))
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=q,
                        anchors=extract_anchors(q), aggressiveness=0.5, hint="yaml")
    res = StructuredCompressor().compress(inp)
    assert res is not None and not isinstance(res, str)
    lines = res.text.split("\n")
    at = next(i for i, ln in enumerate(lines) if ln.startswith(f"{name}@npm:"))
    assert f"  version: {version}" in lines[at:at + 8] or f"  version: '{version}'" in lines[at:at + 8]
