import pytest
from tests.image.conftest import document, error_screenshot, photo

from headroom.image.siglip import SignalAnalyzer, heuristic_signals
from headroom.image.stats import legible_long_side, pixel_stats


def test_document_has_text_and_measured_line_height():
    stats = pixel_stats(document(1200, 1600, size=22, lines=30))
    sig = heuristic_signals(stats)
    assert sig["has_text"] and sig["is_document"]
    assert stats.text_lines >= 25
    assert 14 <= stats.line_height <= 28  # a 22-px font
    assert not sig["is_complex"]


def test_photo_has_no_text_and_is_complex():
    sig = heuristic_signals(pixel_stats(photo()))
    assert not sig["has_text"] and not sig["is_document"]
    assert sig["is_complex"]


def test_single_error_line_is_text_but_not_a_document():
    sig = heuristic_signals(pixel_stats(error_screenshot()))
    assert sig["has_text"]


def test_small_text_sets_small_details_and_a_legibility_floor():
    stats = pixel_stats(document(2400, 3000, size=14, lines=80))
    sig = heuristic_signals(stats)
    assert sig["has_small_details"]
    floor = legible_long_side(stats, 10.0)
    # Lines of ~13 px on a 3000-px page: text stays >= 10 px only above ~2300 px.
    assert 1800 < floor <= 3000
    # A big-font page can shrink much further.
    assert legible_long_side(pixel_stats(document(1200, 1600, size=40, lines=10)), 10.0) < 700


def test_analyzer_without_checkpoint_falls_back_to_pixel_stats(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-hf"))
    monkeypatch.delenv("HEADROOM_SIGLIP_PATH", raising=False)
    monkeypatch.delenv("HEADROOM_MODEL_DIR", raising=False)
    analyzer = SignalAnalyzer(siglip_path=None)
    signals = analyzer.analyze(document(600, 800, 20, 10))
    assert signals.source == "pixel-stats"
    assert signals.has_text
    assert "no checkpoint" in analyzer.siglip_status


def test_explicit_missing_checkpoint_path_is_reported_not_silent(tmp_path):
    analyzer = SignalAnalyzer(siglip_path=str(tmp_path / "nope"))
    assert analyzer.analyze(photo(200, 150)).source == "pixel-stats"
    assert "nope" in analyzer.siglip_status


@pytest.mark.slow
def test_tiny_siglip_runs_the_real_loading_and_inference(tiny_siglip_dir):
    analyzer = SignalAnalyzer(siglip_path=str(tiny_siglip_dir))
    signals = analyzer.analyze(document(400, 300, 18, 6))
    assert analyzer.siglip_status == "loaded"
    assert signals.source == "siglip"
    assert set(signals.scores) == {"has_text", "is_document", "is_complex", "has_small_details"}
    assert all(0.0 <= p <= 1.0 for p in signals.scores.values())
    for name, p in signals.scores.items():
        assert getattr(signals, name) == (p >= 0.5) or (name == "has_small_details" and signals.has_small_details)
    # Different pixels give different scores: the image really went through the vision tower.
    other = analyzer.analyze(photo(300, 300))
    assert other.scores != signals.scores
    # Loaded once per process: a second analyzer reuses the registry's copy.
    again = SignalAnalyzer(siglip_path=str(tiny_siglip_dir))
    assert again.scorer() is analyzer.scorer()
