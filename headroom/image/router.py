"""Which technique an image needs, from the user's question.

MiniLM (all-MiniLM-L6-v2) embeds the question; a multinomial logistic-regression head
trained by ``python -m training.image_router train`` maps the 384-d unit vector to one
of four techniques:

- ``full_low``: the gist is enough (OpenAI low detail, downscale for others);
- ``preserve``: fine detail matters, send the image untouched;
- ``transcode``: the answer is the text in the image (OCR when confident);
- ``crop``: the question names a region (corner, half, centre).

The head is two numpy arrays (``head.npz``) so inference needs neither scikit-learn nor
torch (MiniLM runs through onnxruntime on CPU). Two rules follow the head: a gist answer to a
question that explicitly names a region (corner, half, side, centre) becomes ``crop``;
below ``confidence_floor`` the router answers ``preserve`` (keeping the image is never
wrong, only less frugal).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .regions import find_region

SAFE_TECHNIQUE = "preserve"
HEAD_FILE = "head.npz"
LABELS_FILE = "labels.json"


@dataclass(frozen=True)
class RouteDecision:
    technique: str  # what to do (after the region rule and the confidence floor)
    confidence: float  # probability of the head's top label
    predicted: str  # the head's top label, whatever overrode it
    probabilities: dict[str, float]
    override: str | None = None  # "region named" | "below floor" | None

    @property
    def below_floor(self) -> bool:
        return self.override == "below floor"


class RouterHead:
    """The trained classifier head: softmax(W·x + b) over the label map."""

    def __init__(self, weights: Any, bias: Any, labels: list[str]):
        if weights.shape[0] != len(labels) or bias.shape != (len(labels),):
            raise ValueError(f"head shape {weights.shape}/{bias.shape} does not match {len(labels)} labels")
        self.weights, self.bias, self.labels = weights, bias, list(labels)

    @classmethod
    def load(cls, directory: str | Path) -> RouterHead:
        import numpy as np

        directory = Path(directory)
        with np.load(directory / HEAD_FILE) as npz:
            weights, bias = npz["weights"].astype(np.float32), npz["bias"].astype(np.float32)
        labels = json.loads((directory / LABELS_FILE).read_text())["labels"]
        return cls(weights, bias, labels)

    def save(self, directory: str | Path, extra: dict[str, Any] | None = None) -> None:
        import numpy as np

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(directory / HEAD_FILE, weights=self.weights.astype(np.float32),
                            bias=self.bias.astype(np.float32))
        meta = {"labels": self.labels, "embedding_model": "all-minilm-l6-v2", "dimensions": int(self.weights.shape[1])}
        meta.update(extra or {})
        (directory / LABELS_FILE).write_text(json.dumps(meta, indent=2) + "\n")

    def probabilities(self, embeddings: Any) -> Any:
        """(n, d) unit vectors -> (n, labels) probabilities."""
        import numpy as np

        logits = embeddings @ self.weights.T + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)


def _load_head(location: Any, device: str) -> RouterHead:
    return RouterHead.load(location.path)


def _minilm_forward(texts: list[str], device: str) -> Any:
    """MiniLM sentence embeddings, uncached (questions rarely repeat).

    The same model, pooling and normalisation as ``headroom.ml.embeddings.embed`` (what the
    head was trained on): onnxruntime on CPU, so the proxy worker holds no torch, else
    sentence-transformers' direct forward pass (see ``headroom.ml.embeddings``).
    """
    from ..ml.embeddings import model

    return model(device).encode(texts)


class ImageRouter:
    """Routes questions to techniques. Loads MiniLM and the head lazily, once."""

    def __init__(self, confidence_floor: float = 0.6, device: str = "cpu", head_path: str | None = None,
                 embedder: Any = None):
        self.confidence_floor = confidence_floor
        self.device = device
        self.head_path = head_path
        # embed(texts) -> (n, 384) unit vectors; injectable so training reuses this class.
        self._embed = embedder
        self._head: RouterHead | None = None
        self._lock = threading.Lock()

    @property
    def head(self) -> RouterHead:
        with self._lock:
            if self._head is None:
                from ..ml.registry import get_model

                self._head = get_model("image-router", _load_head, "cpu", self.head_path)
            return self._head

    def _embeddings(self, texts: list[str]) -> Any:
        if self._embed is not None:
            return self._embed(texts)
        return _minilm_forward(texts, self.device)

    def route_many(self, queries: list[str]) -> list[RouteDecision]:
        if not queries:
            return []
        head = self.head
        probs = head.probabilities(self._embeddings(queries))
        out: list[RouteDecision] = []
        for query, row in zip(queries, probs):
            best = int(row.argmax())
            predicted, confidence = head.labels[best], float(row[best])
            technique, override = predicted, None
            if predicted == "full_low" and find_region(query, strict=True):
                # The labelling rule is "a named region means crop"; the head sometimes
                # hears only the gist ("check out the car at the northeast corner").
                technique, override = "crop", "region named"
            elif confidence < self.confidence_floor:
                technique, override = SAFE_TECHNIQUE, "below floor"
            out.append(RouteDecision(technique, confidence, predicted,
                                     {lab: float(p) for lab, p in zip(head.labels, row)}, override))
        return out

    def route(self, query: str) -> RouteDecision:
        """The technique for ``query``; an empty question gets the safe choice."""
        if not query or not query.strip():
            return RouteDecision(SAFE_TECHNIQUE, 0.0, SAFE_TECHNIQUE, {})
        return self.route_many([query])[0]
