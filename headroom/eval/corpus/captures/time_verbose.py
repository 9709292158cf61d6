"""GNU time's verbose report, ``/usr/bin/time -v`` (23 ``Field: value`` lines per command:
user and system seconds, CPU share, wall clock, maximum resident set, page faults, context
switches, file-system blocks, exit status), for each job of two maintenance scripts, the
reports one after another as the script's stderr gives them (the jobs' own output dropped).

Each script runs jobs that differ in one way: one holds far more memory, one burns CPU,
one writes and syncs a file, one sleeps, one ticks (hundreds of short sleeps), one exits
non-zero, one kills itself with a signal. Facts come from the kernel's accounting of the
same runs read by another reader, ``os.wait4`` on each ``time`` process (its
``rusage`` covers the job it waited for) and the capture's own clock, never from
``time``'s text; a question is asked only where its extreme leads the next job clearly.
The answer is the job's command line as ``time`` writes it (``Command being timed``).
Held out (issue 33, seventh round): no dev source holds resource-usage reports.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases

SOURCE = "time_verbose"
SCRIPTS = {  # name: the jobs, each an argv run in the work directory
    "nightly": (
        ["sort", "-o", "access.sorted", "access.log"],
        ["python3", "-S", "build_index.py"],
        ["gzip", "-9", "-k", "-f", "access.log"],
        ["grep", "-c", "-F", "status=503", "access.log"],
        ["dd", "if=/dev/zero", "of=blob.bin", "bs=1M", "count=64", "conv=fsync", "status=none"],
        ["grep", "-q", "-F", "trace-id=ffff0000", "access.log"],
        ["python3", "-S", "ticker.py"],
        ["sleep", "1.8"],
        ["wc", "-l", "access.log"],
    ),
    "deploy": (
        ["tar", "-cf", "site.tar", "site"],
        ["python3", "-S", "warm_cache.py"],
        ["xz", "-3", "-k", "-f", "-T1", "site.tar"],
        ["python3", "-S", "health_probe.py"],
        ["cp", "site.tar", "site.bak"],
        ["python3", "-S", "stop_old.py"],
        ["sleep", "1.4"],
    ),
}
PROGRAMS = {
    "build_index.py": "data = [bytes(64) * 64 for _ in range(60000)]\nblob = bytearray(b'x' * (180 << 20))\n",
    "warm_cache.py": "cache = bytearray(b'c' * (150 << 20))\n",
    "ticker.py": "import time\nfor _ in range(400):\n    time.sleep(0.002)\n",
    "health_probe.py": "import sys\nsys.exit(3)\n",
    "stop_old.py": "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n",
}


def make_files(work: Path) -> None:
    rng = random.Random(337)
    lines = [f"10.0.{rng.randint(0, 255)}.{rng.randint(1, 254)} GET /api/v1/items/{rng.randint(1, 99999)} "
             f"status={rng.choice([200] * 30 + [404, 503])} ms={rng.randint(1, 900)}\n" for _ in range(120000)]
    (work / "access.log").write_text("".join(lines))
    (work / "site").mkdir()
    for i in range(40):
        (work / "site" / f"page-{i:02d}.html").write_text("<p>" + " ".join(rng.choice(["lorem", "ipsum", "dolor"])
                                                                       for _ in range(30000)) + "</p>\n")
    for name, body in PROGRAMS.items():
        (work / name).write_text(body)


def run_jobs(work: Path, jobs) -> tuple[str, list[dict[str, Any]]]:
    """The reports, and per job the kernel's accounting (``wait4``) and the wall time."""
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LC_ALL": "C"}
    report, seen = [], []
    for argv in jobs:
        t0 = time.monotonic()
        p = subprocess.Popen(["/usr/bin/time", "-v", *argv], cwd=work, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        seen.append({"command": " ".join(argv), "wall": time.monotonic() - t0, "maxrss": ru.ru_maxrss,
                     "user": ru.ru_utime, "written": ru.ru_oublock, "voluntary": ru.ru_nvcsw,
                     "exit": p.returncode})
        report.append(err)
    return "".join(report), seen


def leader(jobs: list[dict[str, Any]], key: str, margin: float = 1.5) -> tuple[str, ...]:
    """The job whose ``key`` is at least ``margin`` times the next one's, else none."""
    ranked = sorted(jobs, key=lambda j: j[key], reverse=True)
    return (ranked[0]["command"],) if ranked[0][key] >= margin * max(ranked[1][key], 1e-9) else ()


def build(work: Path) -> list[dict[str, Any]]:
    make_files(work)
    outputs, answers = {}, {}
    for name, jobs in SCRIPTS.items():
        content, seen = run_jobs(work, jobs)
        outputs[name] = Output({"command": f"./{name}.sh 2>&1 >/dev/null"}, "text", content)
        # time exits with its job's status, or 128 + the signal that ended it (as a shell does)
        failed = tuple(j["command"] for j in seen if 0 < j["exit"] < 128)
        killed = tuple(j["command"] for j in seen if j["exit"] >= 128)
        answers[name] = {"memory": leader(seen, "maxrss"), "cpu": leader(seen, "user"),
                         "writes": leader(seen, "written"), "wall": leader(seen, "wall", 1.2),
                         "switches": leader(seen, "voluntary"),
                         "failed": failed if len(failed) == 1 else (),
                         "killed": killed if len(killed) == 1 else ()}

    def of(key: str):
        return lambda output: answers[output][key]

    asks = [
        Ask("most_memory", "extreme", "extreme", of("memory"), "os.wait4 ru_maxrss, the largest",
            ("Which job needed the most memory?", "Which command had the highest peak RSS?",
             "What was the most memory-hungry step?")),
        Ask("most_cpu", "extreme", "extreme", of("cpu"), "os.wait4 ru_utime, the largest",
            ("Which job used the most CPU time in user mode?", "Which step burned the most CPU?")),
        Ask("most_writes", "extreme", "extreme", of("writes"), "os.wait4 ru_oublock, the largest",
            ("Which job wrote the most to the file system?", "Which command did the most disk output?")),
        Ask("longest", "extreme", "extreme", of("wall"), "the capture's monotonic clock around each job",
            ("Which job took the longest wall-clock time?", "What was the slowest step, end to end?")),
        Ask("most_switches", "extreme", "extreme", of("switches"), "os.wait4 ru_nvcsw, the largest",
            ("Which job gave up the CPU voluntarily most often?",
             "Which command had the most voluntary context switches?")),
        Ask("failed", "errors", "named_item", of("failed"), "os.wait4 exit status, the only non-zero one",
            ("Which job failed?", "Did any step exit with an error? Which one?")),
        Ask("killed", "errors", "named_item", of("killed"), "os.wait4 status of time: 128 + signal, the only one",
            ("Which job was killed by a signal?", "Did any step die from a signal rather than exiting?")),
    ]
    out = asked_cases(SOURCE, outputs, asks)
    assert len(out) >= 9, f"too few {SOURCE} cases: {len(out)}"
    return out
