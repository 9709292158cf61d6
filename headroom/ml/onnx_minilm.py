"""MiniLM sentence embeddings through onnxruntime and ``tokenizers``: no torch in the process.

Why: with torch loaded, every proxy worker cost ~650 MB RSS (issue 26). The model is
exported once, in a subprocess (``headroom.ml.onnx_export``), into the user's cache
directory under a key made of the weights' hash, and every later process only reads it.

The arithmetic is sentence-transformers' own: the tokenizer from the checkpoint's
``tokenizer.json`` (truncated to ``max_seq_length``, padded to the longest row), the same
transformer, mean pooling over the attention mask (sum / max(count, 1e-9)), then L2
normalisation (x / max(|x|, 1e-12)). Outputs match the torch path to float rounding
(cosine >= 0.9999, tested in tests/ml/test_onnx_minilm.py).

Nothing here downloads: the export reads the local weights only.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .onnx_export import FORMAT_VERSION

log = logging.getLogger(__name__)

EXPORT_TIMEOUT_S = 600
BATCH_SIZE = 64
# The files whose bytes decide the embeddings; any change means a new export.
_KEY_FILES = ("config.json", "tokenizer.json", "modules.json", "sentence_bert_config.json", "1_Pooling/config.json")
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


class OnnxUnavailable(RuntimeError):
    """The onnxruntime path cannot serve this model; the message says why."""


def cache_root() -> Path:
    base = os.environ.get("HEADROOM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "headroom")
    return Path(base) / "onnx"


def weights_digest(src: Path) -> str:
    """sha256 over the weights and the configuration files that shape the output."""
    h = hashlib.sha256(f"format {FORMAT_VERSION}\n".encode())
    weights = [name for name in _WEIGHT_FILES if (src / name).is_file()]
    if not weights:
        raise OnnxUnavailable(f"no {' or '.join(_WEIGHT_FILES)} in {src}")
    for name in (*_KEY_FILES, weights[0]):
        path = src / name
        if not path.is_file():
            continue
        h.update(f"\n{name}\n".encode())
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    # Several proxy workers warm up at once: one exports, the others wait and reuse it.
    with lock_path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ensure_export(src: Path) -> Path:
    """The export directory for the checkpoint at ``src``, made once (in a subprocess)."""
    root = cache_root()
    target = root / f"minilm-{weights_digest(src)[:24]}"
    if (target / "meta.json").is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    with _exclusive(root / (target.name + ".lock")):
        if (target / "meta.json").is_file():
            return target
        work = Path(tempfile.mkdtemp(prefix=".export-", dir=root))
        try:
            out = work / "model"
            # torch only ever loads in this child; the caller stays torch-free.
            proc = subprocess.run([sys.executable, "-m", "headroom.ml.onnx_export", str(src), str(out)],
                                  check=False, capture_output=True, text=True, timeout=EXPORT_TIMEOUT_S,
                                  env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
            if proc.returncode != 0:
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
                raise OnnxUnavailable(f"ONNX export of {src} failed (exit {proc.returncode}): {tail[0]}")
            shutil.rmtree(target, ignore_errors=True)
            os.replace(out, target)  # complete or absent, never half-written
        except subprocess.TimeoutExpired:
            raise OnnxUnavailable(f"ONNX export of {src} took over {EXPORT_TIMEOUT_S} s") from None
        finally:
            shutil.rmtree(work, ignore_errors=True)
    log.info("exported %s to ONNX at %s", src, target)
    return target


class OnnxMiniLM:
    """A loaded export: ``encode(texts)`` -> (n, d) float32 unit vectors."""

    backend = "onnxruntime"

    def __init__(self, directory: Path):
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        meta = json.loads((directory / "meta.json").read_text())
        if meta.get("format") != FORMAT_VERSION or meta.get("pooling") != "mean":
            raise OnnxUnavailable(f"{directory} holds an export this version does not read ({meta})")
        self.directory = directory
        self.dimensions = int(meta["hidden_size"])
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(int(meta["max_seq_length"]))
        self.tokenizer.enable_padding(pad_id=int(meta["pad_token_id"]))
        # Memory-mapped: only the rows of tokens actually seen become resident.
        self.table = np.load(directory / "word_embeddings.npy", mmap_mode="r")
        options = ort.SessionOptions()
        # No arena: buffers go back after each call instead of staying at the largest
        # batch's size for the life of the worker.
        options.enable_cpu_mem_arena = False
        # No pre-packed copies of the weights: the session then runs on the memory-mapped
        # encoder.data pages, which all workers share (~43 MB less private memory each,
        # ~7 ms more per short question on 2 cores; docs/proxy.md "RSS").
        options.add_session_config_entry("session.disable_prepacking", "1")
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(directory / "encoder.onnx"), options,
                                            providers=["CPUExecutionProvider"])

    def _batch(self, texts: Sequence[str]) -> Any:
        import numpy as np

        rows = self.tokenizer.encode_batch(list(texts))
        ids = np.array([r.ids for r in rows], dtype=np.int64)
        mask = np.array([r.attention_mask for r in rows], dtype=np.int64)
        types = np.array([r.type_ids for r in rows], dtype=np.int64)
        hidden = self.session.run(None, {"inputs_embeds": np.asarray(self.table[ids], dtype=np.float32),
                                         "attention_mask": mask, "token_type_ids": types})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        # Similar lengths together, as sentence-transformers does: less padding per batch.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), BATCH_SIZE):
            chunk = order[start:start + BATCH_SIZE]
            out[chunk] = self._batch([texts[i] for i in chunk])
        return out


def load(src: Path) -> OnnxMiniLM:
    """Export (once) and load MiniLM from the checkpoint at ``src``; OnnxUnavailable says why not."""
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        raise OnnxUnavailable(f"{exc.name} is not installed") from None
    return OnnxMiniLM(ensure_export(src))
