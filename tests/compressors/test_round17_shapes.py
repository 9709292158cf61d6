"""Round 17's misses, read by class (issue 33, seventeenth session), on outputs of real tools
over inputs this test makes (other names, sizes and wordings than the corpus), or on shapes
written here with other words; the facts are the test's own record of what it made.

- A line of a rare shape among the lines of a few common shapes stays, and so does a line
  that puts another word where its shape's lines put one (several messages interleaved,
  as a build tool's explanations are).
- A question word too common to name lines comes in a rare form on a few: the ``+`` of the
  one ACL user allowed a command that all the others deny.
- Records opening on a run of signs (``===[ValidationError]===``) are records; a record of
  a rare kind whose headline holds a question word comes whole.
- An XML element's attributes are ``key="value"`` pairs: the element of the asked extreme
  stays, and "non-zero" leaves zero out of the smallest.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys

import pytest

from headroom.compressors.base import CompressInput
from headroom.compressors.kv_extremes import extreme_lines
from headroom.compressors.structured import StructuredCompressor
from headroom.compressors.structured.select import _line_offsets, rare_forms, rare_shape_lines
from headroom.compressors.tables.select import asks_nonzero
from headroom.compressors.text_records import rare_headlines, record_starts
from headroom.config import HeadroomConfig
from headroom.tokens import counter_for
from tests.ccr.conftest import redis_server  # noqa: F401 - a real redis-server for ACL LIST

from .tool_rounds import tool_round

TEAMS = ["kestrel", "marlin", "otter", "heron", "lynx", "bison", "ibis", "puma"]


def _interleaved_build_notes() -> tuple[str, list[str]]:
    """Three messages per unit, interleaved (a build explainer's shape, other words): most
    units are stale because of one shared file; four because of their own source; one
    because of another shared file. Returns the text and the odd lines."""
    rng = random.Random(17)
    lines, odd = [], []
    units = [f"mod/{t}/{w}.unit" for t in TEAMS for w in ("core", "net", "feed", "disk", "ring", "mesh",
                                                         "pool", "hub", "tap", "cell", "grid", "slab")]
    own = set(rng.sample(range(len(units)), 4))
    shared_odd = rng.choice([k for k in range(len(units)) if k not in own])
    for k, unit in enumerate(units):
        if k in own:
            cause = unit.replace("mod/", "src/").replace(".unit", ".src")
        elif k == shared_odd:
            cause = "share/wire_codec.def"
        else:
            cause = "share/base.def"
        line = f"assembler note: target {unit} is behind its input {cause} (stamp 500 < 900)"
        lines.append(line)
        if cause != "share/base.def":
            odd.append(line)
        lines.append(f"assembler note: {unit} marked for rework")
        lines.append(f"({k + 1}/{len(units)}) PACK {unit}")
    return "\n".join(lines), odd


def test_an_odd_line_among_a_few_interleaved_messages_stays():
    text, odd = _interleaved_build_notes()
    lines = text.split("\n")
    kept = rare_shape_lines(lines)
    assert {lines[i] for i in kept} >= set(odd)
    assert len(kept) <= 24
    out = tool_round("assembler --explain", text, "Why is each target being rebuilt?")
    assert len(out) < 0.7 * len(text)
    for line in odd:
        assert line in out


def test_a_rare_form_of_a_common_question_word_names_its_line():
    rng = random.Random(7)
    users = [f"{t}-{n}" for t in TEAMS for n in range(1, 11)]
    lines = [f"user {u} on ~{u.split('-')[0]}:* &* -@all +@read -purge" for u in users]
    allowed = rng.randrange(len(lines))
    lines[allowed] = lines[allowed].replace("-purge", "+purge")
    kept = rare_forms(lines, _line_offsets(lines), {"purge"})
    assert kept == {allowed}
    # A word every line holds the same way, or a word on few lines, names nothing here.
    assert rare_forms(lines, _line_offsets(lines), {"read"}) == set()


@pytest.mark.skipif(shutil.which("redis-cli") is None, reason="needs redis-cli")
def test_acl_list_keeps_the_one_user_allowed_what_the_others_are_denied(redis_server):  # noqa: F811
    import redis

    client = redis.Redis.from_url(redis_server)
    names = [f"r17-{t}-{n}" for t in TEAMS for n in range(1, 13)]
    rng = random.Random(3)
    allowed = rng.choice(names)
    write_only = rng.choice([n for n in names if n != allowed])
    try:
        for name in names:
            # FLUSHALL is in @keyspace: the others' lists deny it by name, the one allows it.
            rules = ["on", "nopass", "resetchannels", "-@all", "+@keyspace", "-flushall"]
            if name == allowed:
                rules[-2:] = ["+@read", "+flushall"]
            rules.append(f"%W~{name.split('-')[1]}:*" if name == write_only else f"~{name.split('-')[1]}:*")
            if name.endswith(("-3", "-7", "-11")):
                rules += ["+@write", "~shared:*"]
            client.execute_command("ACL", "SETUSER", name, "reset", *rules)
        text = subprocess.run(["redis-cli", "-u", redis_server, "--no-raw", "ACL", "LIST"], capture_output=True,
                              text=True, check=True).stdout
    finally:
        client.execute_command("ACL", "DELUSER", *names)
        client.close()
    assert text.count("-flushall") >= 60
    out = tool_round("redis-cli ACL LIST", text, "Which account is allowed to run FLUSHALL?")
    assert len(out) < 0.7 * len(text)
    assert f'user {allowed} ' in out
    # Asked without a word of the answer: only the selector's shape sets it apart.
    out = tool_round("redis-cli ACL LIST", text, "Anything unusual about the key patterns?")
    assert f'user {write_only} ' in out


def _schema_errors(tmp_path) -> tuple[str, dict]:
    """``python -m jsonschema --output pretty`` over shipments this test writes: most
    errors are one weight below the minimum; one shipment has no code, one a bad code."""
    schema = {"type": "array", "items": {
        "type": "object", "required": ["code", "dest", "weight"],
        "properties": {"code": {"type": "string", "pattern": "^SHP[0-9]{6}$"},
                       "dest": {"type": "string"}, "weight": {"type": "number", "minimum": 0.1},
                       "carrier": {"enum": ["ups", "dhl", "postnord", "gls"]}}}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    rng = random.Random(11)
    facts = {}
    files = []
    for f in range(60):
        rows = []
        for k in range(12):
            row = {"code": f"SHP{rng.randrange(10**6):06d}", "dest": rng.choice(["Tromso", "Gdynia", "Faro", "Brno"]),
                   "weight": round(rng.uniform(0.5, 30), 2), "carrier": rng.choice(["ups", "dhl", "gls"])}
            if k == 2 or (k == 9 and f % 2 == 0):
                row["weight"] = 0
            if k == 6 and f % 3 == 1:  # "code" on many lines: it names no record by itself
                row["code"] = f"shp-{f}"
            rows.append(row)
        if f == 51:
            del rows[4]["code"]
            rows[4]["dest"] = "Vaasa-Nord"
            facts["no_code_dest"] = "Vaasa-Nord"
        files.append(tmp_path / f"batch-{f:02d}.json")
        files[-1].write_text(json.dumps(rows))
    args = [a for p in files for a in ("-i", p.name)]
    text = subprocess.run([sys.executable, "-W", "ignore", "-m", "jsonschema", "--output", "pretty", *args,
                           "schema.json"], cwd=tmp_path, capture_output=True, text=True, check=False)
    return text.stdout + text.stderr, facts


def test_jsonschema_errors_are_records_and_the_rare_one_asked_comes_whole(tmp_path):
    text, facts = _schema_errors(tmp_path)
    lines = text.split("\n")
    assert text.count("less than the minimum") >= 20
    starts = record_starts(lines)
    assert len(starts) == text.count("===[")  # each file's errors, and each valid file's line
    heads = rare_headlines(lines, {"code", "shipment"})
    assert [lines[i] for i in heads] == ["'code' is a required property"]
    # Through the structured compressor's line selection, which the router hands such
    # records to (the corpus's ``jsonschema`` outputs); with this test's proportions of
    # dumped dicts, detection reads it as code, and code goes through unchanged.
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), hint="lines",
                        query="Which shipment has no code? Where is it going?")
    out = StructuredCompressor().compress(inp)
    assert len(out.text) < 0.7 * len(text)
    assert facts["no_code_dest"] in out.text


_GLYPHS = ["alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega", "theta", "zeta", "eta", "iota", "rho"]


def _advance_table() -> tuple[str, str, str]:
    rng = random.Random(5)
    rows = []
    for k, g in enumerate(_GLYPHS * 16):
        name = f"{g}.alt{k}"
        rows.append((name, rng.randrange(300, 900, 10)))
    rows[107] = ("combining.dot", 0)
    rows[149] = ("hairspace", 97)
    rows[170] = ("emdash.wide", 1410)
    body = "\n".join(f'    <g glyph="{n}" advance="{w}" bearing="12"/>' for n, w in rows)
    return f'<?xml version="1.0"?>\n<font>\n  <hm>\n{body}\n  </hm>\n</font>', "emdash.wide", "hairspace"


def test_xml_attributes_are_pairs_whose_extremes_stay_and_non_zero_skips_zero():
    text, widest, thinnest = _advance_table()
    lines = text.split("\n")
    assert asks_nonzero("smallest non-zero advance") and not asks_nonzero("smallest advance")
    assert {lines[i] for i in extreme_lines(lines, "the smallest non-zero advance?")} \
        == {ln for ln in lines if f'"{thinnest}"' in ln}
    assert any('"combining.dot"' in lines[i] for i in extreme_lines(lines, "the smallest advance?"))
    out = tool_round("cat advances.xml", text, "Which glyph has the largest advance?")
    assert len(out) < 0.7 * len(text)
    assert f'glyph="{widest}"' in out
    out = tool_round("cat advances.xml", text, "Smallest non-zero advance: which glyph?")
    assert f'glyph="{thinnest}"' in out

