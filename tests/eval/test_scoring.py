from __future__ import annotations

import pytest

from headroom.eval.evidence import check_evidence
from headroom.eval.scoring import bootstrap_delta, contains, exact_match, normalize, token_f1


def test_normalize_keeps_value_characters():
    assert normalize("The total is 123.45.") == "the total is 123.45"
    assert normalize("req-00ab, at 2026-03-04T08:00:00Z!") == "req-00ab at 2026-03-04t08:00:00z"


def test_exact_contains_f1():
    assert exact_match("  36 Months. ", "36 months")
    assert not exact_match("36 months of cover", "36 months")
    assert contains("It is covered for 36 months.", "36 months")
    assert not contains("It is covered for 24 months.", "36 months")
    assert token_f1("36 months", "36 months") == 1.0
    assert token_f1("24 weeks", "36 months") == 0.0
    assert token_f1("the warranty is 36 months", "36 months") == pytest.approx(2 * 0.4 * 1 / 1.4)


def test_bootstrap_delta_brackets_the_mean_and_is_deterministic():
    base = [1, 1, 0, 1, 0, 1, 1, 0, 1, 1] * 5
    other = [1, 0, 0, 1, 0, 1, 0, 0, 1, 1] * 5
    d = bootstrap_delta(base, other, rounds=500, seed=3)
    assert d["mean"] == pytest.approx(-0.2)
    assert d["lo"] <= d["mean"] <= d["hi"] and d["lo"] < d["hi"] <= 0
    assert bootstrap_delta(base, other, rounds=500, seed=3) == d
    assert bootstrap_delta(base, base)["hi"] == 0
    with pytest.raises(ValueError):
        bootstrap_delta([1], [1, 0])


def test_evidence_is_kept_recoverable_or_lost():
    ev = check_evidence(("a1", "b2", "c3"), visible="a1 ...", recoverable="b2 in the original")
    assert (ev.kept, ev.recoverable, ev.lost, ev.lost_strings, ev.total) == (1, 1, 1, ["c3"], 3)


def test_image_facts_without_an_image_are_recoverable_only_behind_a_stored_original():
    # Images still sent are judged by OCR of their pixels: tests/eval/test_pixels.py.
    from headroom.eval.evidence import with_image_evidence
    from headroom.formats import parse

    text_only = parse({"model": "gpt-4o", "messages": [{"role": "user", "content": "what code?"}]}, "openai_chat")
    vis, rec = with_image_evidence(("E-1234",), text_only, "[Image 800x500 transcribed]", "data:image/png;base64,xx")
    assert check_evidence(("E-1234",), vis, rec).recoverable == 1
    vis, rec = with_image_evidence(("E-1234",), text_only, "nothing", "")
    assert check_evidence(("E-1234",), vis, rec).lost == 1
