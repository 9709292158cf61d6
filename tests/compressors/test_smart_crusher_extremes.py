"""An extreme asked of a field of a nested listing: the extreme item whole, the field's
column for every item in the marker's summary, the rest behind the marker. Real outputs
from the corpus' dev sources (pytest-json-report's ``tests`` array, ``npm view
pkg@range --json``), paraphrased questions, and a property over generated listings."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from headroom.compressors.smart_crusher import SmartCrusher
from headroom.compressors.smart_crusher.asked_field import asked_extreme
from headroom.compressors.smart_crusher.extreme_plan import column_note
from headroom.eval.corpus import load_cases
from headroom.tokens import counter_for
from tests.compressors.test_smart_crusher import LOSSY, make_input

COUNTER = counter_for("gpt-4o")


def _case(case_id: str):
    return next(c for c in load_cases(sources=[case_id.split("/")[0]]) if c.id == case_id)


def _compress(text: str, question: str):
    result = SmartCrusher().compress(make_input(text, query=question))
    assert result is not None and result.lossy
    return result


def _issue(i: int, comments: int, updated: str, created: str) -> dict:
    """An issue-tracker-shaped item: user, labels and links as sub-objects."""
    return {"id": 9000 + i, "number": i, "title": f"Crash in module {i} when the cache is cold",
            "user": {"login": f"dev{i % 7}", "id": 100 + i % 7, "url": f"https://tracker.example/u/{i % 7}"},
            "labels": [{"name": "bug", "color": "d73a4a"}] if i % 3 else [],
            "state": "open", "comments": comments, "created_at": created, "updated_at": updated,
            "links": {"self": f"https://tracker.example/issues/{i}", "html": f"https://tracker.example/i/{i}"},
            "body": "Steps to reproduce: start the service, hit the endpoint twice, watch it fail. " * 3}


def _issues(n: int = 40) -> list[dict]:
    base = datetime(2024, 3, 1, tzinfo=timezone.utc)
    return [_issue(i, comments=(i * 7) % 23, created=(base + timedelta(hours=i * 5)).isoformat(),
                   updated=(base + timedelta(hours=(i * 37) % 200)).isoformat()) for i in range(n)]


# -- field matching -----------------------------------------------------------------------

@pytest.mark.parametrize("question, path, direction", [
    ("Which item has the most comments? Give its title.", ("comments",), 1),
    ("Which issue was discussed least (fewest comments)?", ("comments",), -1),
    ("Which item has the latest updated at?", ("updated_at",), 1),
    ("Which issue was updated most recently?", ("updated_at",), 1),
    ("What is the oldest issue here?", ("created_at",), -1),
    ("Which issue has the highest number of labels?", ("labels",), 1),
])
def test_the_asked_field_is_matched_loosely(question, path, direction):
    asked = asked_extreme(_issues(), question)
    assert asked is not None and asked.paths == (path,) and asked.direction == direction
    assert asked.name_path == ("title",)


def test_count_suffixes_dots_and_camel_case_match():
    items = [{"name": f"p{i}", "meta": {"comments_count": i % 9, "x": 1}, "devDependencies": {str(k): 1 for k in
             range(i % 5)}, "sub": {"a": i}} for i in range(30)]
    assert asked_extreme(items, "Which package has the most comments?").paths == (("meta", "comments_count"),)
    assert asked_extreme(items, "Which one has the fewest dev dependencies?").paths == (("devDependencies",),)


@pytest.mark.parametrize("question, path", [
    ("Which repo has the largest number of stars?", ("stars",)),  # named next to it, though "largest" implies size
    ("What is the biggest file anyone ever uploaded?", ("size",)),  # the superlative's kind, not a far-off verb
    ("Which dev-tools release has the fewest dependencies?", ("dependencies",)),  # "dev" is far off
    ("Which release has the fewest dev dependencies?", ("devDependencies",)),
    ("Which file was uploaded most recently?", ("upload_time",)),
])
def test_the_superlative_decides_between_fields(question, path):
    items = [{"name": f"r{i}", "stars": (i * 13) % 29, "size": (i * 7) % 31, "upload_time": f"2024-01-{i % 28 + 1:02d}",
              "dependencies": {str(k): 1 for k in range(i % 4)}, "devDependencies": {str(k): 1 for k in range(i % 6)},
              "owner": {"login": f"u{i % 3}"}} for i in range(30)]
    assert asked_extreme(items, question).paths == (path,)


def test_no_extreme_no_nesting_no_field_means_no_plan():
    assert asked_extreme(_issues(), "What does issue 12 say about the cache?") is None  # not an extreme
    flat = [{"name": f"r{i}", "size": i} for i in range(30)]
    assert asked_extreme(flat, "Which row is the largest?") is None  # flat records: the usual plan
    assert asked_extreme(_issues(), "Which issue has the most reactions?") is None  # no such field


# -- synthetic issue listing ---------------------------------------------------------------

def test_issue_listing_keeps_the_extreme_whole_and_the_column():
    issues = _issues()
    text = json.dumps(issues, indent=2)
    result = _compress(text, "Which item has the most comments? Give its title.")
    top = max(issues, key=lambda it: (it["comments"], -it["number"]))
    assert json.dumps(top, separators=(",", ":")) in result.text  # the whole item, as compact JSON
    for it in issues:  # every item's title with its value
        assert f"{it['title']}={it['comments']}" in result.summary
    assert COUNTER.count(result.text) + COUNTER.count(result.summary) < 0.3 * COUNTER.count(text)
    latest = max(issues, key=lambda it: it["updated_at"])
    result = _compress(text, "Which item has the latest updated at?")
    assert json.dumps(latest, separators=(",", ":")) in result.text
    assert result.summary.startswith("updated_at of all 40 items by title, largest/latest first: "
                                     f"{latest['title']}={latest['updated_at']}; ")


def test_the_column_of_a_huge_listing_is_capped():
    issues = [_issue(i, comments=i % 997, created="2024-01-01T00:00:00+00:00", updated="2024-01-02T00:00:00+00:00")
              for i in range(2000)]
    asked = asked_extreme(issues, "Which issue has the most comments?")
    note = column_note(issues, asked)
    assert note.startswith("comments of the first 500 of 2000 items in this order by title, largest/latest first: ")
    assert note.count("=") == 500 and f"{issues[996]['title']}=996" in note


# -- real outputs (dev sources) -------------------------------------------------------------

REAL = {
    "pytest_report_json/dicttoolz_functoolz_call_slowest": (
        "Which test took the longest to run?", "Which test's call phase was the slowest?",
        "Name the test with the highest call duration."),
    "pytest_report_json/itertoolz_setup_slowest": (
        "Which test had the slowest setup?", "Where did setup take the longest? Name the test.",
        "Which test's setup duration is the largest?"),
    "npm_version_docs/webpack-dev-server_dependencies_fewest": (
        "Which webpack-dev-server release has the fewest dependencies?",
        "Which of these versions depends on the least number of packages?",
        "Which version declares the smallest number of dependencies?"),
    "npm_version_docs/body-parser_devDependencies_fewest": (
        "Which body-parser version has the fewest dev dependencies?",
        "Which release lists the lowest number of devDependencies?"),
}


@pytest.mark.parametrize("case_id", sorted(REAL))
def test_real_listings_keep_the_asked_item_in_view_with_paraphrases(case_id):
    case = _case(case_id)
    before = COUNTER.count(case.content)
    for question in (case.question, *REAL[case_id]):
        result = _compress(case.content, question)
        view = result.text + result.summary
        for f in case.facts:
            assert f.text in view, (question, f.text)
        # >= 65 % saved on every wording (an ambiguous "longest to run" lists three phase durations)
        assert COUNTER.count(view) <= 0.35 * before, question


GROUPED = {
    "pypi_project_json/requests_size_max": ("Which file across all releases is the largest?",
                                            "What is the biggest file requests ever uploaded?"),
    "pypi_project_json/idna_upload_min": ("Which idna file was uploaded first?",
                                          "What is the oldest release file, by upload time?"),
}


@pytest.mark.parametrize("case_id", sorted(GROUPED))
def test_a_listing_grouped_by_version_is_one_listing(case_id):
    """PyPI's ``releases`` (version → files): the extreme over every group's files, with
    only the group holding it left in the map; the rest of the document stays."""
    case = _case(case_id)
    doc = json.loads(case.content)
    files = [f for group in doc["releases"].values() for f in group]
    for question in (case.question, *GROUPED[case_id]):
        result = _compress(case.content, question)
        assert result.strategy == "nested"
        out = json.loads(result.text)
        assert set(out) == set(doc) and out["info"]["version"] == doc["info"]["version"]
        assert all(f.text in result.text for f in case.facts), question
        assert f"of all {len(files)} items by filename" in result.summary
        assert f"of {len(doc['releases'])} groups omitted" in result.summary
        assert COUNTER.count(result.text + result.summary) <= 0.3 * COUNTER.count(case.content)


def test_real_report_column_names_every_test():
    case = _case("pytest_report_json/itertoolz_call_slowest")
    tests = json.loads(case.content)["tests"]
    result = _compress(case.content, case.question)
    assert f"of all {len(tests)} items by nodeid" in result.summary
    assert all(t["nodeid"] in result.summary for t in tests)


# -- property: the extreme item is always in view ------------------------------------------

FIELD_NAMES = st.sampled_from(["comments", "score", "updated_at", "size", "download_count", "reviewCount",
                               "published.at"])


@st.composite
def listings(draw):
    n = draw(st.integers(5, 60))
    field = draw(FIELD_NAMES)
    dates = field.endswith(("_at", ".at"))
    base = datetime(2020, 1, 1, tzinfo=timezone.utc)
    values = draw(st.lists(st.integers(0, 10**6) if dates else st.one_of(st.integers(-10**9, 10**9),
                                                                          st.floats(-1e9, 1e9, allow_nan=False)),
                           min_size=n, max_size=n))
    items = []
    for i, v in enumerate(values):
        value = (base + timedelta(minutes=v)).isoformat() if dates else v
        item = {"name": f"item-{i}", "owner": {"login": f"u{i % 4}"}, "links": {"self": f"/items/{i}"}}
        if "." in field:
            head, leaf = field.split(".")
            item[head] = {leaf: value, "by": f"u{i % 3}"}
        else:
            item[field] = value
        items.append(item)
    return items, field, values


def _words(field: str) -> str:
    import re
    return " ".join(w.lower() for w in re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])", field) if w)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(listings(), st.booleans())
def test_the_extreme_item_is_always_in_view(listing, largest):
    items, field, values = listing
    assume(len(set(values)) > 1)  # all equal: no item is the extreme
    dates = field.endswith(("_at", ".at"))
    word = ("latest" if largest else "earliest") if dates else ("largest" if largest else "smallest")
    question = f"Which item has the {word} {_words(field)}?"
    asked = asked_extreme(items, question)
    assert asked is not None
    best = max(values) if largest else min(values)
    holders = [items[i] for i, v in enumerate(values) if v == best]
    result = SmartCrusher().compress(make_input(items, query=question, sc=LOSSY))
    view = json.dumps(items) if result is None else result.text + result.summary
    compact = [json.dumps(it, separators=(",", ":")) for it in holders[:5]]
    assert any(c in view or json.dumps(it) in view for c, it in zip(compact, holders))
    if result is not None and result.lossy:
        note = column_note(items, asked)
        assert all(f"item-{i}=" in note for i in range(len(items)))
