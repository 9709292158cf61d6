"""Records printed as stanzas (a field per line, a blank line between records) are a table
on its side: detected by shape whatever the fields are called, compressed by the table row
selection, each kept record copied whole."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType, detect
from headroom.compressors.tables.csv_compressor import TableCompressor
from headroom.compressors.tables.stanzas import Stanzas, infer, parse
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

from .tool_rounds import tool_round

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=2, max_size=12).filter(lambda w: w.strip("_"))


def stanza_text(names: list[str], rows: list[list[str]], sep: str = " = ") -> str:
    width = max(map(len, names))
    return "\n\n".join("\n".join(f"{n.rjust(width)}{sep}{v}" for n, v in zip(names, row)) for row in rows) + "\n"


def table_input(text: str, question: str) -> CompressInput:
    return CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=question,
                         anchors=extract_anchors(question))


def kept_blocks(out: str) -> list[str]:
    """The records in a compressed output: its blank-line separated chunks without the
    gap marks and the column line."""
    chunks = ("\n".join(ln for ln in b.split("\n") if ln != "…" and not ln.startswith("# "))
              for b in out.split("\n\n"))
    return [c for c in chunks if c.strip()]


@settings(max_examples=40, deadline=None)
@given(names=st.lists(WORD, min_size=2, max_size=6, unique=True), n=st.integers(14, 60),
       sep=st.sampled_from([" = ", ": ", "="]), data=st.data())
def test_stanzas_parse_back_to_their_rows_whatever_the_fields_are_called(names, n, sep, data):
    rows = [[f"v{i}x{k}" for k in range(len(names))] for i in range(n)]
    text = stanza_text(names, rows, sep)
    lines = text.split("\n")
    layout = infer(lines)
    assert layout is not None and layout.separator == sep.strip()
    records = parse(lines, layout)
    assert records is not None
    assert records.names == names and records.rows == rows
    # Renaming every field to another opaque name keeps the same records.
    renamed = [f"f{k}{w}" for k, w in enumerate(data.draw(st.lists(WORD, min_size=len(names),
                                                                   max_size=len(names))))]
    again = parse(stanza_text(renamed, rows, sep).split("\n"), infer(stanza_text(renamed, rows, sep).split("\n")))
    assert again is not None and again.rows == rows


def test_a_question_about_one_record_keeps_it_whole_and_every_kept_record_is_verbatim():
    names = ["ident", "label", "weight", "origin"]
    rows = [[f"K-{i:03d}", f"item {chr(97 + i % 26)}{chr(97 + i * 7 % 26)}{i}", str(100 + 13 * i % 997),
             ["north", "south", "east"][i % 3]] for i in range(200)]
    text = stanza_text(names, rows)
    out = TableCompressor().compress(table_input(text, "What is the origin of K-137?"))
    assert out is not None and out.strategy == "table_stanzas"
    blocks = kept_blocks(out.text)
    originals = text.rstrip("\n").split("\n\n")
    assert all(b.rstrip("\n") in originals for b in blocks)  # whole records, byte for byte
    assert any("K-137" in b and "origin = east" in b for b in blocks)  # 137 % 3 == 2
    assert len(out.text) < len(text) / 5


def test_the_longest_value_of_an_asked_field_stays():
    names = ["code", "official_name"]
    rows = [[f"C{i:03d}", "Republic of " + "x" * (i % 40)] for i in range(120)]
    rows[77][1] = "United Federation of Very Long Names and Other Places"
    out = TableCompressor().compress(table_input(stanza_text(names, rows), "Which official name is the longest?"))
    assert out is not None
    assert "official_name = United Federation of Very Long Names and Other Places" in out.text


def test_stanzas_are_a_table_not_a_log():
    rows = [[f"host{i}", "up" if i % 9 else "down", str(i * 3)] for i in range(80)]
    d = detect(stanza_text(["name", "state", "load"], rows))
    assert d.type is ContentType.TABLE and isinstance(d.hint, Stanzas)


@pytest.mark.parametrize("text", [
    "a = 1\nb = 2\n\nc = 3\nd = 4\n\na = 5\nb = 6\n\na = 7\nb = 8\n\na = 9\nb = 1\n",  # a block opens otherwise
    "a = 1\n\na = 2\n\na = 3\n\na = 4\n\na = 5\n",  # one field per block: a listing
    "Title: a report\n\nThe first paragraph of prose.\nIt goes on.\n\nAnother one.\n",
    "key = 1\nother = 2\n\nkey = 3\nother = 4\n",  # too few records to be a table
])
def test_texts_that_are_not_records_are_not_stanzas(text):
    assert infer(text.split("\n")) is None


def test_continuation_lines_belong_to_the_field_above():
    stanza = "Package: tool{i}\nVersion: 1.{i}\nDescription: a tool\n A longer line: with a colon.\n .\n More.\n"
    text = "\n".join(stanza.format(i=i) for i in range(20))
    records = parse(text.split("\n"), infer(text.split("\n")))
    assert records is not None and records.names == ["Package", "Version", "Description"]
    assert records.rows[3] == ["tool3", "1.3", "a tool"]


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="needs the sqlite3 command-line shell")
def test_sqlite3_line_output_keeps_the_asked_row(tmp_path):
    db = tmp_path / "rivers.db"
    con = sqlite3.connect(db)
    con.execute("create table river (name text, length_km integer, mouth text, country text)")
    con.executemany("insert into river values (?, ?, ?, ?)",
                    [(f"River {i:03d}", 200 + (i * 37) % 3000, f"Sea {i % 7}", f"Land {i % 11}") for i in range(300)])
    con.commit()
    con.close()
    text = subprocess.run(["sqlite3", "-line", str(db), "select * from river"], capture_output=True, text=True,
                          check=True).stdout
    question = "Where does River 211 flow into?"
    messages = [{"role": "user", "content": question},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": text}]
    pipeline = Pipeline(HeadroomConfig(), store=CompressionStore())
    out = compress(messages, model="gpt-4o", pipeline=pipeline).messages[-1]["content"]
    assert "mouth = Sea 1" in out.split("River 211", 1)[1].split("\n\n", 1)[0]  # 211 % 7 == 1, same record
    assert len(out) < len(text) / 5


def test_tracebacks_separated_by_blank_lines_stay_a_log():
    tb = ("Traceback (most recent call last):\n  File \"app.py\", line {i}, in run\n    step()\n"
          "ValueError: bad value {i}\n")
    text = "\n".join(tb.format(i=i) for i in range(30))
    assert infer(text.split("\n")) is None
    assert detect(text).type is not ContentType.TABLE


def _padded_records(rng, n: int) -> tuple[str, int]:
    """Records whose names are padded to one column of colons, some of several words
    (/proc/crypto's "min keysize  : 16"); one record has the highest priority."""
    top = rng.randrange(5, n - 5)
    blocks = []
    for k in range(n):
        priority = str(900 if k == top else rng.randint(0, 400))
        fields = [("name", f"algo{k:02d}"), ("driver", f"drv-{k:02d}-generic"), ("priority", priority),
                  ("min keysize", str(rng.choice([16, 24]))), ("max keysize", "32"), ("self test", "passed")]
        blocks.append("\n".join(f"{name:<13}: {value}" for name, value in fields))
    return "\n\n".join(blocks) + "\n", top


def test_names_of_several_words_padded_to_the_separators_column_are_fields():
    text, top = _padded_records(random.Random(3), 40)
    layout = infer(text.split("\n"))
    assert layout is not None
    records = parse(text.split("\n"), layout)
    assert records is not None and "min keysize" in records.names and len(records.rows) == 40
    out = tool_round("cat /proc/crypto", text, "Which driver has the highest priority?")
    assert f"drv-{top:02d}-generic" in out and len(out) < len(text) / 2
    # Prose ending in a colon is no field, wherever its colon stands.
    assert infer(["Traceback (most recent call last):", "  x", "", "Traceback (most recent call last):", "  y"]) is None


@pytest.mark.skipif(not os.path.exists("/proc/crypto"), reason="needs Linux /proc/crypto")
def test_proc_crypto_reads_as_records():
    with open("/proc/crypto") as f:
        text = f.read()
    blocks = [b for b in text.split("\n\n") if b.strip()]
    if len(blocks) < 8:
        pytest.skip("too few algorithms registered here")
    layout = infer(text.split("\n"))
    assert layout is not None and parse(text.split("\n"), layout) is not None


def _catalogue(rng: random.Random, n: int) -> tuple[str, dict]:
    """A PO file: a header entry, plain messages, a plural, one word in two contexts, one
    far longer translation (split over quoted lines), reference comments."""
    long_at, ctx_at = rng.sample(range(10, n - 10), 2)
    out = ['msgid ""', 'msgstr ""', '"Project-Id-Version: depot 2.1\\n"', '"Language: nl\\n"',
           '"Content-Type: text/plain; charset=UTF-8\\n"', ""]
    facts = {}
    for k in range(n):
        out.append(f"#: src/view{k % 7}.c:{10 + k}")
        if k == ctx_at:
            out += ['msgctxt "Door state"', 'msgid "Open"', 'msgstr "Geopend"', "",
                    f"#: src/menu.c:{k}", 'msgctxt "Menu"', 'msgid "Open"', 'msgstr "Openen"', ""]
            continue
        msgid = f"Item {k:03d} stored"
        if k == long_at:
            facts["long"] = msgid
            out += [f'msgid "{msgid}"', 'msgstr ""',
                    '"Het item is in het magazijn opgeslagen, maar de voorraadtelling is nog niet "',
                    '"bijgewerkt; wacht tot de volgende synchronisatie voordat u het opnieuw boekt"', ""]
        else:
            out += [f'msgid "{msgid}"', f'msgstr "Item {k:03d} opgeslagen"', ""]
    return "\n".join(out) + "\n", facts


def test_a_gettext_catalogue_reads_as_records_with_contexts_comments_and_long_values():
    text, facts = _catalogue(random.Random(8), 120)
    layout = infer(text.split("\n"))
    assert layout is not None and layout.separator == " "
    records = parse(text.split("\n"), layout)
    assert records is not None and "msgctxt" in records.names and len(records.rows) == 122
    out = tool_round("cat nl.po", text, "Which message has by far the longest translation?")
    assert facts["long"] in out and len(out) < len(text) / 3


@pytest.mark.skipif(shutil.which("msgfmt") is None or shutil.which("msgunfmt") is None, reason="needs gettext")
def test_msgunfmt_output_answers_a_context_lookup(tmp_path):
    text, _ = _catalogue(random.Random(2), 80)
    (tmp_path / "nl.po").write_text(text)
    subprocess.run(["msgfmt", "-o", str(tmp_path / "nl.mo"), str(tmp_path / "nl.po")], check=True)
    dumped = subprocess.run(["msgunfmt", str(tmp_path / "nl.mo")], check=True, capture_output=True,
                            text=True).stdout
    assert infer(dumped.split("\n")) is not None
    out = tool_round("msgunfmt nl.mo", dumped, "How is 'Open' translated in the door state context?")
    assert "Geopend" in out
