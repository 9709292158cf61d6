"""LLMLingua-2 conformance: our token-classification path (headroom/compressors/llmlingua.py)
keeps the same words as the field's reference, ``llmlingua.PromptCompressor(use_llmlingua2=True)``,
on the same checkpoint, at the same rate and with the same forced words.

The checkpoint is a tiny random XLM-RoBERTa built here (headroom.ml.testing); the
reference picks its word splitter from the directory name, so the name says
``xlm-roberta-large``. Texts stay inside one 512-token chunk: the reference thresholds
each chunk on its own, we threshold a whole output once (documented in _above_threshold).
"""

from __future__ import annotations

import random
import warnings

import pytest

pytest.importorskip("transformers")
pytest.importorskip("llmlingua")

# Prose words our own heuristics never force (no digits, identifiers, paths or error words).
_VOCAB = ("the team reviewed open action items from previous sync and agreed to keep current scope several "
          "people raised concerns about timeline but blocking issues were identified this week discussion "
          "moved on hiring onboarding material offsite planning for next quarter dashboards are slow in "
          "mornings which will be looked at by platform group").split()


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    from headroom.ml.testing import build_xlm_roberta
    from headroom.tokens import get_encoding

    get_encoding("cl100k_base")  # the reference needs tiktoken's cl100k file: install the offline copy
    return build_xlm_roberta(tmp_path_factory.mktemp("ll2") / "llmlingua-2-xlm-roberta-large-meetingbank")


@pytest.fixture(scope="module")
def both(checkpoint):
    from llmlingua import PromptCompressor

    from headroom.compressors.llmlingua import LLMLinguaCompressor
    from headroom.config import LLMLinguaConfig

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = PromptCompressor(model_name=str(checkpoint), use_llmlingua2=True, device_map="cpu")
    ours = LLMLinguaCompressor(LLMLinguaConfig(enabled=True, model_path=str(checkpoint), device="cpu"))
    return reference, ours


def _reference_kept(reference, text: str, rate: float, force: list[str]) -> list[str]:
    res = reference.compress_prompt(text, rate=rate, force_tokens=force, return_word_label=True)
    pairs = [p.rsplit(" ", 1) for p in res["fn_labeled_original_prompt"].split("\t\t|\t\t")]
    assert [w for w, _ in pairs] == text.split()  # same words, so the labels line up
    return [w for w, label in pairs if label == "1"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("rate", [0.3, 0.5, 0.7])
def test_same_words_kept_as_the_reference(both, seed, rate):
    reference, ours = both
    rng = random.Random(seed)
    text = " ".join(rng.choice(_VOCAB) for _ in range(60))
    kept, before, after = ours.compress_text(text, rate)
    assert kept.split() == _reference_kept(reference, text, rate, [])
    assert before == 60 and 0 < after < 60


@pytest.mark.slow
def test_numbers_are_forced_by_both_and_the_rest_agrees(both):
    # Our path always keeps words with digits; the reference does with force_reserve_digit.
    reference, ours = both
    rng = random.Random(7)
    words = [rng.choice(_VOCAB) for _ in range(60)]
    for i in (5, 23, 41):
        words[i] = str(rng.randint(10, 99))
    text = " ".join(words)
    kept, _, _ = ours.compress_text(text, 0.4)
    res = reference.compress_prompt(text, rate=0.4, force_reserve_digit=True, return_word_label=True)
    pairs = [p.rsplit(" ", 1) for p in res["fn_labeled_original_prompt"].split("\t\t|\t\t")]
    assert [w for w, _ in pairs] == words
    expected = [w for w, label in pairs if label == "1"]
    assert all(words[i] in kept.split() for i in (5, 23, 41))
    assert kept.split() == expected
