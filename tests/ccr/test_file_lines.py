"""One file's hits back from a stored search output, asked by its path (issue 33): the
search compressor's marker promises it, so ``CompressionStore.search`` must keep it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.ccr.file_lines import file_lines
from headroom.ccr.store import CompressionStore

GREP = "\n".join(
    [f"./src/app/console.py:{n}:    console = Console(file=f{n})" for n in range(10, 400, 10)]
    + [f"./src/app/console_utils.py:{n}:from .console import Console" for n in (3, 9)]
    + [f"./src/app/console.py-2.py:{n}:Console()" for n in (1, 2)]  # another file sharing the prefix
    + ["./src/app/render.py:7-    # context before", "./src/app/render.py:8:    Console().print(x)",
       "./src/app/render.py:9-    # context after"]
)
HEADING = (
    "src/unix/linux/mod.rs\n23:        pub f_type: ::__fsword_t,\n24:        pub f_bsize: ::__fsword_t,\n\n"
    "src/unix/linux/other.rs\n5:pub type __fsword_t = i32;\n"
)


def test_a_path_query_returns_exactly_that_files_lines_uncapped() -> None:
    store = CompressionStore()
    h = store.store(GREP)
    got = store.search(h, "./src/app/console.py")
    assert got == [ln for ln in GREP.splitlines() if ln.startswith("./src/app/console.py:")]
    assert len(got) == 39  # more than the ranked search's 20
    assert store.search(h, "src/app/console.py") == got  # with or without grep's "./"


def test_context_lines_come_with_their_file() -> None:
    assert file_lines(GREP, "src/app/render.py") == GREP.splitlines()[-3:]


def test_rg_heading_mode_returns_the_heading_and_its_lines() -> None:
    assert file_lines(HEADING, "src/unix/linux/mod.rs") == [
        "src/unix/linux/mod.rs", "23:        pub f_type: ::__fsword_t,", "24:        pub f_bsize: ::__fsword_t,"]
    assert file_lines(HEADING, "src/unix/linux/other.rs") == ["src/unix/linux/other.rs", "5:pub type __fsword_t = i32;"]


def test_other_queries_keep_the_ranked_search() -> None:
    store = CompressionStore()
    h = store.store(GREP)
    assert file_lines(GREP, "Console") == []  # a word, not a path
    assert file_lines(GREP, "src/app/missing.py") == []
    got = store.search(h, "context before")
    assert got and all("context" in ln for ln in got)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a.py", "lib/a.py", "lib/a.py.bak", "./lib/a.py", "b/c.rs"]),
                          st.integers(1, 500), st.sampled_from([":", "-"]), st.text("xyz =(){}:", max_size=20)),
                min_size=1, max_size=60))
def test_every_line_returned_belongs_to_the_asked_file(rows) -> None:
    text = "\n".join(f"{p}:{n}{sep}{t}" if sep == ":" else f"{p}-{n}-{t}" for p, n, sep, t in rows)
    got = file_lines(text, "lib/a.py")
    want = [f"{p}:{n}:{t}" if sep == ":" else f"{p}-{n}-{t}" for p, n, sep, t in rows if p in ("lib/a.py", "./lib/a.py")]
    assert got == want
