"""Tables one after another, each under its own header (issue 33, eighth session).

``ipcs`` prints its message queues, shared memory segments and semaphore arrays as three
aligned tables, each under a title line and a header of its own; ``kubectl get all`` does
the same per kind. Read as one table, the first table's columns were laid over all three:
the segments' sizes were no column, and the largest segment left view. Each table is now
selected on its own. Also here: a number column of two or three values (a mode, an attach
count) has rare values like a word column does, and left-aligned columns whose short values
leave wide gutters take their starts from the header's names.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.tables.aligned import infer, table_blocks

from .tool_rounds import tool_round

WORDS = ["queue", "segment", "array", "volume", "claim", "service", "pod", "node", "lease", "route"]


def _table(rng: random.Random, title: str, names: list[str], rows: int, big: int | None = None) -> tuple[str, str | None]:
    """A left-aligned table (10-character columns) under a title; the row holding ``big``
    in its last column when given."""
    lines = [f"------ {title} --------", "".join(f"{n:<11}" for n in names)]
    asked = None
    for r in range(rows):
        key = f"0x{rng.randrange(16**8):08x}"
        size = big if big is not None and r == rows // 2 else rng.randrange(1000, 9000)
        cells = [key, str(r), "root", "644", *[str(rng.randrange(1, 9)) for _ in names[4:-1]], str(size)]
        line = "".join(f"{c:<11}" for c in cells)
        lines.append(line)
        if big is not None and r == rows // 2:
            asked = line
    return "\n".join(lines), asked


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32), st.integers(10, 16), st.integers(24, 40))
def test_each_table_keeps_its_own_extremes(seed, first_rows, second_rows):
    rng = random.Random(seed)
    t1, _ = _table(rng, "Message Queues", ["key", "msqid", "owner", "perms", "used-bytes", "messages"], first_rows)
    t2, asked = _table(rng, "Shared Memory Segments", ["key", "shmid", "owner", "perms", "nattch", "bytes"],
                       second_rows, big=100_663_296)
    t3, _ = _table(rng, "Semaphore Arrays", ["key", "semid", "owner", "perms", "nsems"], 9)
    text = f"\n{t1}\n\n{t2}\n\n{t3}\n"
    lines = text.split("\n")
    blocks = table_blocks(lines)
    assert blocks is not None and len(blocks) == 3
    got = tool_round("ipcs -a", text, "Which shared memory segment is the biggest?")
    assert got != text
    assert asked in got
    # each table keeps its title and header, and its own column line
    for title in ("Message Queues", "Shared Memory Segments", "Semaphore Arrays"):
        assert title in got
    assert sum(1 for ln in got.splitlines() if ln.startswith("# ") and " rows x " in ln) >= 2


def test_one_table_with_a_blank_line_inside_is_not_several():
    rng = random.Random(5)
    t1, _ = _table(rng, "Segments", ["key", "shmid", "owner", "perms", "bytes"], 20)
    rows = t1.split("\n")
    text = "\n".join(rows[:12] + [""] + rows[12:]) + "\n"  # a blank line among its rows
    assert table_blocks(text.split("\n")) is None


def test_a_flag_column_keeps_its_one_odd_value_and_names_come_from_the_header():
    rng = random.Random(9)
    names = ["key", "shmid", "owner", "perms", "bytes", "nattch", "status"]
    lines = ["".join(f"{n:<11}" for n in names)]
    odd = rng.randrange(5, 35)
    asked = None
    for r in range(40):
        cells = [f"0x{rng.randrange(16**8):08x}", str(r), "root", "644", str(rng.randrange(4096, 9999)),
                 "1" if r == odd else "0"]
        lines.append("".join(f"{c:<11}" for c in cells))
        if r == odd:
            asked = lines[-1]
    text = "\n".join(lines) + "\n"
    layout = infer(text.split("\n"))
    assert layout is not None and layout.names == tuple(names)
    got = tool_round("ipcs -m", text, "Give me an overview of the segments.")
    assert got != text
    assert asked in got
