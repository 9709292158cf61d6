"""Whitespace-aligned tables (dpkg -l, ps, ls -l, kubectl get): detection by gutters, the
row a question names or asks the extreme of in view, rows byte-identical."""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType, detect_content_type
from headroom.compressors.tables.aligned import cells, infer
from headroom.compressors.tables.csv_compressor import TableCompressor
from headroom.config import HeadroomConfig
from headroom.eval.corpus import load_cases
from headroom.query.anchors import extract_anchors
from headroom.tokens import count_tokens, counter_for


def run(text: str, query: str = ""):
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=query,
                        anchors=extract_anchors(query))
    return TableCompressor().compress(inp)


def aligned(rows: list[list[str]], gap: str) -> str:
    """Rows as a left-aligned text table, each column as wide as its widest cell."""
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return "\n".join(gap.join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows) + "\n"


def kubectl(n: int = 120, seed: int = 3) -> tuple[str, list[list[str]]]:
    """`kubectl get pods`-shaped: left-aligned names, a right-aligned-looking number column."""
    rnd = random.Random(seed)
    rows = [["NAME", "READY", "STATUS", "RESTARTS", "AGE"]]
    for i in range(n):
        status = "CrashLoopBackOff" if i == 77 else rnd.choice(["Running", "Running", "Running", "Completed"])
        rows.append([f"api-{rnd.randrange(16**6):06x}-{i:03d}", f"{rnd.randint(0, 2)}/2", status,
                     str(41 if i == 77 else rnd.randint(0, 3)), f"{rnd.randint(1, 90)}d"])
    text = aligned(rows, "   ")
    return text, rows


def test_kubectl_shape_is_a_table_with_its_header_names() -> None:
    text, rows = kubectl()
    assert detect_content_type(text) is ContentType.TABLE
    layout = infer(text.split("\n"))
    assert layout is not None and layout.names == tuple(rows[0]) and layout.header == 0
    assert [cells(ln, layout.starts) for ln in text.split("\n")[1:4]] == rows[1:4]


@pytest.mark.parametrize("question", [
    "Which pod restarted the most?",
    "What is the highest RESTARTS count, and on which pod?",
    "Which pod has restarted most often?",
])
def test_extreme_row_in_view_for_paraphrases(question: str) -> None:
    text, rows = kubectl()
    out = run(text, question)
    assert out is not None
    worst = next(ln for ln in text.split("\n") if "CrashLoopBackOff" in ln)
    assert worst in out.text.split("\n")
    assert text.split("\n")[0] in out.text  # the header
    assert count_tokens(out.text) < 0.2 * count_tokens(text)


def test_named_row_in_view() -> None:
    text, rows = kubectl()
    name = rows[50][0]
    out = run(text, f"What is the status of {name}?")
    assert any(ln.startswith(name + " ") for ln in out.text.split("\n"))


def open_files(seed: int = 5) -> tuple[str, dict[str, list[str]]]:
    """An `lsof`-shaped table: a dozen commands holding 10-30 files each, one of them a
    write to a spool file among libraries, pipes and sockets."""
    rnd = random.Random(seed)
    rows, by_command = [["COMMAND", "PID", "USER", "FD", "TYPE", "SIZE", "NAME"]], {}
    names = ["gateway", "scheduler", "uploader", "cartographer", "reporter", "janitor", "relay", "sentinel",
             "ledger", "courier", "harvester", "curator"]
    for pid, command in enumerate(names, start=100):
        own = []
        for fd in range(rnd.randint(10, 30)):
            kind = rnd.choice(["mem", "mem", "pipe", "sock", "txt"])
            name = {"mem": f"/usr/lib/lib{rnd.choice('abcdefgh')}{fd}.so", "pipe": "pipe", "sock": "socket",
                    "txt": "/usr/bin/python3"}[kind]
            own.append([command, str(pid), "svc", "mem" if kind in ("mem", "txt") else f"{fd}u",
                        "REG" if kind in ("mem", "txt") else "FIFO", str(rnd.randint(1, 90_000)), name])
        own.insert(rnd.randrange(len(own)), [command, str(pid), "svc", "3w", "REG", str(rnd.randint(1, 9_000)),
                                             f"/var/spool/{command}/{rnd.randrange(16**8):08x}.wal"])
        rows += own
        by_command[command] = own
    text = aligned(rows, "  ")
    return text, by_command


@pytest.mark.parametrize("command", ["uploader", "ledger", "curator"])
def test_every_row_of_a_named_command_stays(command: str) -> None:
    # The question names a command that owns a few dozen rows of ~250, and asks about one of
    # them in words no cell holds: two rows picked by relevance rarely hold it, so all stay.
    text, by_command = open_files()
    out = run(text, f"Where does the {command} process append its records?")
    assert out is not None
    kept = set(out.text.split("\n"))
    lines = {tuple(r): ln for r, ln in zip(
        [r for rs in by_command.values() for r in rs], [ln for ln in text.split("\n")[1:] if ln])}
    for row in by_command[command]:
        assert lines[tuple(row)] in kept
    assert count_tokens(out.text) < 0.4 * count_tokens(text)


def sockets(seed: int = 11) -> tuple[str, str]:
    """An `ss -tanp`-shaped table: listeners, and a client's connections to one of them,
    seen from both ends, among unrelated ones. The port is a token of address cells."""
    rnd = random.Random(seed)
    procs = ["beacon", "quarry-index-writer", "lantern", "thimble", "orchard", "gazette"]

    def unrelated(k: int) -> list[str]:
        proc = rnd.choice(procs)
        return ["tcp", "ESTAB", str(rnd.choice([0, 0, 0, rnd.randint(1, 9000)])), "0",
                f"10.0.{k % 4}.{rnd.randint(2, 250)}:{rnd.randint(30000, 60000)}",
                f"10.1.{k % 3}.{rnd.randint(2, 250)}:{rnd.choice([443, 5432, 6379])}",
                f'users:(("{proc}",pid={20 + procs.index(proc)},fd={rnd.randint(5, 90)}))']

    rows = [["Netid", "State", "Recv-Q", "Send-Q", "Local", "Peer", "Process"]]
    rows += [unrelated(k) for k in range(50)]
    for k in range(6):  # the client "courier" (pid 40) connects to quarry's port 7021 six times
        eph = 51000 + 7 * k
        rows.append(["tcp", "ESTAB", "0", "0", f"127.0.0.1:{eph}", "127.0.0.1:7021",
                     f'users:(("courier",pid=40,fd={30 + k}))'])
        rows.append(["tcp", "ESTAB", "0", "0", "127.0.0.1:7021", f"127.0.0.1:{eph}",
                     f'users:(("quarry-index-writer",pid=21,fd={4 + k}))'])
    for pid, proc in enumerate(procs, start=20):
        rows.append(["tcp", "LISTEN", "0", "4096" if pid == 20 else "128", f"127.0.0.1:{7000 + pid}", "0.0.0.0:*",
                     f'users:(("{proc}",pid={pid},fd=3))'])
    rows += [unrelated(k) for k in range(70)]
    text = aligned(rows, "  ")
    return text, next(ln for ln in text.split("\n") if "LISTEN" in ln and ":7021 " in ln)


@pytest.mark.parametrize("question", [
    "Which process owns the TCP socket on port 7021?",
    "Who is listening on 7021?",
    "What pid is bound to port 7021?",
])
def test_a_port_the_question_names_keeps_its_listener(question: str) -> None:
    # The port is not a cell but a token of "127.0.0.1:7021", held by the listener and by a
    # dozen connections (both ends): relevance alone picks two of the connections.
    text, listener = sockets()
    out = run(text, question)
    assert out is not None and out.lossy
    assert listener in out.text.split("\n")
    assert count_tokens(out.text) < 0.5 * count_tokens(text)


def ps_aux(seed: int = 2) -> tuple[str, str]:
    """``ps aux``-shaped, formatted the way procps pads it: a few RSS values past 99 999 KiB
    overflow their 5-character column and push the rest of their row right. Returns the
    text and the busiest process's line."""
    rnd = random.Random(seed)
    head = f"{'USER':<8} {'PID':>7} {'%CPU':>4} {'%MEM':>4} {'VSZ':>6} {'RSS':>5} {'TTY':<8} {'STAT':<4} " \
           f"{'START':>5} {'TIME':>6} COMMAND"
    rows, busiest = [head], ""
    roles = ["ingest", "resize", "indexer", "mailer", "scheduler", "exporter", "reindex", "archiver"]
    for pid in range(1, 48):
        rss = rnd.randint(100_000, 400_000) if pid % 12 == 2 else rnd.randint(2_000, 60_000)  # 4 of 47 overflow
        cpu = 48.7 if pid == 29 else round(rnd.uniform(0, 6), 1)
        user = "postgres" if pid == 12 else "svc"
        stat = "T" if pid == 40 else rnd.choice(["S", "S", "Sl"])
        elapsed = "1:07" if pid == 21 else f"0:0{pid % 10}"
        line = (f"{user:<8} {pid:>7} {cpu:>4} {rnd.uniform(0, 2):>4.1f} {rss + 2_700:>6} {rss:>5} {'?':<8} "
                f"{stat:<4} {'02:45':>5} {elapsed:>6} "
                f"/usr/bin/python3 worker.py --role {'thumbnailer' if pid == 33 else rnd.choice(roles)} --shard {pid}")
        rows.append(line)
        busiest = line if pid == 29 else busiest
    return "\n".join(rows) + "\n", busiest


def test_overflowing_numbers_keep_the_header_names_and_times_do_not_make_it_a_log() -> None:
    text, busiest = ps_aux()
    layout = infer(text.split("\n"))
    assert layout is not None and layout.names == ("USER", "PID", "%CPU", "%MEM", "VSZ", "RSS", "TTY", "STAT",
                                                   "START", "TIME", "COMMAND")
    assert detect_content_type(text) is ContentType.TABLE
    for question in ("What has been keeping the CPU busy?", "Which process uses the most CPU?"):
        out = run(text, question)
        assert out is not None and busiest in out.text.split("\n")
    # A named column and a row named inside the command line: the row, not only the extremes.
    thumbnailer = next(ln for ln in text.split("\n") if "--role thumbnailer " in ln)
    for question in ("What is the RSS of the thumbnailer process?", "How much resident memory does thumbnailer use (RSS)?"):
        assert thumbnailer in run(text, question).text.split("\n")


def test_rare_values_stay_and_elapsed_times_are_numbers() -> None:
    # The one stopped process and the one row of another user stay whatever is asked (a
    # categorical column's value held by a few rows); "0:00"-style times are seconds, so
    # the most CPU time is an extreme.
    text, _ = ps_aux()
    lines = text.split("\n")
    stopped = next(ln for ln in lines if ln.split()[1:2] == ["40"])
    other_user = next(ln for ln in lines if ln.startswith("postgres "))
    longest = next(ln for ln in lines if " 1:07 " in ln)
    for question in ("Anything unusual in this process list?", "Which process has used the most CPU time?"):
        kept = run(text, question).text.split("\n")
        assert stopped in kept and other_user in kept
    assert longest in run(text, "Which process has used the most CPU time?").text.split("\n")
    assert "TIME 0:00..1:07" in run(text, "What runs here?").text


def test_a_summary_above_the_header_is_kept_and_the_table_still_read() -> None:
    # top prints a few summary lines and a blank line above its process table.
    text, busiest = ps_aux()
    summary = ("top - 10:15:02 up 3 days,  2:01,  0 users,  load average: 1.81, 1.21, 1.33\n"
               "Tasks:  47 total,   1 running,  45 sleeping,   1 stopped,   0 zombie\n"
               "MiB Mem :  24105.6 total,  13549.8 free,   1819.5 used,   9090.6 buff/cache\n\n")
    layout = infer((summary + text).split("\n"))
    assert layout is not None and layout.header == 4 and layout.names[:3] == ("USER", "PID", "%CPU")
    assert detect_content_type(summary + text) is ContentType.TABLE
    out = run(summary + text, "Which process uses the most CPU?")
    assert out.text.startswith(summary) and busiest in out.text.split("\n")


def test_ls_l_of_a_real_directory_keeps_the_largest_file(tmp_path) -> None:
    # A real `ls -l` (no header, a "total" line first); sizes are ours, so the answer is
    # known without reading the listing back.
    for i in range(40):
        (tmp_path / f"file_{i:02d}.dat").write_bytes(b"x" * (1000 + 37 * i))
    (tmp_path / "huge_blob.bin").write_bytes(b"y" * 987_654)
    os.symlink("file_01.dat", tmp_path / "link to file")
    text = subprocess.run(["ls", "-l", str(tmp_path)], capture_output=True, text=True, check=True,
                          env={**os.environ, "LC_ALL": "C"}).stdout
    assert detect_content_type(text) is ContentType.TABLE
    out = run(text, "Which file here is the biggest?")
    assert any(" 987654 " in ln and ln.endswith("huge_blob.bin") for ln in out.text.split("\n"))
    assert out.text.split("\n")[0].startswith("total ")


@pytest.mark.skipif(shutil.which("dpkg") is None, reason="dpkg -l needs a Debian system")
def test_dpkg_l_of_this_machine_keeps_the_asked_package() -> None:
    text = subprocess.run(["dpkg", "-l"], capture_output=True, text=True, check=True,
                          env={**os.environ, "COLUMNS": "160"}).stdout
    pkg, version = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Version}\n", "dpkg"],
                                  capture_output=True, text=True, check=True).stdout.strip().split("\t")
    out = run(text, f"Which version of the {pkg} package is installed?")
    assert out is not None and out.strategy == "table_aligned"
    assert any(f" {pkg} " in ln and version in ln for ln in out.text.split("\n"))
    assert "||/ Name" in out.text  # dpkg's legend and header stay


def test_real_aligned_tables_from_the_corpus() -> None:
    for case in load_cases("dev", sources=["aligned_tables"]):
        assert detect_content_type(case.content) is ContentType.TABLE, case.id


LOOKALIKES = {
    "fixed-width log": "\n".join(f"2026-11-22 03:{i // 60:02d}:{i % 60:02d},123  INFO   worker-{i % 4}  "
                                 f"processed batch {i} in {i * 3 % 97} ms" for i in range(60)),
    "prose": "\n".join(["The quick brown fox jumps over the lazy dog, and then it  rests for a while."] * 20),
    "two-column listing": "\n".join(f"package-{i}    1.{i}.0" for i in range(30)),
    "python code": "\n".join(f"def f{i}(x):\n    return  x * {i}\n" for i in range(20)),
}


@pytest.mark.parametrize("name", sorted(LOOKALIKES))
def test_lookalikes_are_not_aligned_tables(name: str) -> None:
    assert detect_content_type(LOOKALIKES[name]) is not ContentType.TABLE


_cell = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.-_", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_cell, min_size=4, max_size=4), min_size=13, max_size=60), st.integers(0, 59))
def test_property_aligned_rows_kept_verbatim_and_cells_split_back(rows, pick) -> None:
    header = ["NAME", "KIND", "SIZE", "OWNER"]
    rows = [[f"r{i}-{r[0]}", *r[1:]] for i, r in enumerate(rows)]  # distinct rows, as in real listings
    table = [header, *rows]
    widths = [max(len(r[k]) for r in table) for k in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
    text = "\n".join(lines)
    layout = infer(lines)
    assert layout is not None
    assert [cells(ln, layout.starts) for ln in lines[1:]] == rows
    named = rows[pick % len(rows)][0]
    out = run(text, f"tell me about {named}")
    if out is None:
        return  # nothing worth dropping
    body = [ln for ln in out.text.split("\n") if ln != "…" and not ln.startswith("# ")]
    assert all(ln in lines for ln in body)


def test_huge_lines_do_not_make_a_huge_grid() -> None:
    import tracemalloc

    text, _ = kubectl()
    lines = text.split("\n")
    for k in range(1, 100, 7):
        lines[k] = lines[k] + " " + "z" * 1_000_000  # megabyte-long last cells
    tracemalloc.start()
    try:
        layout = infer(lines)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000  # a grid as wide as the longest line would be 120 MB
    assert layout is not None and layout.names[0] == "NAME"


@settings(max_examples=300, deadline=None)
@given(line=st.text(alphabet=" ab1\t.", max_size=40),
       starts=st.lists(st.integers(0, 45), min_size=1, max_size=6, unique=True).map(lambda xs: tuple(sorted(xs))))
def test_cells_are_the_slices_between_column_starts(line, starts):
    bounds = (*starts[1:], max(len(line), starts[-1]))
    assert cells(line, starts) == [line[a:b].strip() for a, b in zip(starts, bounds)]


def _readelf_symbols_and_histogram() -> str | None:
    import glob
    import subprocess

    libs = sorted(glob.glob("/lib/*/libz.so.1") + glob.glob("/usr/lib/*/libz.so.1"))
    if not libs or shutil.which("readelf") is None:
        return None
    return subprocess.run(["readelf", "--dyn-syms", "--histogram", "-W", libs[0]], capture_output=True,
                          text=True, check=True).stdout


def test_a_block_after_a_blank_line_does_not_close_the_tables_gutters():
    """readelf prints its histogram after the symbol table, a blank line between: the
    histogram's columns must not merge the table's Value and Size into one column."""
    text = _readelf_symbols_and_histogram()
    if text is None:
        pytest.skip("needs readelf and libz")
    lines = text.strip("\n").split("\n")[1:]  # from the table's title on
    layout = infer(lines)
    assert layout is not None
    assert "Value" in layout.names and "Size" in layout.names
