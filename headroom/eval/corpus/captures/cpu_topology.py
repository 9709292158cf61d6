"""CPU descriptions as ``lscpu`` prints them (util-linux): the aligned ``Field: value``
listing (architecture, model, caches, flags, one line per CPU vulnerability) and the
same listing as ``lscpu -J`` writes it (an array of ``field``/``data`` objects).

Facts come from other readers of the same state, never from lscpu's text: the kernel's
``/proc/cpuinfo`` (model name, address sizes, BogoMIPS), the cache descriptions under
``/sys/devices/system/cpu/cpu*/cache/`` (each cache's size summed over the distinct
instances that share it) and the vulnerability files under
``/sys/devices/system/cpu/vulnerabilities/`` (the mitigations in force, the rare rows
among many ``Not affected``). A fact is kept only where its text stands once in the
output. Held out (issue 33, fifth round): no dev source holds a CPU description.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "cpu_topology"
SYS_CPU = Path("/sys/devices/system/cpu")
OUTPUTS = {"text": ([], "text"), "json": (["-J"], "json")}


def cpuinfo_field(name: str) -> str | None:
    """The first CPU's ``name`` entry of /proc/cpuinfo."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        if key.strip() == name:
            return value.strip()
    return None


def cache_totals() -> dict[str, str]:
    """Each cache level/type's size summed over its distinct instances (a cache shared by
    CPUs 0-1 counts once), written as lscpu writes sizes: ``4 MiB``, ``96 KiB``."""
    seen: dict[str, dict[str, int]] = {}
    for index in sorted(SYS_CPU.glob("cpu[0-9]*/cache/index[0-9]*")):
        level = (index / "level").read_text().strip()
        kind = (index / "type").read_text().strip()
        name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
        size = (index / "size").read_text().strip()
        kib = int(size[:-1]) * (1024 if size.endswith("M") else 1) if size[-1] in "KM" else int(size) // 1024
        seen.setdefault(name, {})[(index / "shared_cpu_list").read_text().strip()] = kib
    return {name: size_text(sum(per.values())) for name, per in seen.items()}


def size_text(kib: int) -> str:
    return f"{kib // 1024} MiB" if kib % 1024 == 0 and kib >= 1024 else f"{kib} KiB"


def mitigations() -> dict[str, str]:
    """Vulnerability → the first clause of its mitigation (``Mitigation: X; ...`` → ``X``),
    for the vulnerabilities the kernel mitigates."""
    out = {}
    for path in sorted((SYS_CPU / "vulnerabilities").iterdir()):
        text = path.read_text().strip()
        if text.startswith("Mitigation: "):
            out[path.name] = text[len("Mitigation: "):].split(";")[0].split(":")[0].strip()
    return out


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("lscpu") is None:
        raise RuntimeError("needs lscpu (util-linux)")
    caches = cache_totals()
    asked: list[tuple[str, tuple[str, ...], list[tuple[str, str]]]] = []
    for scen, field, wordings in (
        ("model", "model name", ("What processor model is this machine running on?",
                                 "Which CPU model does this report describe?")),
        ("address_sizes", "address sizes", ("How many bits of physical and virtual address does the CPU support?",
                                            "What address widths does this processor have?")),
        ("bogomips", "bogomips", ("What BogoMIPS rating does the kernel give this CPU?",
                                  "How many BogoMIPS does this processor score?")),
    ):
        value = cpuinfo_field(field)
        if value:
            asked.append((scen, wordings, [(value, f"/proc/cpuinfo {field}")]))
    for name, wordings in (
        ("L2", ("How much level-2 cache does the machine have in total?", "What is the total size of the L2 cache?")),
        ("L3", ("How large is the last-level (L3) cache?", "What is the total L3 cache size here?")),
        ("L1d", ("How much L1 data cache is there across all cores?", "What is the combined size of the level-1 data caches?")),
    ):
        if name in caches:
            asked.append((f"cache_{name.lower()}", wordings,
                          [(caches[name], f"/sys/devices/system/cpu/cpu*/cache: {name} summed over instances")]))
    mit = mitigations()
    asked.append(("mitigations", ("Which CPU vulnerabilities does the kernel mitigate here, and how?",
                                  "For which vulnerabilities is a mitigation in force, and what is it?"),
                  [(m, f"/sys/devices/system/cpu/vulnerabilities/{v}") for v, m in mit.items()]))
    out = []
    for form, (flags, kind) in OUTPUTS.items():
        content = run(["lscpu", *flags], env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout
        args = {"command": " ".join(["lscpu", *flags])}
        for scen, wordings, pairs in asked:
            facts = [fact(text, "named_item", note, basis="independent")
                     for text, note in pairs if content.count(text) == 1]
            if not facts:
                continue
            sid = f"{form}_{scen}"
            out.append(make_case(SOURCE, sid, kind, "bash", args, "named", choose(f"{SOURCE}/{sid}", wordings),
                                 content, facts))
    assert len(out) >= 8, f"too few cpu_topology cases: {len(out)}"
    return out
