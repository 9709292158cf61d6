"""Session fixtures: tiny LLMLingua-2-shaped checkpoints and the real MiniLM, built/loaded once."""

from __future__ import annotations

import os

import pytest

# The LLMLingua-2 tests run on the CPU; HEADROOM_TEST_ML_DEVICE=cuda runs the same tests on a
# GPU (fp16 there), as docs/gpu.md did. An unusable value fails loudly (DeviceUnavailable).
ML_DEVICE = os.environ.get("HEADROOM_TEST_ML_DEVICE", "cpu")


@pytest.fixture(scope="session")
def ml_device():
    return ML_DEVICE


@pytest.fixture(scope="session")
def tiny_xlm_dir(tmp_path_factory):
    from headroom.ml.testing import build_xlm_roberta

    # The directory name matters to the llmlingua package (not to us); keep it realistic.
    return build_xlm_roberta(tmp_path_factory.mktemp("models") / "tiny-llmlingua-2-xlm-roberta-large")


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory):
    from headroom.ml.testing import build_bert

    return build_bert(tmp_path_factory.mktemp("models") / "tiny-llmlingua-2-bert-base-multilingual-cased")


@pytest.fixture(scope="session")
def xlm_compressor(tiny_xlm_dir, ml_device):
    from headroom.config import LLMLinguaConfig
    from headroom.compressors.llmlingua import LLMLinguaCompressor

    return LLMLinguaCompressor(LLMLinguaConfig(enabled=True, device=ml_device, model_path=str(tiny_xlm_dir),
                                                min_tokens=20))


@pytest.fixture(scope="session")
def minilm():
    """Warm the real MiniLM once; embedding tests then only pay inference."""
    from headroom.ml import embeddings

    embeddings.embed(["warm up"], "cpu")
    return embeddings
