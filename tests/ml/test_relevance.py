import importlib.util
from pathlib import Path

import numpy as np
import pytest

from headroom.config import HeadroomConfig, RelevanceConfig
from headroom.ml.registry import ModelNotFound
from headroom.relevance import scorer_for
from headroom.relevance.embedding import EmbeddingScorer
from headroom.relevance.hybrid import ID_WEIGHT, WORD_WEIGHT, HybridScorer, bm25_weight, exact_ids

ROOT = Path(__file__).resolve().parents[2]


def test_scorer_for_each_mode(minilm):
    assert scorer_for(RelevanceConfig(mode="bm25")) is None
    assert isinstance(scorer_for(RelevanceConfig(mode="embedding")), EmbeddingScorer)
    assert isinstance(scorer_for(RelevanceConfig(mode="hybrid")), HybridScorer)


def test_missing_minilm_path_is_a_clear_error(tmp_path):
    with pytest.raises(ModelNotFound, match="all-minilm-l6-v2"):
        scorer_for(RelevanceConfig(mode="hybrid", model_path=str(tmp_path / "nowhere")))


def test_pipeline_hands_the_scorer_to_compressors(minilm):
    from headroom.pipeline import Pipeline

    assert isinstance(Pipeline(HeadroomConfig(relevance=RelevanceConfig(mode="hybrid"))).relevance(), HybridScorer)
    assert Pipeline(HeadroomConfig()).relevance() is None


def test_embed_is_normalised_batched_and_cached(minilm, monkeypatch):
    texts = [f"log line number {i} about disk usage" for i in range(70)]
    vecs = minilm.embed(texts, "cpu")
    assert vecs.shape == (70, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    calls = []
    real = minilm.model("cpu")
    monkeypatch.setattr(real, "encode", lambda *a, **k: calls.append(a) or None)
    again = minilm.embed(texts[::-1], "cpu")  # all cached: the model is not called
    assert calls == [] and np.array_equal(again, vecs[::-1])
    assert minilm.embed([], "cpu").shape == (0, 384)


def test_embedding_finds_paraphrases_bm25_misses(minilm):
    items = ["GET /api/users 200 OK 12ms", "POST /api/admin 403 Forbidden: role admin required", "GET /health 200 OK"]
    scores = EmbeddingScorer()("which requests were rejected for lacking permission?", items)
    assert max(range(3), key=scores.__getitem__) == 1


def test_adaptive_weight():
    assert exact_ids("what happened to ORD-4411 and user_42 in auth.py?") == ["ORD-4411", "user_42", "auth.py"]
    assert exact_ids("which pod keeps crashing?") == []
    assert bm25_weight("status of ORD-4411", [1.0, 0.0]) == ID_WEIGHT
    assert bm25_weight("which pod keeps crashing", [0.3, 0.0]) == WORD_WEIGHT
    assert bm25_weight("which pod keeps crashing", [0.0, 0.0]) == 0.0


def test_hybrid_prefers_the_exact_id_embeddings_blur(minilm):
    items = [f"ORD-44{n} status={s}" for n, s in [(10, "pending"), (11, "shipped"), (12, "cancelled"), (13, "refunded")]]
    scores = HybridScorer()("what is the status of ORD-4412?", items)
    assert max(range(4), key=scores.__getitem__) == 2


@pytest.mark.slow
def test_hybrid_beats_both_on_the_labelled_set(minilm):
    spec = importlib.util.spec_from_file_location("ml_relevance", ROOT / "benchmarks" / "ml_relevance.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cases = bench.load(bench.DATA)
    assert len(cases) >= 40 and sum(len(c["items"]) for c in cases) >= 200
    from headroom.relevance import BM25

    bm25 = bench.evaluate(lambda q, items: BM25(items).scores(q), cases)["all"]
    emb = bench.evaluate(EmbeddingScorer(), cases)["all"]
    hyb = bench.evaluate(HybridScorer(), cases)["all"]
    for k in ("recall@1", "recall@3", "mrr"):
        assert hyb[k] >= max(bm25[k], emb[k]), k
    assert hyb["recall@3"] > max(bm25["recall@3"], emb["recall@3"])


def test_hybrid_embeds_a_bounded_number_of_items(minilm, monkeypatch):
    """A 3 000-line output costs at most MAX_EMBEDDED embeddings; the item the question
    names still scores highest, and a paraphrase-only match inside the spread is found."""
    from headroom.relevance import hybrid as hy

    items = [f"2026-11-21 10:00:{i % 60:02d} INFO worker handled job-{i} in {i % 50}ms" for i in range(3000)]
    items[1750] = "2026-11-21 10:29:10 ERROR worker job-1750 failed: disk quota exceeded"
    seen: list[int] = []
    scorer = hy.HybridScorer()
    real = scorer.embedding

    def counting(query, texts):
        seen.append(len(texts))
        return real(query, texts)

    monkeypatch.setattr(scorer, "embedding", counting)
    scores = scorer("why did job-1750 fail?", items)
    assert seen == [hy.embedding_limit(items, hy.MAX_EMBEDDED, scorer.max_chars)] and hy.MIN_EMBEDDED <= seen[0] < 256
    assert sum(len(items[i]) for i in range(seen[0])) <= scorer.max_chars * 1.1  # about the character budget
    assert max(range(len(items)), key=scores.__getitem__) == 1750
    assert hy.embedding_candidates([0.0] * 10, 256) == list(range(10))
    picked = hy.embedding_candidates([0.0] * 1000, 100)
    assert len(picked) == 100 and picked[0] == 0 and picked[-1] >= 980


def test_embedding_limit_follows_the_items_length():
    from headroom.relevance import hybrid as hy

    short, long_ = ["x" * 50] * 1000, ["y" * 400] * 1000
    assert hy.embedding_limit(short, 256, 12_000) == 240
    assert hy.embedding_limit(long_, 256, 4_000) == hy.MIN_EMBEDDED > 4_000 // 400  # never below MIN_EMBEDDED
    assert hy.embedding_limit(["z" * 5000] * 10, 256, 96_000) == 96  # cut at ITEM_CHARS before averaging
    assert hy.embedding_limit(short[:10], 5, 12_000) == 5 and hy.embedding_limit([], 256, 1) == 0


def test_long_candidates_are_cut_to_the_character_budget(monkeypatch):
    """Sixteen code units of a thousand characters took 1.6 s on a 2-core CPU, past the
    router's 2 s deadline with the rest of the call: each candidate is cut to its share of
    the budget (never below MIN_ITEM_CHARS), so what is embedded stays about the budget."""
    from headroom.relevance import hybrid as hy

    assert hy.item_chars(16, 4_000) == 250 and hy.item_chars(4, 4_000) == hy.ITEM_CHARS
    assert hy.item_chars(100, 4_000) == hy.MIN_ITEM_CHARS and hy.item_chars(16, 96_000) == hy.ITEM_CHARS
    units = [f"def unit_{k}(value, options):\n    \"\"\"Convert a value of kind {k}.\"\"\"\n" + "    x = 1\n" * 120
             for k in range(40)]
    units[23] = "def parse_duration(text):\n    \"\"\"Turn '5m' or '2h' into seconds.\"\"\"\n" + "    x = 1\n" * 120
    sent: list[int] = []
    scorer = hy.HybridScorer()
    real = scorer.embedding

    def measuring(query, texts):
        sent.append(sum(map(len, texts)))
        return real(query, texts)

    monkeypatch.setattr(scorer, "embedding", measuring)
    scores = scorer("how are durations like 5m read?", units)
    assert sent and sent[0] <= scorer.max_chars * 1.1
    assert max(range(len(units)), key=scores.__getitem__) == 23
