"""The dataset generator and the head's save/load round trip (no MiniLM needed)."""

import json

import numpy as np

from headroom.image.router import RouterHead
from training.image_router import templates_test, templates_train
from training.image_router.dataset import read_groups, read_split
from training.image_router.generate import LABELS, generate
from training.image_router.train import choose_c


def test_generated_splits_are_big_balanced_disjoint_and_reproducible(tmp_path):
    info = generate(tmp_path)
    assert info["train"] + info["test"] >= 1500 and info["test"] >= 400
    train_q, train_y = read_split(tmp_path, "train")
    test_q, test_y = read_split(tmp_path, "test")
    assert set(train_y) == set(test_y) == set(LABELS)
    assert not set(train_q) & set(test_q)
    assert min(test_y.count(lab) for lab in LABELS) == max(test_y.count(lab) for lab in LABELS)
    again = tmp_path / "again"
    generate(again)
    assert (again / "train.jsonl").read_text() == (tmp_path / "train.jsonl").read_text()
    assert len(set(read_groups(tmp_path, "train"))) > 50


def test_template_banks_are_written_independently():
    for label in LABELS:
        assert not set(templates_train.TEMPLATES[label]) & set(templates_test.TEMPLATES[label])
    # Slot vocabularies barely overlap, so the held-out split tests unseen nouns too.
    for slot in ("subject", "small", "text", "region"):
        a, b = set(templates_train.SLOTS[slot]), set(templates_test.SLOTS[slot])
        assert len(a & b) <= 2, (slot, a & b)


def test_committed_data_matches_the_generator(tmp_path):
    from pathlib import Path

    generate(tmp_path)
    shipped = Path(__file__).resolve().parents[2] / "training" / "image_router" / "data"
    for split in ("train", "test"):
        assert (shipped / f"{split}.jsonl").read_text() == (tmp_path / f"{split}.jsonl").read_text()


def test_head_round_trip_and_cross_validation_on_separable_data(tmp_path):
    rng = np.random.default_rng(0)
    centres = np.eye(4, 8, dtype=np.float32) * 3
    X = np.concatenate([c + rng.normal(0, 0.3, (30, 8)) for c in centres]).astype(np.float32)
    y = [lab for lab in LABELS for _ in range(30)]
    groups = [f"{lab}/{i % 5}" for lab in LABELS for i in range(30)]
    best, scores = choose_c(X, y, groups, seed=0)
    assert scores[best] > 0.95
    head = RouterHead(rng.normal(size=(4, 8)).astype(np.float32), np.zeros(4, np.float32), list(LABELS))
    head.save(tmp_path, {"training": {"C": best}})
    loaded = RouterHead.load(tmp_path)
    assert loaded.labels == list(LABELS)
    np.testing.assert_array_equal(loaded.weights, head.weights)
    assert json.loads((tmp_path / "labels.json").read_text())["training"]["C"] == best
    probs = loaded.probabilities(X[:3])
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
