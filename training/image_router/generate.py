"""Write the labelled query datasets as JSONL from the two template banks.

``train.jsonl`` comes from bank A (``templates_train``), ``test.jsonl`` from bank B
(``templates_test``). Slots are filled at random with a fixed seed, duplicates dropped,
and every label gets the same number of queries so accuracy is not skewed by priors.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from types import ModuleType

from . import templates_test, templates_train

LABELS = ("full_low", "preserve", "transcode", "crop")


def _fill(template: str, slots: dict[str, list[str]], rng: random.Random) -> str:
    names = [f for _, f, _, _ in string.Formatter().parse(template) if f]
    return template.format(**{n: rng.choice(slots[n]) for n in names})


def build(bank: ModuleType, per_label: int, seed: int) -> list[dict[str, str]]:
    rng = random.Random(seed)
    rows: list[dict[str, str]] = []
    for label in LABELS:
        templates = bank.TEMPLATES[label]
        seen: set[str] = set()
        attempts = 0
        while len(seen) < per_label and attempts < per_label * 50:
            attempts += 1
            t = rng.randrange(len(templates))
            q = _fill(templates[t], bank.SLOTS, rng)
            if q not in seen:
                seen.add(q)
                # The template id lets training cross-validate by template (GroupKFold).
                rows.append({"query": q, "label": label, "template": f"{label}/{t}"})
    rng.shuffle(rows)
    return rows


def write_jsonl(rows: list[dict[str, str]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def generate(out_dir: Path, train_per_label: int = 400, test_per_label: int = 150, seed: int = 13) -> dict[str, int]:
    train = build(templates_train, train_per_label, seed)
    test = build(templates_test, test_per_label, seed + 1)
    overlap = {r["query"] for r in train} & {r["query"] for r in test}
    test = [r for r in test if r["query"] not in overlap]
    write_jsonl(train, out_dir / "train.jsonl")
    write_jsonl(test, out_dir / "test.jsonl")
    return {"train": len(train), "test": len(test), "dropped_overlap": len(overlap)}
