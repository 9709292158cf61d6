"""System activity as a time series, one row a second: procps ``vmstat -w -t 1 N`` (run
queue, memory, swap, block I/O, interrupts, CPU shares, a timestamp per row), ``vmstat -a
-w -t 1 N`` (active/inactive memory instead of buffers/cache) and sysstat's ``mpstat 1 N``
(CPU shares per interval, then an average) and ``mpstat -o JSON 1 N`` (the same intervals
as nested JSON), all four sampling the same two runs of a load the capture makes.

Each run is ~24 quiet seconds with two events at times the capture records with its own
clock: two processes passing a byte back and forth over pipes for about four seconds (a
storm of context switches), and two processes that burn the CPU in user space for about
four seconds (in the other order in the second run). Facts are
the rows whose whole interval fell inside an event by the capture's clock (a second's
margin at each end), never values read from the tools' text; a question is asked only
where those rows also stand out in the output (context switches, or user CPU, above every
row wholly outside the event), so the machine's other work cannot make another row the answer. The
answer is the row's timestamp as the tool writes it. Held out (issue 33, seventh round): no
dev source holds a sampled time series.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases

SOURCE = "vm_series"
SAMPLES = 24
PINGPONG = """import os, sys, time
a, b = os.pipe()
c, d = os.pipe()
end = time.monotonic() + float(sys.argv[1])
if os.fork() == 0:
    while os.read(a, 1) == b"p":
        os.write(d, b"q")
    os._exit(0)
while time.monotonic() < end:
    os.write(b, b"p")
    os.read(c, 1)
os.write(b, b"x")
os.wait()
"""
BURN = "import time\nend = time.monotonic() + float(__import__('sys').argv[1])\nwhile time.monotonic() < end:\n    pass\n"
TOOLS = {  # output: (command, argv, form)
    "vmstat": ("vmstat -w -t 1 24", ["vmstat", "-w", "-t", "1", str(SAMPLES)], "text"),
    "vmstat_active": ("vmstat -a -w -t 1 24", ["vmstat", "-a", "-w", "-t", "1", str(SAMPLES)], "text"),
    "mpstat": ("mpstat 1 24", ["mpstat", "1", str(SAMPLES)], "text"),
    "mpstat_json": ("mpstat -o JSON 1 24", ["mpstat", "-o", "JSON", "1", str(SAMPLES)], "json"),
}


def switch_event(work: Path) -> tuple[float, float]:
    """Two processes passing a byte back and forth over pipes: a storm of context switches."""
    (work / "pingpong.py").write_text(PINGPONG)
    start = time.time()
    subprocess.run([sys.executable, "-S", str(work / "pingpong.py"), "4.2"], check=True, timeout=30)
    return start + 0.1, time.time()


def cpu_event(work: Path) -> tuple[float, float]:
    (work / "burn.py").write_text(BURN)
    start = time.time()
    procs = [subprocess.Popen([sys.executable, "-S", str(work / "burn.py"), "4.2"]) for _ in range(2)]
    for p in procs:
        p.wait(timeout=30)
    return start + 0.1, time.time()


def one_run(work: Path, order: tuple[str, ...]) -> tuple[dict[str, str], dict[str, tuple[float, float]]]:
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}
    tools = {name: subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
             for name, (_, argv, _) in TOOLS.items()}
    windows = {}
    time.sleep(5)
    for event in order:
        windows[event] = (switch_event if event == "switch" else cpu_event)(work)
        time.sleep(4)
    texts = {name: p.communicate(timeout=60)[0] for name, p in tools.items()}
    return texts, windows


def seconds(stamp: str, window: tuple[float, float]) -> float:
    """A printed timestamp as Unix time; a bare ``%H:%M:%S`` (mpstat) is on the window's day."""
    if " " not in stamp:
        stamp = datetime.fromtimestamp(window[0], UTC).strftime("%Y-%m-%d ") + stamp
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC).timestamp()


def inside(window: tuple[float, float], rows: list[str]) -> tuple[str, ...]:
    """Timestamps (among ``rows``, as the tool writes them) of the seconds whose interval lay
    wholly inside ``window``: printed second S covers part of (S-1, S+1) of real time."""
    lo, hi = window
    return tuple(s for s in rows if seconds(s, window) - 1 >= lo and seconds(s, window) + 1 <= hi)


def outside(window: tuple[float, float], rows: list[str]) -> list[str]:
    """Timestamps whose interval lay wholly outside ``window`` (the rows to compare with)."""
    lo, hi = window
    return [s for s in rows if seconds(s, window) + 1 <= lo or seconds(s, window) - 1 >= hi]


def vmstat_rows(text: str) -> dict[str, dict[str, int]]:
    """Timestamp -> the row's fields, named by the header line above the rows (vmstat
    repeats its two header lines every screenful; rows start with a number)."""
    lines = text.splitlines()
    head = lines[1].split()[:-1]  # the last header word names the timestamp's zone
    return {" ".join(ln.split()[-2:]): dict(zip(head, map(int, ln.split()[:-2]), strict=False))
            for ln in lines[2:] if ln.split() and ln.split()[0].isdigit()}


def mpstat_json_rows(text: str) -> dict[str, dict[str, float]]:
    doc = json.loads(text)
    return {s["timestamp"]: s["cpu-load"][0] for s in doc["sysstat"]["hosts"][0]["statistics"]}


def standing_out(rows: dict[str, float], picked: tuple[str, ...], others: list[str]) -> tuple[str, ...]:
    """``picked`` if each of them is above every row of ``others``, else none."""
    if not picked or not others:
        return ()
    return picked if min(rows[k] for k in picked) > max(rows[k] for k in others) else ()


def build(work: Path) -> list[dict[str, Any]]:
    outputs, answers = {}, {}
    for run_name, order in (("a", ("switch", "cpu")), ("b", ("cpu", "switch"))):
        texts, windows = one_run(work, order)
        vm = {k: vmstat_rows(texts[k]) for k in ("vmstat", "vmstat_active")}
        mp = mpstat_json_rows(texts["mpstat_json"])
        vm_times = {k: list(v) for k, v in vm.items()}
        for name, (command, _, form) in TOOLS.items():
            key = f"{name}_{run_name}"
            outputs[key] = Output({"command": command}, form, texts[name])
            if name.startswith("vmstat"):
                rows = vm[name]
                answers[key] = {event: standing_out({k: r[col] for k, r in rows.items()},
                                                    inside(windows[event], vm_times[name]),
                                                    outside(windows[event], vm_times[name]))
                                for event, col in (("switch", "cs"), ("cpu", "us"))}
            else:
                answers[key] = {"cpu": standing_out({k: r["usr"] for k, r in mp.items()},
                                                    inside(windows["cpu"], list(mp)), outside(windows["cpu"], list(mp)))}

    def of(event: str):
        return lambda output: answers[output].get(event, ())

    asks = [
        Ask("switch_storm", "extreme", "extreme", of("switch"),
            "the capture's clock: rows wholly inside the pipe ping-pong (checked: cs above every row outside it)",
            ("When did context switches spike?", "At what times was the system switching tasks far more than usual?",
             "Which samples show the context-switch storm?")),
        Ask("cpu_spike", "extreme", "extreme", of("cpu"),
            "the capture's clock: rows wholly inside the CPU burn (checked: user CPU above every row outside it)",
            ("When was user-space CPU use highest?", "At what times did user CPU time spike?",
             "Which samples show the burst of user CPU?")),
    ]
    out = asked_cases(SOURCE, outputs, asks)
    assert len(out) >= 8, f"too few {SOURCE} cases: {len(out)}"
    return out
