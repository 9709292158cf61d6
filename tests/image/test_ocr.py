import pytest
from tests.image.conftest import error_screenshot, photo

from headroom.image.ocr import _with_spaces, _word_gap_ratio, read_text


def test_word_gap_split_learns_letter_vs_word_gaps():
    # Letter gaps ~0.05-0.1 of the ink height, word gaps ~0.3: the split falls between.
    ratio = _word_gap_ratio([0.05, 0.08, 0.1, 0.06, 0.3, 0.32, 0.07, 0.29])
    assert 0.1 < ratio <= 0.29
    # One population of narrow gaps: no spaces invented.
    assert _word_gap_ratio([0.05, 0.06]) == 0.3


def test_spaces_go_where_gaps_fall_between_characters():
    boxes = [[[x, 0], [x + 8, 0], [x + 8, 10], [x, 10]] for x in (0, 10, 30, 40)]
    assert _with_spaces(list("abcd"), boxes, gaps=[24.0]) == "ab cd"
    assert _with_spaces(list("abcd"), boxes, gaps=[]) == "abcd"


@pytest.mark.slow
def test_ocr_reads_a_rendered_error_screenshot():
    result = read_text(error_screenshot())
    assert "connection refused on port 5432" in result.text
    assert "db.py line 17" in result.text
    assert result.confidence > 0.9
    assert result.text.splitlines()[0].startswith("Error")  # reading order


@pytest.mark.slow
def test_ocr_finds_nothing_in_a_photo():
    result = read_text(photo(480, 360))
    assert result.confidence < 0.85 or not result.text
