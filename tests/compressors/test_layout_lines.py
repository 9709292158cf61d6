"""Texts laid out in lines keep their lines (issue 33: whole lines kept or elided, never
joined or rewritten), on outputs of real programs this test runs over inputs it makes:

- a part of a several-part output that reads as plain text but is no prose (``readelf``'s
  ELF header and segment-to-section lists between its tables) is selected by lines, as a
  whole text of that kind is, not joined by the prose compressor;
- a manual page is laid out (mostly indented lines), so it is no prose either; a question
  naming an option ("what is -c for?") keeps the line defining the option with the
  description nested under it;
- a README that opens on HTML and goes on in Markdown is Markdown: its fenced code stays
  byte for byte;
- "the big X" asks for the largest X as "the largest X" does, and a kept extreme line of
  a text keeps the few lines nested under it (a linker map: the input section, then the
  symbol it defines).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess

import pytest

from headroom.compressors.structured import claim
from headroom.compressors.tables.select import asked_directions
from headroom.query.options import asked_options

from .tool_rounds import tool_round

_MARKER = re.compile(r"^\s*(?:…|# |<!-- …|\[)")


def _foreign_lines(out: str, text: str) -> list[str]:
    """Lines of ``out`` that are neither lines of ``text`` nor markers or summaries."""
    original = set(text.splitlines())
    return [ln for ln in out.splitlines() if ln not in original and not _MARKER.match(ln)]


def _program(tmp_path, source: str, *flags: str) -> tuple[str, str]:
    (tmp_path / "prog.c").write_text(source)
    run = subprocess.run(["gcc", "-O0", "-o", "prog", "prog.c", *flags], cwd=tmp_path, check=True,
                         capture_output=True, text=True)
    return str(tmp_path / "prog"), run.stdout


_SOURCE = """#include <stdio.h>
char scratch_pool[262144];
int rate_table[300] = {1};
int tally(int k) { return rate_table[k % 300] + scratch_pool[k]; }
int main(void) { printf("%d\\n", tally(3)); return 0; }
"""


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("readelf") is None, reason="needs gcc and readelf")
def test_a_part_that_is_no_prose_keeps_its_lines(tmp_path):
    prog, _ = _program(tmp_path, _SOURCE)
    text = subprocess.run(["readelf", "-h", "-l", "-S", "-s", prog], check=True, capture_output=True,
                          text=True).stdout
    entry = next(ln for ln in text.splitlines() if "Entry point address:" in ln)
    for question in ("What is the entry point address?", "Where does execution of this binary start?"):
        out = tool_round("readelf -h -l -S -s prog", text, question)
        assert len(out) < 0.8 * len(text)
        assert not _foreign_lines(out, text), question
        assert entry in out, question


def _man(page: str) -> str | None:
    if shutil.which("man") is None:
        return None
    run = subprocess.run(["man", "-P", "cat", page], capture_output=True, text=True, check=False,
                         env={**os.environ, "MANWIDTH": "100", "MAN_KEEP_FORMATTING": ""})
    return run.stdout if run.returncode == 0 and len(run.stdout) > 5000 else None


@pytest.mark.parametrize("page", ["grep", "sed", "gzip"])
def test_a_manual_page_keeps_its_lines_and_the_asked_options_entry(page):
    text = _man(page)
    if text is None:
        pytest.skip(f"no manual page for {page} here")
    lines = text.splitlines()

    def below(k: int) -> int:  # the next nonblank line (sed's entries have a blank line between)
        return next(j for j in range(k + 1, len(lines)) if lines[j].strip())

    def indent(ln: str) -> int:
        return len(ln) - len(ln.lstrip())

    # The page's option entries: a line opening on an option, its description indented below.
    entries = [(k, ln.strip()) for k, ln in enumerate(lines[:-1])
               if re.match(r"^\s{4,}-(?:-\w|[A-Za-z0-9])", ln) and indent(lines[below(k)]) > indent(ln)]
    assert len(entries) >= 6
    rng = random.Random(page)
    for k, head in rng.sample(entries, 4):
        option = head.split(",")[0].split()[0].split("=")[0]
        for question in (f"What is {option} for in {page}?", f"Explain what {page} {option} does."):
            assert option in asked_options(question)
            out = tool_round(f"man {page}", text, question)
            assert len(out) < 0.7 * len(text)
            assert not _foreign_lines(out, text), question
            assert lines[k] in out and lines[below(k)] in out, question


def test_options_a_question_names():
    assert asked_options("What is -c for?") == ["-c"]
    assert asked_options("what does --max-count=NUM do, and -w?") == ["--max-count", "-w"]
    assert asked_options("the re-run step, a well-known bug") == []


_README = """<p align="center">
  <img src="https://example.invalid/logo.svg" width="30%" alt="quarry" />
</p>

<p align="center">
  <a href="https://example.invalid/docs"><img src="https://example.invalid/badge.svg" alt="docs" /></a>
</p>

*quarry* cuts large logs into slabs you can grep in parallel, without loading them whole.

## Installing

```console
$ pip install quarry
```

## Cutting a log

Point it at a file and say how big a slab may be:

```python
>>> from quarry import cut
>>> slabs = cut("server.log", slab_bytes=4_000_000)
>>> len(slabs)
12
```

Each slab ends on a line break, so no line is split between two of them.

## Options

| option | meaning |
|---|---|
| `slab_bytes` | the most bytes a slab holds |
| `keep_header` | repeat the file's first line on every slab |

""" + "\n".join(f"Paragraph {k} of the notes says the slabs are written to the working folder." for k in range(40))


def test_a_readme_opening_on_html_is_markdown_and_keeps_its_code_whole():
    assert claim(_README).hint == "markdown"
    out = tool_round("cat README.md", _README, "How do I cut a log into slabs in Python? Show the example.")
    block = _README[_README.index("```python"):_README.index("```\n\nEach slab") + 3]
    assert block in out
    assert out.count("```") % 2 == 0


def test_the_big_one_asks_for_the_largest():
    assert asked_directions("which symbol is the big zero-filled buffer?") == (True, False)
    assert asked_directions("which is the tiny partition?") == (False, True)
    assert asked_directions("is it big?") == (False, False)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_kept_extreme_line_keeps_the_symbol_nested_under_it(tmp_path):
    _, text = _program(tmp_path, _SOURCE, "-Wl,-M")
    assert "scratch_pool" in text
    for question in ("Which symbol is the big zero-filled buffer?", "Name the largest uninitialised array."):
        out = tool_round("gcc -Wl,-M prog.c", text, question)
        assert len(out) < 0.8 * len(text)
        assert "scratch_pool" in out, question
