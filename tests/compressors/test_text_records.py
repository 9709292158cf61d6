"""A named line inside a short blank-line separated record brings its record (sqlite3 -line
rows): the asked value is another field of the row the question names."""

from __future__ import annotations

from headroom.compressors.base import CompressInput
from headroom.compressors.logs import LogCompressor
from headroom.compressors.text_records import record_mates
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

RIVERS = [("Danube", "DNB", 2850, "Black Sea"), ("Rhine", "RHN", 1230, "North Sea"),
          ("Elbe", "ELB", 1094, "North Sea"), ("Loire", "LOR", 1006, "Atlantic"),
          ("Vistula", "VST", 1047, "Baltic Sea"), ("Tagus", "TAG", 1007, "Atlantic")]


def line_rows(n: int = 240) -> str:
    rows = []
    for i in range(n):
        name, code, length, mouth = RIVERS[i % len(RIVERS)]
        tag = "".join(chr(97 + (i * 7 + k * 3) % 26) for k in range(6))  # a word only this row holds
        rows.append(f"  code = {code}-{i:03d}\n  name = {name} {tag}\nlength = {length + 17 * i}\n mouth = {mouth}")
    return "\n\n".join(rows) + "\n"


def test_record_mates_are_the_rest_of_the_block():
    raw = ["a = 1", "b = 2", "", "a = 3", "b = 4", "c = 5", "", "a = 6", "b = 7"]
    assert record_mates(raw, {4}) == {3, 5}
    assert record_mates(raw[:3], {0}) == set()  # one block: not a text of records
    assert record_mates(raw, set()) == set()


def test_the_named_rows_other_fields_stay_in_view():
    text = line_rows()
    i = 146
    tag = "".join(chr(97 + (i * 7 + k * 3) % 26) for k in range(6))
    question = f"How long is the river Elbe {tag}?"
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=question,
                        anchors=extract_anchors(question))
    out = LogCompressor().compress(inp)
    assert out is not None and len(out.text) < len(text) / 2
    assert f"length = {1094 + 17 * i}" in out.text.splitlines()


def test_a_stanza_the_question_names_stays_whole():
    # dpkg's status file shape: one stanza per package, the asked field elsewhere in it.
    from headroom import HeadroomConfig, Pipeline
    from headroom.ccr.store import CompressionStore

    stanzas = []
    for i in range(60):
        stanzas.append("\n".join([f"Package: tool{i:02d}-{chr(97 + i % 26)}{chr(97 + i * 7 % 26)}x",
                                  "Status: install ok installed", "Priority: optional", "Section: utils",
                                  f"Installed-Size: {100 + 37 * i}", "Maintainer: Team <team@example.org>",
                                  "Architecture: amd64", f"Version: 1.{i}.0-1",
                                  f"Depends: libc6 (>= 2.{i % 9 + 28})",
                                  f"Description: helper number {i}",
                                  " A small helper shipped for the test suite.",
                                  " It prints its name and exits."]))
    text = "\n\n".join(stanzas) + "\n"
    name = f"tool41-{chr(97 + 41 % 26)}{chr(97 + 41 * 7 % 26)}x"
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": f"How much disk space does {name} take once installed?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": text}]}
    r = Pipeline(HeadroomConfig(), store=CompressionStore()).compress_body(body)
    out = r.body["messages"][2]["content"]
    assert len(out) < len(text) / 2
    assert f"Installed-Size: {100 + 37 * 41}" in out.splitlines()
