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
