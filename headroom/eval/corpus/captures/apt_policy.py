"""APT's per-package version tables as ``apt-cache policy <pkg>...`` prints them: for each
package the installed and candidate versions, then the version table (``***`` marks the
installed one) with each version's pin priority and the archives that offer it
(bookworm, bookworm-security, bookworm-updates, ``/var/lib/dpkg/status``), over two sets
of packages (command-line tools, shared libraries), some of them not installed.

Facts come from another reader of the machine's package state, never from apt's text:
dpkg's own database through ``dpkg-query -W`` (``${Status}`` and ``${Version}``): the
packages of a set that are not installed (the rare ``Installed: (none)`` entries), and a
named package's installed version (asked as the ``Installed:`` line, which holds it
once; the version itself stands again in the version table). A fact is kept only where
its text stands once in the output. Held out (issue 33, fifth round): no dev source holds
an APT policy table (``dpkg_status`` is dpkg's database itself, ``dpkg_log`` its log).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "apt_policy"
SETS = {
    "tools": ("git", "curl", "make", "strace", "jq", "tmux", "htop", "rsync", "nano", "vim", "openssl", "sqlite3",
              "valgrind", "nginx", "postgresql-15", "redis-server"),
    "libs": ("libc6", "zlib1g", "libssl3", "libpq5", "libsqlite3-0", "libcurl4", "libxml2", "libyaml-0-2",
             "libpng16-16", "libgtk-3-0", "libqt5core5a", "libsdl2-2.0-0", "libzstd1", "liblzma5"),
}


def dpkg_state(packages: tuple[str, ...]) -> dict[str, str | None]:
    """Package -> installed version per dpkg's database, or None when not installed."""
    out: dict[str, str | None] = {}
    for pkg in packages:
        res = run(["dpkg-query", "-W", "-f", "${Status}\\t${Version}\\n", pkg], check=False)
        line = res.stdout.splitlines()[0] if res.returncode == 0 and res.stdout else ""
        status, _, version = line.partition("\t")
        out[pkg] = version if status.endswith(" installed") and version else None
    return out


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("apt-cache") is None or shutil.which("dpkg-query") is None:
        raise RuntimeError("needs apt-cache and dpkg-query (Debian)")
    out = []
    for name, packages in SETS.items():
        content = run(["apt-cache", "policy", *packages], env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}).stdout
        args = {"command": f"apt-cache policy {' '.join(packages)}"}
        state = dpkg_state(packages)
        missing = [p for p, v in state.items() if v is None and f"{p}:\n  Installed: (none)" in content]
        asked: list[tuple[str, str, tuple[str, ...], list[dict[str, str]]]] = []
        if missing:
            asked.append(("not_installed", "named",
                          ("Which of these packages are not installed?", "Which packages here are available but absent?"),
                          [fact(f"{p}:", "named_item", "dpkg-query -W: not installed", basis="independent")
                           for p in missing]))
        installed = [p for p, v in state.items() if v and content.count(f"Installed: {v}") == 1]
        for pkg in spread(installed, 5):
            asked.append((f"version_{pkg}", "named",
                          (f"Which version of {pkg} is installed?", f"What {pkg} version does dpkg have on this machine?"),
                          [fact(f"Installed: {state[pkg]}", "named_item", "dpkg-query -W ${Version}",
                                basis="independent")]))
        for scen, intent, wordings, facts in asked:
            facts = [f for f in facts if content.count(f["text"]) == 1 and f["text"] not in args["command"]]
            if not facts:
                continue
            sid = f"{name}_{scen}"
            out.append(make_case(SOURCE, sid, "text", "bash", args, intent, choose(f"{SOURCE}/{sid}", wordings),
                                 content, facts))
    assert len(out) >= 8, f"too few apt_policy cases: {len(out)}"
    return out
