"""Formats recognised though their first line is a comment: JSON with comments that opens
with a licence or editor note, and .env files of a few variables among long comments."""

from __future__ import annotations

import json5
import pytest
from dotenv import dotenv_values

from headroom import HeadroomConfig, Pipeline
from headroom.ccr.store import CompressionStore
from headroom.compressors.structured import claim

JSONC = """// Editor launch settings for the sample workspace.
/* Each entry starts the extension host
 * with one folder open. */
{
  "version": "0.2.0",
  "configurations": [
    {
      "name": "Run Extension",
      "type": "extensionHost",
      "request": "launch",
      "args": ["--extensionDevelopmentPath=${workspaceFolder}"], // the folder under test
    },
  ],
}
"""

ENV = """# Defaults for every environment. Values here are committed to the repository,
# so keep secrets out of this file and put them in a local override instead.
#
# The database the development server talks to. It is created on first start and
# migrations run against it automatically when the schema changes.
DATABASE_URL=file:./dev.db
#
# Where test runs keep their own database, separate from the one above so that a
# failing test never corrupts the data you were working with.
TEST_DATABASE_URL=file:./.app/test.db
#
# Prisma tells you about new versions on every command; this turns that off.
PRISMA_HIDE_UPDATE_MESSAGE=true
"""


def test_json_with_a_leading_comment_is_jsonc():
    assert json5.loads(JSONC)["version"] == "0.2.0"
    d = claim(JSONC)
    assert d is not None and d.hint == "jsonc"


@pytest.mark.parametrize("text", [ENV, ENV.replace("PRISMA_HIDE_UPDATE_MESSAGE=true\n", "")])
def test_an_env_file_of_few_variables_among_comments_is_key_value(text):
    d = claim(text)
    assert d is not None and d.hint == "properties"


def test_an_env_file_is_never_rewritten_as_prose():
    text = "\n".join([ENV.replace("PRISMA_HIDE_UPDATE_MESSAGE=true\n", "")] + [f"# {w} note about the settings above, written as a sentence." for w in
                              ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh")] * 6)
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "which database does the dev server use?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": text}]}
    out = Pipeline(HeadroomConfig(), store=CompressionStore()).compress_body(body).body["messages"][2]["content"]
    before = dotenv_values(stream=__import__("io").StringIO(text))
    after = dotenv_values(stream=__import__("io").StringIO(out))
    assert after == {k: v for k, v in before.items() if k in after}
    assert "DATABASE_URL=file:./dev.db" in out.splitlines()


def test_a_comment_before_prose_is_not_json():
    assert claim("// note\nThis is a paragraph of text.\nIt has sentences.\nMore of them.\nAnd more.\n") is None


# TOML whose dotted keys quote a part that holds a dot, then arrays over several lines.
TOML_QUOTED_KEYS = "\n".join(
    ["[project]", 'name = "shipyard"', 'version = "4.2.0"', "tags = [", '  "docks",', '  "cranes",', "]", "",
     "[project.plugins]"]
    + [f'plugins."shipyard.loaders".{n} = "shipyard.loaders.{n}:Loader{i}"' for i, n in enumerate(
        ("csv", "json", "parquet", "avro", "orc", "feather", "arrow", "xml"))]
    + ["", "[tool.lint]", 'per-file."tests/**/*.py" = [', '  "D",   # docstrings are optional in tests',
       '  "S101",  # asserts are fine in tests', "]", 'line-length = 100', ""])

# XML that opens with a licence in a comment and a root tag whose attributes span lines.
XML_COMMENT_FIRST = "\n".join(
    ["<!--", "    Licensed under the terms in the LICENSE file shipped with this example; you may",
     "    not use this file except in compliance with those terms. It is provided as is,",
     "    without warranties or conditions of any kind, either express or implied.", "",
     "    See the LICENSE file for the specific language governing permissions.", "-->",
     "<!--", "    Shows a broker with two transports and a memory limit.", " -->",
     "<broker", '  xmlns="http://example.org/schema/broker"', '  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
     '  name="demo">']
    + [f'  <transport name="t{i}" uri="tcp://0.0.0.0:{61610 + i}"/>' for i in range(3)]
    + ["  <!--", "     The limit applies to every queue; a queue over it blocks its producers", "     until consumers catch up.",
       "  -->", '  <memoryLimit value="64 mb"/>', "</broker>", ""])


def test_toml_with_quoted_dotted_keys_is_toml():
    import tomllib

    assert tomllib.loads(TOML_QUOTED_KEYS)["tool"]["lint"]["line-length"] == 100
    d = claim(TOML_QUOTED_KEYS)
    assert d is not None and d.hint == "toml"


def test_xml_that_opens_with_a_licence_comment_is_xml():
    import xml.etree.ElementTree as ET

    assert ET.fromstring(XML_COMMENT_FIRST).tag.endswith("broker")
    d = claim(XML_COMMENT_FIRST)
    assert d is not None and d.hint == "xml"


ANCHORED = """defaults:
  retries: 2
  runner: &shared
    image: builder:2.4
    pool: general
  notes: kept for reference
jobs:
  lint:
    script: make lint
  bench:
    runner: *shared
    script: make bench
"""


def test_a_kept_alias_keeps_its_anchor():
    import yaml

    from headroom.compressors.structured import _keep_anchors
    from headroom.compressors.structured.formats import FORMATS
    from headroom.compressors.structured.select import render
    from headroom.compressors.structured.tree import build

    fmt = FORMATS["yaml"]
    lines = ANCHORED.split("\n")
    nodes = build(lines, fmt)
    # What a selection for the bench job keeps: the job under its parent, nothing of defaults.
    keep = [ln in ("jobs:", "  bench:", "    runner: *shared", "    script: make bench") for ln in lines]
    out, _, _ = render(lines, keep, fmt)
    assert not fmt.check(out)  # an alias without its anchor: the output would not compose
    _keep_anchors(lines, keep, nodes)
    out, _, _ = render(lines, keep, fmt)
    assert fmt.check(out)
    kept = out.splitlines()
    assert "defaults:" in kept and "  runner: &shared" in kept  # the anchor's header, under its parent
    assert yaml.safe_load(out)["jobs"]["bench"]["script"] == "make bench"
    assert "  retries: 2" not in kept and "  notes: kept for reference" not in kept

