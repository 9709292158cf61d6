"""Reading the JSONL splits and embedding them with MiniLM (with a progress bar)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path("training/image_router/data")
DEFAULT_MODEL_DIR = Path("headroom/models/image_router")
CHUNK = 64


def read_groups(data_dir: Path, split: str) -> list[str]:
    """The template id of every row (rows without one form their own group)."""
    path = Path(data_dir) / f"{split}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r.get("template") or f"row{i}" for i, r in enumerate(rows)]


def read_split(data_dir: Path, split: str) -> tuple[list[str], list[str]]:
    path = Path(data_dir) / f"{split}.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found; run `python -m training.image_router generate` first")
    queries, labels = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            queries.append(row["query"])
            labels.append(row["label"])
    return queries, labels


def embed_all(texts: list[str], device: str, desc: str) -> Any:
    import numpy as np
    from tqdm import tqdm

    from headroom.ml.embeddings import embed

    chunks = [embed(texts[i:i + CHUNK], device) for i in tqdm(range(0, len(texts), CHUNK), desc=desc, unit="batch")]
    return np.concatenate(chunks) if chunks else np.zeros((0, 384), dtype=np.float32)
