"""The shipped router: loads offline, classifies the issue's examples, honours the floor."""

import json
from pathlib import Path

import numpy as np
import pytest

from headroom.image.router import ImageRouter, RouterHead
from headroom.ml.registry import resolve

MODEL_DIR = Path(__file__).resolve().parents[2] / "headroom" / "models" / "image_router"


def test_shipped_head_is_small_and_meets_the_targets():
    size = sum(p.stat().st_size for p in MODEL_DIR.iterdir() if p.is_file())
    assert size < 2 * 1024 * 1024
    head = RouterHead.load(MODEL_DIR)
    assert head.labels == ["full_low", "preserve", "transcode", "crop"]
    assert head.weights.shape == (4, 384)
    metrics = json.loads((MODEL_DIR / "metrics.json").read_text())
    assert metrics["split"] == "test" and metrics["examples"] >= 400
    assert metrics["accuracy"] >= 0.95
    assert all(c["recall"] >= 0.90 for c in metrics["per_class"].values())
    assert resolve("image-router").path == MODEL_DIR


def test_confidence_floor_falls_back_to_preserve():
    # A hand-made head over 2-d "embeddings": label 0 wins strongly on x, weakly on y.
    head = RouterHead(np.array([[4.0, 0.2], [0.0, 0.0]], dtype=np.float32), np.zeros(2, np.float32),
                      ["full_low", "preserve"])
    vectors = {"strong": [1.0, 0.0], "weak": [0.0, 1.0]}
    router = ImageRouter(confidence_floor=0.6, embedder=lambda qs: np.array([vectors[q] for q in qs], np.float32))
    router._head = head
    strong, weak = router.route_many(["strong", "weak"])
    assert strong.technique == "full_low" and strong.confidence > 0.9 and not strong.below_floor
    assert weak.predicted == "full_low" and weak.confidence < 0.6
    assert weak.technique == "preserve" and weak.below_floor
    assert router.route("   ").technique == "preserve"


def test_a_named_region_turns_a_gist_answer_into_crop():
    head = RouterHead(np.array([[4.0], [0.0]], dtype=np.float32), np.zeros(2, np.float32), ["full_low", "preserve"])
    router = ImageRouter(embedder=lambda qs: np.ones((len(qs), 1), np.float32))
    router._head = head
    named, bare, plain = router.route_many(["what kind of car is at the northeast corner?",
                                            "what's on the top of the cake?", "what animal is this?"])
    assert (named.technique, named.predicted, named.override) == ("crop", "full_low", "region named")
    assert bare.technique == "full_low" and plain.technique == "full_low"  # "on the top" is not a region


@pytest.mark.slow
def test_real_router_classifies_the_issue_examples(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    router = ImageRouter(confidence_floor=0.6)
    cases = {
        "What animal is this?": "full_low",
        "Count the whiskers": "preserve",
        "Read the sign": "transcode",
        "Read the error": "transcode",
        "What's in the top-left corner?": "crop",
        "Give me a one-sentence description of this photo": "full_low",
        "What does the stack trace in this screenshot say?": "transcode",
        "How many tiny screws are on the circuit board? Be exact.": "preserve",
        "What is in the bottom right of the picture?": "crop",
    }
    decisions = router.route_many(list(cases))
    got = {q: d.technique for q, d in zip(cases, decisions)}
    assert got == cases
    assert all(d.confidence >= 0.6 for d in decisions)
    # The fast forward pass gives exactly the embeddings the head was trained on.
    from headroom.image.router import _minilm_forward
    from headroom.ml.embeddings import embed

    np.testing.assert_allclose(_minilm_forward(list(cases), "cpu"), embed(list(cases)), atol=1e-5)
