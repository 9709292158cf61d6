"""Resource limits as util-linux ``prlimit`` prints them: the table of every limit (resource,
description, soft, hard, units) for each of fourteen workers a shell loop visits (``echo ==
pid name`` before each table), and ``prlimit --pid <pid> --raw -o RESOURCE,SOFT,HARD`` of
two of them (bare values; this prlimit has no JSON output).

The capture starts the workers, each naming itself (``/proc/self/comm``) and setting its
own limits with ``setrlimit`` before it sleeps: most share one profile; one may open far
more files, one may dump core, one has its address space capped, one may start very few
processes, one has a CPU-time limit, one a larger stack, one may lock much more memory, one
may not write files past 1 GiB (limits raised only as far as the capture's own hard
limits allow: it runs without ``CAP_SYS_RESOURCE``). Facts come from the kernel's ``/proc/<pid>/limits`` read by the
capture (another reader than ``prlimit``), checked against its record of what each worker
set, never from ``prlimit``'s text: the answer is a worker's name, or a limit's value as
the kernel writes it. Held out (issue 33, eighth round): no dev source holds resource
limit listings.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "process_limits"
# worker: the limits it sets (resource name in /proc/<pid>/limits, soft, hard); the rest keep the profile
COMMON = {"Max open files": (1024, 4096), "Max core file size": (0, 0), "Max processes": (2048, 2048),
          "Max locked memory": (65536, 65536)}
ODD = {
    "ingest-router": {"Max open files": (16384, 20000)},
    "crash-probe": {"Max core file size": ("unlimited", "unlimited")},
    "pdf-render": {"Max address space": (2147483648, 3221225472)},
    "cron-shim": {"Max processes": (37, 37)},
    "batch-scorer": {"Max cpu time": (3600, 3900)},
    "deep-parser": {"Max stack size": (67108864, 134217728)},
    "pinned-cache": {"Max locked memory": (8388608, 8388608)},
    "spool-writer": {"Max file size": (1073741824, 1073741824)},
}
PLAIN = ("mail-relay", "thumb-gen", "geo-lookup", "webhook-out", "search-feed", "log-shipper")
WORKER = r'''
import json, resource, sys, time
name, limits = sys.argv[1], json.loads(sys.argv[2])
open("/proc/self/comm", "w").write(name)
for res, (soft, hard) in limits.items():
    conv = lambda v: resource.RLIM_INFINITY if v == "unlimited" else v
    resource.setrlimit(getattr(resource, res), (conv(soft), conv(hard)))
print(flush=True)
time.sleep(600)
'''
RESOURCES = {"Max open files": "RLIMIT_NOFILE", "Max core file size": "RLIMIT_CORE", "Max processes": "RLIMIT_NPROC",
             "Max locked memory": "RLIMIT_MEMLOCK", "Max address space": "RLIMIT_AS", "Max cpu time": "RLIMIT_CPU",
             "Max stack size": "RLIMIT_STACK", "Max file size": "RLIMIT_FSIZE"}
RAW = ("--raw", "-o", "RESOURCE,SOFT,HARD")  # util-linux 2.38's prlimit has no JSON output
LOOP = 'for p in {pids}; do echo "== $p $(cat /proc/$p/comm)"; prlimit --pid $p; done'


def proc_limits(text: str) -> dict[str, tuple[str, str]]:
    """``/proc/<pid>/limits``: limit name -> (soft, hard) as the kernel writes them."""
    rows = {}
    for line in text.splitlines()[1:]:
        name, soft, hard = line[:26].strip(), *line[26:].split()[:2]
        rows[name] = (soft, hard)
    return rows


def the_one(limits: dict[str, dict], test) -> str:
    hits = [name for name, rows in limits.items() if test(rows)]
    assert len(hits) == 1, hits
    return hits[0]


def _asks(limits: dict[str, dict]) -> list[Ask]:
    def num(v: str) -> float:
        return float("inf") if v == "unlimited" else float(v)

    loop = ("loop",)
    odd = [
        ("most_files", "extreme", lambda r: num(r["Max open files"][0]) > 4096, "Max open files soft, the largest",
         ("Which worker may open the most files?", "Who has the highest open-files limit?")),
        ("core_dumps", "named", lambda r: r["Max core file size"][0] != "0", "Max core file size soft != 0",
         ("Which worker is allowed to write core dumps?", "Can any of these dump core? Which one?")),
        ("address_space", "named", lambda r: r["Max address space"][0] != "unlimited", "Max address space limited",
         ("Which worker has its virtual memory capped?", "Is any process limited in address space? Which?")),
        ("fewest_processes", "extreme", lambda r: num(r["Max processes"][0]) < 100, "Max processes soft, the smallest",
         ("Which worker may start the fewest processes?", "Who has the lowest nproc limit?")),
        ("cpu_time", "named", lambda r: r["Max cpu time"][0] != "unlimited", "Max cpu time limited",
         ("Which worker has a CPU time limit?", "Will any of these be killed after some CPU seconds? Which?")),
        ("big_stack", "extreme", lambda r: num(r["Max stack size"][0]) > 8388608, "Max stack size soft, the largest",
         ("Which worker has the biggest stack limit?", "Who got a larger stack than the rest?")),
        ("most_locked", "extreme", lambda r: num(r["Max locked memory"][0]) > 65536, "Max locked memory, the largest",
         ("Which worker may lock the most memory?", "Who has the highest memlock limit?")),
        ("file_size", "named", lambda r: r["Max file size"][0] != "unlimited", "Max file size limited",
         ("Which worker can't write files past a certain size?", "Does any worker have a file size limit? Which?")),
    ]
    asks = [Ask(key, intent, "extreme" if intent == "extreme" else "named_item", (the_one(limits, test),),
                f"/proc/<pid>/limits: {note}", wordings, loop) for key, intent, test, note, wordings in odd]
    asks += [
        Ask("as_hard", "named", "named_item", (limits["pdf-render"]["Max address space"][1],),
            "/proc/<pid>/limits Max address space, hard", ("What's the hard address-space limit?",
                                                          "How far could the AS limit be raised?"), ("raw_pdf",)),
        Ask("as_soft", "named", "named_item", (limits["pdf-render"]["Max address space"][0],),
            "/proc/<pid>/limits Max address space, soft", ("What's the soft limit on virtual memory?",
                                                          "How much address space may it use now?"), ("raw_pdf",)),
        Ask("files_pair", "named", "named_item", limits["ingest-router"]["Max open files"],
            "/proc/<pid>/limits Max open files, soft and hard", ("What are the open-files limits, soft and hard?",
                                                                "How many files may it open?"), ("raw_ingest",)),
        Ask("memory_odd", "named", "named_item", tuple(the_one(limits, test) for key, _, test, _, _ in odd
                                                      if key in ("address_space", "big_stack", "most_locked")),
            "/proc/<pid>/limits: the workers whose AS, stack or memlock differs",
            ("Which workers have non-default memory limits?", "Who has a memory-related limit changed?"), loop),
        Ask("files_hard", "named", "named_item", (limits["ingest-router"]["Max open files"][1],),
            "/proc/<pid>/limits Max open files, hard", ("What's ingest-router's hard limit on open files?",
                                                       "How far can ingest-router raise its nofile limit?"), loop),
        Ask("stack_soft", "named", "named_item", (limits["deep-parser"]["Max stack size"][0],),
            "/proc/<pid>/limits Max stack size, soft", ("How big a stack may deep-parser use?",
                                                       "What's deep-parser's soft stack limit?"), loop),
        Ask("default_stack", "named", "named_item", (limits["pdf-render"]["Max stack size"][0],),
            "/proc/<pid>/limits Max stack size, soft", ("What's the stack size limit?", "How large may its stack grow?"),
            ("raw_pdf",)),
        Ask("cpu_soft", "named", "named_item", (limits["batch-scorer"]["Max cpu time"][0],),
            "/proc/<pid>/limits Max cpu time, soft", ("After how many CPU seconds does batch-scorer get SIGXCPU?",
                                                     "What's batch-scorer's soft CPU limit?"), loop),
    ]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    (work / "worker.py").write_text(WORKER)
    plan = {**{n: {} for n in PLAIN[:3]}, **ODD, **{n: {} for n in PLAIN[3:]}}  # the odd ones in the middle
    procs = {}
    try:
        for name, own in plan.items():
            sets = {RESOURCES[k]: v for k, v in {**COMMON, **own}.items()}
            procs[name] = subprocess.Popen([sys.executable, "-S", str(work / "worker.py"), name, json.dumps(sets)],
                                           stdout=subprocess.PIPE, text=True)
            procs[name].stdout.readline()
        limits = {n: proc_limits(Path(f"/proc/{p.pid}/limits").read_text()) for n, p in procs.items()}
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
        pids = " ".join(str(p.pid) for p in procs.values())
        texts = {"loop": run(["bash", "-c", LOOP.format(pids=pids)], env=env).stdout,
                 "raw_pdf": run(["prlimit", "--pid", str(procs["pdf-render"].pid), *RAW], env=env).stdout,
                 "raw_ingest": run(["prlimit", "--pid", str(procs["ingest-router"].pid), *RAW], env=env).stdout}
    finally:
        for p in procs.values():
            p.kill()
            p.wait()
    for name, own in plan.items():  # the kernel's view and the record agree
        for res, (soft, hard) in {**COMMON, **own}.items():
            assert limits[name][res] == (str(soft), str(hard)), (name, res, limits[name][res])
    commands = {"loop": LOOP.format(pids="$(pgrep -f worker.py)"),
                "raw_pdf": f"prlimit --pid $(pgrep pdf-render) {' '.join(RAW)}",
                "raw_ingest": f"prlimit --pid $(pgrep ingest-router) {' '.join(RAW)}"}
    outputs = {k: Output({"command": commands[k]}, "text", texts[k]) for k in texts}
    out = asked_cases(SOURCE, outputs, _asks(limits))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
