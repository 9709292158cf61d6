import pytest
from hypothesis import given
from hypothesis import strategies as st

from headroom.formats.anthropic import image_tokens as anthropic_tokens
from headroom.formats.gemini import image_tokens as gemini_tokens
from headroom.formats.openai_chat import image_tokens as openai_tokens
from headroom.image.actions import image_tokens
from headroom.image.regions import REGIONS, crop_box, find_region


@pytest.mark.parametrize("query,region", [
    ("What's in the top-left corner?", "top_left"),
    ("look at the upper-left quadrant", "top_left"),
    ("what is in the lower right corner", "bottom_right"),
    ("the bottom-left", "bottom_left"),
    ("anything on the right-hand side?", "right"),
    ("describe the left half", "left"),
    ("what's in the top part", "top"),
    ("the bottom strip of the picture", "bottom"),
    ("what sits in the centre of the image", "center"),
    ("zoom into the middle", "center"),
    ("the northeast corner", "top_right"),
    ("south-west area", "bottom_left"),
    ("What animal is this?", None),
    ("Count the whiskers", None),
])
def test_find_region(query, region):
    assert find_region(query) == region


def test_strict_mode_ignores_bare_prepositions():
    assert find_region("what's on the top of the cake?") == "top"
    assert find_region("what's on the top of the cake?", strict=True) is None
    assert find_region("the top half", strict=True) == "top"


def test_crop_boxes_cover_the_named_part():
    w, h = 800, 600
    assert crop_box("top_left", w, h) == (0, 0, 400, 300)
    assert crop_box("top_right", w, h) == (400, 0, 800, 300)
    assert crop_box("bottom_left", w, h) == (0, 300, 400, 600)
    assert crop_box("bottom_right", w, h) == (400, 300, 800, 600)
    assert crop_box("left", w, h) == (0, 0, 400, 600)
    assert crop_box("bottom", w, h) == (0, 300, 800, 600)
    assert crop_box("center", w, h) == (200, 150, 600, 450)
    # Odd sizes: the far halves still reach the edge.
    assert crop_box("bottom_right", 801, 601) == (401, 301, 801, 601)
    with pytest.raises(ValueError):
        crop_box("somewhere", w, h)


def test_openai_tile_arithmetic():
    assert openai_tokens(1024, 1024, "low") == 85
    assert openai_tokens(512, 512) == 85 + 170  # one tile
    assert openai_tokens(1024, 1024, "high") == 85 + 170 * 4  # short side 768 -> 2x2 tiles
    # 2048x4096 -> fit 2048 box (1024x2048) -> short side 768 (768x1536) -> 2x3 tiles
    assert openai_tokens(2048, 4096) == 85 + 170 * 6
    assert openai_tokens(100, 100, None) == 255


def test_anthropic_and_gemini_estimates():
    assert anthropic_tokens(750, 100) == 100
    assert anthropic_tokens(1000, 1000) == 1334
    # The API downscales big images to ~1.15 MP: the estimate is capped near 1600.
    assert 1500 <= anthropic_tokens(4000, 3000) <= 1600
    assert gemini_tokens(384, 200) == 258
    assert gemini_tokens(1000, 700) == 258 * 2
    assert image_tokens("google", 768, 768) == 258
    with pytest.raises(ValueError):
        image_tokens("acme", 1, 1)


@given(w=st.integers(min_value=32, max_value=6000), h=st.integers(min_value=32, max_value=6000),
       region=st.sampled_from(REGIONS))
def test_crop_box_is_inside_the_image_and_the_right_share(w, h, region):
    left, top, right, bottom = crop_box(region, w, h)
    assert 0 <= left < right <= w and 0 <= top < bottom <= h
    # Each side is the whole edge or half of it, give or take the pixels lost to integer
    # halving (the centre floors both margins: up to 1.5 px; checked per side, as on a 35 px
    # image that is 18 % more area, which an area tolerance mistook for a wrong crop).
    full_w = region in ("top", "bottom")
    full_h = region in ("left", "right")
    assert abs((right - left) - (w if full_w else w / 2)) <= 1.5
    assert abs((bottom - top) - (h if full_h else h / 2)) <= 1.5


@given(w2=st.integers(min_value=1, max_value=3000), h2=st.integers(min_value=1, max_value=3000),
       k=st.integers(min_value=1, max_value=8))
def test_smaller_images_never_cost_more(w2, h2, k):
    # The same aspect ratio, k times smaller. (Shrinking by a float factor truncates the
    # sides unevenly, 3195 x 0.5 -> 1597: the ratio moves by a hair, and under a provider's
    # long-edge cap that can add a token, or a tile, whatever the estimate.)
    w, h = w2 * k, h2 * k
    for provider in ("openai", "anthropic", "google"):
        assert image_tokens(provider, w2, h2) <= image_tokens(provider, w, h)
    assert openai_tokens(w, h, "low") <= openai_tokens(w, h, "high")
