"""One table printed per thing, each under a line naming it (issue 33, tenth session).

``prlimit`` run for each of a dozen workers prints the same sixteen rows a worker, under
"== PID name" and the header again. The title lines closed the gutters (the columns read
wrong), the groups' rows tied every question, and the one worker allowed core dumps, or
given a larger stack, left view with the line naming it. Now the titles are read as
titles, a row unlike the same row of the other groups stays, and a kept row brings its
group's title.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys

import pytest

from headroom.compressors.tables.aligned import group_titles, infer

from .tool_rounds import tool_round

_ROWS = (  # resource, description, soft, hard, units: the usual limits
    ("AS", "address space limit", "unlimited", "unlimited", "bytes"),
    ("CORE", "max core file size", "0", "0", "bytes"),
    ("CPU", "CPU time", "unlimited", "unlimited", "seconds"),
    ("DATA", "max data size", "unlimited", "unlimited", "bytes"),
    ("FSIZE", "max file size", "unlimited", "unlimited", "bytes"),
    ("LOCKS", "max number of file locks held", "unlimited", "unlimited", "locks"),
    ("MEMLOCK", "max locked-in-memory address space", "65536", "65536", "bytes"),
    ("NOFILE", "max number of open files", "1024", "4096", "files"),
    ("NPROC", "max number of processes", "2048", "2048", "processes"),
    ("RSS", "max resident set size", "unlimited", "unlimited", "bytes"),
    ("SIGPENDING", "max number of pending signals", "96365", "96365", "signals"),
    ("STACK", "max stack size", "8388608", "unlimited", "bytes"),
)
_ODD = {"CORE": ("unlimited", "unlimited"), "NOFILE": ("16384", "20000"), "STACK": ("67108864", "134217728"),
        "NPROC": ("37", "37"), "CPU": ("3600", "3900")}
_NAMES = ("mail-relay", "thumb-gen", "geo-lookup", "ingest-router", "crash-probe", "pdf-render", "cron-shim",
          "batch-scorer", "deep-parser", "pinned-cache", "spool-writer", "log-shipper", "auth-proxy", "img-cache")


def _table(rows) -> list[str]:
    soft = max(4, *(len(r[2]) for r in rows))
    hard = max(4, *(len(r[3]) for r in rows))
    out = [f"{'RESOURCE':<10} {'DESCRIPTION':<34} {'SOFT':>{soft}} {'HARD':>{hard}} UNITS"]
    out += [f"{r[0]:<10} {r[1]:<34} {r[2]:>{soft}} {r[3]:>{hard}} {r[4]}" for r in rows]
    return out


def _looped(rng: random.Random, odd: dict[str, str]) -> str:
    """The table per worker; ``odd`` maps a resource to the worker whose limit differs."""
    out: list[str] = []
    for k, name in enumerate(_NAMES):
        rows = [(r[0], r[1], *(_ODD[r[0]] if odd.get(r[0]) == name else r[2:4]), r[4]) for r in _ROWS]
        out.append(f"== {13389 + k} {name}")
        out += _table(rows)
    return "\n".join(out) + "\n"


def test_titles_are_no_rows_of_the_columns():
    text = _looped(random.Random(0), {"CORE": "crash-probe"})
    lines = text.split("\n")
    layout = infer(lines)
    assert layout is not None and layout.names[:3] == ("RESOURCE", "DESCRIPTION", "SOFT")
    nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
    assert len(group_titles(lines, nonblank, layout.header)) == len(_NAMES) - 1


@pytest.mark.parametrize("seed", range(4))
def test_the_odd_worker_stays_with_its_name(seed):
    rng = random.Random(seed)
    resources = rng.sample(sorted(_ODD), 3)
    workers = rng.sample(_NAMES[1:-1], 3)
    odd = dict(zip(resources, workers))
    got = tool_round("for p in $(pgrep -f worker); do echo \"== $p $(ps -o comm= $p)\"; prlimit --pid $p; done",
                     _looped(rng, odd), "Which workers got limits unlike the rest?")
    lines = got.split("\n")
    for resource, worker in odd.items():
        title = next(k for k, ln in enumerate(lines) if ln.endswith(f" {worker}"))
        row = next(k for k, ln in enumerate(lines) if ln.startswith(resource + " ") and _ODD[resource][0] in ln.split())
        # The odd row under its own worker's title: no other title between them.
        assert title < row and not any(ln.startswith("== ") for ln in lines[title + 1:row])


def test_a_table_printed_once_has_no_groups():
    lines = _table(_ROWS) + _table(_ROWS)[1:]
    layout = infer(lines)
    nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
    assert group_titles(lines, nonblank, layout.header if layout else None) == set()


@pytest.mark.skipif(shutil.which("prlimit") is None, reason="util-linux prlimit not installed")
def test_real_prlimit_over_processes_with_one_odd_limit():
    procs = []
    try:
        for k in range(8):
            limits = ["--nofile=1536:3072"] if k == 5 else []
            procs.append(subprocess.Popen(["prlimit", *limits, sys.executable, "-c", "import time; time.sleep(30)"]))
        out = []
        for p in procs:
            out.append(f"== {p.pid} worker-{procs.index(p)}")
            out.append(subprocess.run(["prlimit", "--pid", str(p.pid)], capture_output=True, text=True,
                                      check=True).stdout.rstrip("\n"))
        text = "\n".join(out) + "\n"
    finally:
        for p in procs:
            p.kill()
            p.wait()
    got = tool_round("for p in ...; do prlimit --pid $p; done", text, "Which worker may open more files than the rest?")
    assert "worker-5" in got and "1536" in got.split("worker-5", 1)[1]


def _df_per_node(rng: random.Random, full: tuple[int, str]) -> str:
    """``df -P`` run on each of 40 nodes under a "--- node ---" line, with short device
    names (narrower than "Filesystem", as GNU df prints them) and one full filesystem."""
    out = []
    mounts = ["/", "/boot", "/var", "/home", "/srv/data", "/tmp", "/var/log", "/opt"]
    for h in range(40):
        out.append(f"--- node{h:02d}.cluster ---")
        out.append(f"{'Filesystem':<14} {'1024-blocks':>11} {'Used':>9} {'Available':>9} {'Capacity':>8} Mounted on")
        for k, m in enumerate(mounts):
            size = 50_000_000 + k * 1_000_000
            pct = 97 if (h, m) == full else rng.randrange(20, 70)
            used = size * pct // 100
            out.append(f"{'/dev/sda' + str(k + 1):<14} {size:>11} {used:>9} {size - used:>9} {str(pct) + '%':>8} {m}")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("seed", range(3))
def test_df_per_node_under_dashed_titles_keeps_the_full_filesystem_with_its_node(seed):
    rng = random.Random(seed)
    full = (rng.randrange(5, 35), rng.choice(["/var", "/home", "/srv/data"]))
    text = _df_per_node(rng, full)
    layout = infer(text.split("\n"))
    assert layout is not None and layout.names[0] == "Filesystem" and layout.names[-1] == "Mounted on"
    got = tool_round("for h in $(cat nodes); do echo \"--- $h ---\"; ssh $h df -P; done", text,
                     "Is any node running out of disk space? Which one, and where?")
    lines = got.split("\n")
    row = next(k for k, ln in enumerate(lines) if ln.endswith(f" {full[1]}") and "97%" in ln)
    title = max(k for k, ln in enumerate(lines[:row]) if ln.startswith("--- node"))
    assert lines[title] == f"--- node{full[0]:02d}.cluster ---"
    assert len(got) < 0.3 * len(text)
