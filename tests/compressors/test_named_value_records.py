"""A value the question's words name brings its record (issue 33, twelfth session).

Valgrind's XML report prints each error as an ``<error>`` element: its ``<kind>`` and
``<text>`` say what went wrong ("still reachable"), its ``<stack>`` says where. A question
says the kind in its own words; the selection used to keep the named lines under their
parents and elide the stack, so the function that allocated the block was out of view.

Real valgrind over a program this test writes and compiles; the facts are the program's
own record of which function allocates which kind of block.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from .tool_rounds import tool_round

_PROGRAM = r"""
#include <stdlib.h>
#include <string.h>
static char *kept_alive;
%(leakers)s
void %(reachable)s(void) { kept_alive = malloc(4321); memset(kept_alive, 1, 4321); }
int main(void) {
%(calls)s
    %(reachable)s();
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("gcc") is None, reason="needs valgrind and gcc")
def test_a_kind_named_in_other_words_brings_its_error_with_the_stack(tmp_path):
    names = [f"build_cache_{k:02d}" for k in range(14)]
    leakers = "\n".join(f"void {n}(void) {{ char *p = malloc({100 + k * 7}); p[0] = 1; }}" for k, n in enumerate(names))
    calls = "\n".join(f"    {n}();" for n in names)
    reachable = "load_profile_table"
    src = tmp_path / "leaky.c"
    src.write_text(_PROGRAM % {"leakers": leakers, "calls": calls, "reachable": reachable})
    subprocess.run(["gcc", "-g", "-O0", "-o", "leaky", "leaky.c"], cwd=tmp_path, check=True)
    subprocess.run(["valgrind", "--xml=yes", "--xml-file=report.xml", "--leak-check=full", "--show-leak-kinds=all",
                    "./leaky"], cwd=tmp_path, check=False, capture_output=True, text=True)
    if not (tmp_path / "report.xml").exists():
        pytest.skip("valgrind cannot run here")
    text = (tmp_path / "report.xml").read_text()
    assert "Leak_StillReachable" in text and f"<fn>{reachable}</fn>" in text
    out = tool_round("valgrind --xml=yes --leak-check=full --show-leak-kinds=all ./leaky", text,
                     "Which allocation is still reachable when the program ends?")
    assert f"<fn>{reachable}</fn>" in out
    assert len(out) < len(text)
