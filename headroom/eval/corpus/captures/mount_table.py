"""Mounted filesystems as util-linux and coreutils print them: ``findmnt`` (a tree with
SOURCE, FSTYPE and OPTIONS columns), ``findmnt --json``, ``df -h`` and ``df -k``, inside a
fresh mount namespace (``unshare --mount``) where the capture mounts a tmpfs tree under
``/mnt``: tmpfs filesystems of different sizes filled to different levels (one nearly
full), 28 small per-tenant volumes, an overlay, read-only and ``noexec`` bind mounts; ``df`` lists them beside the
machine's own filesystems (its root disk, ``/dev``, ``/dev/shm`` ...).

Facts come from other readings of the kernel's state, taken in the namespace: ``os.statvfs``
of every mount point for space (the fullest filesystem by df's own rule, used / (used +
available), and a named mount's available KiB) and ``/proc/self/mountinfo`` for a mount's
filesystem type, its ``size=`` option and a bind mount's source root; never from the
outputs. A fact is kept only where its text occurs once in the output. Held out (issue 33,
third round): no dev source holds a mount or disk-space listing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "mount_table"

DRIVER = r'''
import json, os, subprocess, sys

def sh(*cmd):
    subprocess.run(cmd, check=True, capture_output=True)

sh("mount", "-t", "tmpfs", "-o", "size=4m,mode=755", "tmpfs", "/mnt")
layout = [("pgdata", "96m", 61), ("spool", "32m", 30), ("cache", "256m", 18), ("scratch", "1g", 3),
          ("uploads", "48m", 9)]
for name, size, fill_mib in layout:
    target = f"/mnt/{name}"
    os.mkdir(target)
    sh("mount", "-t", "tmpfs", "-o", f"size={size},mode=750", f"{name}-tmpfs", target)
    with open(f"{target}/fill.bin", "wb") as fh:
        os.posix_fallocate(fh.fileno(), 0, fill_mib * 1024 * 1024)
# Per-tenant volumes of seeded sizes and fills (none as full as the spool), for a longer table.
import random
rng = random.Random(33)
os.mkdir("/mnt/tenants")
for k in range(1, 29):
    size_mib, target = rng.choice((4, 8, 12, 16, 24, 32, 40)), f"/mnt/tenants/t{k:02d}"
    os.mkdir(target)
    sh("mount", "-t", "tmpfs", "-o", f"size={size_mib}m,mode=700", f"tenant{k:02d}", target)
    with open(f"{target}/data.bin", "wb") as fh:
        os.posix_fallocate(fh.fileno(), 0, rng.randint(0, min(3, size_mib // 2)) * 1024 * 1024 + 4096)
os.makedirs("/mnt/uploads/site/static")
for d in ("lower", "upper", "work"):
    os.makedirs(f"/mnt/scratch/layers/{d}")
os.mkdir("/mnt/app")
sh("mount", "-t", "overlay", "overlay", "-o",
   "lowerdir=/mnt/scratch/layers/lower,upperdir=/mnt/scratch/layers/upper,workdir=/mnt/scratch/layers/work", "/mnt/app")
os.mkdir("/mnt/published")
sh("mount", "--bind", "/mnt/uploads/site", "/mnt/published")
sh("mount", "-o", "remount,bind,ro", "/mnt/published")
os.mkdir("/mnt/cache-noexec")
sh("mount", "--bind", "/mnt/cache", "/mnt/cache-noexec")
sh("mount", "-o", "remount,bind,noexec,nosuid", "/mnt/cache-noexec")

def out(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"}).stdout

# findmnt lists the tree under /mnt (-R): the machine's own mounts outside it are not this
# capture's; df lists every filesystem (the tmpfs over /mnt hides what was mounted below it).
outputs = {"findmnt": out("findmnt", "-R", "/mnt"), "findmnt_json": out("findmnt", "--json", "-R", "/mnt"),
           "df_h": out("df", "-h"),
           "df_k": out("df", "-k")}
with open("/proc/self/mountinfo") as fh:
    mountinfo = fh.read()
space = {}
for line in mountinfo.splitlines():
    target = line.split()[4].replace("\\040", " ")
    try:
        st = os.statvfs(target)
    except OSError:
        continue
    space[target] = {"blocks": st.f_blocks, "bfree": st.f_bfree, "bavail": st.f_bavail, "frsize": st.f_frsize}
with open(sys.argv[1], "w") as fh:
    json.dump({"outputs": outputs, "mountinfo": mountinfo, "space": space}, fh)
'''
COMMANDS = {"findmnt": "findmnt -R /mnt", "findmnt_json": "findmnt --json -R /mnt", "df_h": "df -h", "df_k": "df -k"}
LAYOUT = ("pgdata", "spool", "cache", "scratch", "uploads", "app", "published", "cache-noexec")
BINDS = ("published", "cache-noexec")  # same filesystem as their source: df lists one of them


def mountinfo_entries(text: str) -> list[dict[str, str]]:
    """Each line of ``/proc/self/mountinfo`` (proc(5)): root, mount point, fs type, source
    and the filesystem's own (super block) options."""
    out = []
    for line in text.splitlines():
        head, _, tail = line.partition(" - ")
        h, t = head.split(), tail.split()
        if len(h) >= 6 and len(t) >= 3:
            out.append({"root": h[3], "target": h[4], "mount_options": h[5], "fstype": t[0], "source": t[1],
                        "super_options": t[2]})
    return out


def used_share(s: dict[str, int]) -> float:
    """df's Use%: used / (used + available to unprivileged users)."""
    used = s["blocks"] - s["bfree"]
    return used / (used + s["bavail"]) if used + s["bavail"] else 0.0


def _asked(doc: dict[str, Any]) -> list[tuple[str, set[str], str, tuple[str, ...], str, str, str]]:
    asked = []
    mine = [e for e in mountinfo_entries(doc["mountinfo"]) if e["target"][5:] in LAYOUT]
    for e in mine:
        t = e["target"]
        size = [o for o in e["super_options"].split(",") if o.startswith("size=")]
        if size and e["root"] == "/":
            asked.append((f"size_{t[5:]}", {"findmnt", "findmnt_json"}, "named",
                          (f"How large may the tmpfs mounted at {t} grow (its size option)?",
                           f"What size limit is set on the filesystem at {t}?"),
                          size[0], "named_item", "/proc/self/mountinfo: size= among the super-block options"))
        if e["root"] != "/":
            asked.append((f"bind_{t[5:]}", {"findmnt", "findmnt_json"}, "named",
                          (f"Which directory of its filesystem is bind-mounted at {t}?",
                           f"What is the source of the bind mount at {t}?"),
                          f"[{e['root']}]", "named_item", "/proc/self/mountinfo: the mount's root within its filesystem"))
        lower = [o for o in e["super_options"].split(",") if o.startswith("lowerdir=")]
        if e["fstype"] == "overlay" and lower:
            asked.append((f"overlay_{t[5:]}", {"findmnt", "findmnt_json"}, "named",
                          (f"Which lower directory does the overlay mounted at {t} read from?",
                           f"What is the read-only layer under the overlay at {t}?"),
                          lower[0], "named_item", "/proc/self/mountinfo: the overlay's lowerdir option"))
        s = doc["space"].get(t)
        if s and e["root"] == "/" and e["fstype"] == "tmpfs" and t[5:] not in BINDS:
            avail_k = s["bavail"] * s["frsize"] // 1024
            asked.append((f"avail_{t[5:]}", {"df_k"}, "named",
                          (f"How many KiB are still available on {t}?", f"How much free space (1K blocks) is left on {t}?"),
                          f" {avail_k} ", "named_item", "os.statvfs: f_bavail x f_frsize / 1024"))
    # The fullest filesystem df lists (statvfs of every mount point; size 0 ones df hides).
    shown = {e["target"]: e for e in mountinfo_entries(doc["mountinfo"])}
    ranked = sorted(((used_share(s), t) for t, s in doc["space"].items() if s["blocks"] and t in shown), reverse=True)
    if len(ranked) > 1 and ranked[0][0] > ranked[1][0] + 0.01:
        asked.append(("fullest", {"df_h", "df_k"}, "extreme",
                      ("Which filesystem is closest to running out of space?", "Which mount is the fullest?"),
                      f" {ranked[0][1]}\n", "extreme", (f"os.statvfs: the largest used / (used + available) "
                                                          f"({ranked[0][0]:.1%})")))
    return asked


def build(work: Path) -> list[dict[str, Any]]:
    (work / "driver.py").write_text(DRIVER)
    run(["unshare", "--mount", sys.executable, str(work / "driver.py"), str(work / "out.json")], timeout=120)
    doc = json.loads((work / "out.json").read_text())
    out = []
    for output, command in COMMANDS.items():
        content = doc["outputs"][output]
        form = "json" if output.endswith("_json") else "text"
        for sid, where, intent, wordings, text, kind, note in _asked(doc):
            if output not in where or content.count(text) != 1:
                continue
            text = text.strip()
            if content.count(text) != 1:
                continue
            scen = f"{output}_{sid}"
            out.append(make_case(SOURCE, scen, form, "bash", {"command": command}, intent,
                                 choose(f"{SOURCE}/{scen}", wordings), content,
                                 [fact(text, kind, note, basis="independent")]))
    assert len(out) >= 10, f"too few mount_table cases: {len(out)}"
    return out
