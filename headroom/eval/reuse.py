"""Reusing a compression run's results when nothing that decides them has changed.

The compression half of ``headroom eval run`` is deterministic given the code, the corpus
(both in the installed ``headroom`` package), the installed dependencies (tokenizers,
models shipped as packages) and the run's options. A release engineer who runs the
compression-only suite and then the same suite with a reader (``--llm-base-url``,
``--reader``) into the same output directory waits for the same minutes twice; so the
second run reuses the first one's compression results when their fingerprints match, says
so on stderr, and runs only the reader. ``--fresh`` always recomputes.

The fingerprint hashes every file of the installed package, every installed
distribution's name and version, the Python version and machine, headroom's own
``HEADROOM_*`` settings in the environment (secrets left out) and the file listing of
``HEADROOM_MODEL_DIR``, and the options that select and shape the work (suite, families,
seeds, configurations, wire formats, resolved device, an LLMLingua-2 checkpoint's file
listing). Latencies in reused results are those
measured by the run that produced them, on the same code.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS_KEY = "fingerprint"  # in results["meta"]
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # the installed headroom package


def _package_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def _checkpoint_listing(path: str | None) -> list[str]:
    """Names, sizes and modification times of a checkpoint directory's files."""
    if not path:
        return []
    root = Path(path)
    if not root.exists():
        return [f"missing:{path}"]
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    return [f"{p.relative_to(root) if p != root else p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in files]


def fingerprint(options: dict[str, Any], llmlingua_model: str | None = None) -> str:
    """What decides a compression run's results, hashed (64 hex digits)."""
    h = hashlib.sha256()
    root = PACKAGE_ROOT
    for p in _package_files(root):
        h.update(str(p.relative_to(root)).encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions() if d.metadata["Name"])
    h.update("\n".join(dists).encode())
    h.update(f"{sys.version}|{platform.machine()}".encode())
    h.update(json.dumps(options, sort_keys=True, default=str).encode())
    h.update("\n".join(_checkpoint_listing(llmlingua_model)).encode())
    # headroom's own settings from the environment (HEADROOM_EVAL_HELDOUT adds the held-out
    # sources, HEADROOM_EXACT_TOKENS changes the counts, HEADROOM_MODEL_DIR the models),
    # secrets left out: they change no result.
    env = sorted((k, v) for k, v in os.environ.items()
                 if k.startswith("HEADROOM_") and not any(s in k for s in _SECRET_WORDS))
    h.update(json.dumps(env).encode())
    h.update("\n".join(_checkpoint_listing(os.environ.get("HEADROOM_MODEL_DIR"))).encode())
    return h.hexdigest()


def reusable(out_dir: str | Path, fp: str) -> dict[str, Any] | None:
    """The compression results saved in ``out_dir`` when they carry ``fp``, else None
    (no results there, unreadable, or made by other code, corpus or options). A reader
    section they hold is dropped: the caller asks its own reader again, or none."""
    path = Path(out_dir) / "results.json"
    try:
        results = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(results, dict) or results.get("meta", {}).get(RESULTS_KEY) != fp:
        return None
    results.pop("llm", None)
    return results
