"""A configuration-management inventory as ``ansible-inventory`` prints it: ``--graph --vars``
(the group tree drawn with ``|--`` under ``@all:``, each group's and host's variables as ``{name =
value}`` leaves; ~790 lines, ~32 kB) and ``--list`` (the same inventory as JSON: each group's hosts
and children, then every host's merged variables under ``_meta.hostvars``; ~1,250 lines, ~44 kB), of an
inventory the capture writes (an INI file with ``:children`` and ``:vars`` sections): four
regions, each with six role groups of a few hosts, ~180 hosts. ansible-core 2.17.7 runs from a
throwaway venv (PyPI at build time), offline.

Every host sits in one role group and every group under one parent, so a host and a group stand
once in the tree; in the middle, one host listens on SSH port 2222, one logs in as a user of its
own, one role group holds a single host, one group sets a backup window of its own. Facts come
from the capture's own record of the inventory it wrote, never from the tool's text; a fact is
kept only where it stands once (a host stands twice in the JSON, in its group and in hostvars, so
hosts are asked of the tree). Held out (issue 33, twentieth round): dev holds host lists compared
line by line (``comm``) and configuration files, but no inventory's group tree or merged
variables.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import pinned_tool, run

SOURCE = "ansible_inventory"
ANSIBLE = "ansible-core==2.17.7"
REGIONS = ("emea", "apac", "amer", "nordics")
ROLES = ("web", "api", "worker", "db", "cache", "queue")


@dataclass
class Inventory:
    """The capture's record: groups in order with their hosts and parents, host and group vars."""

    hosts: dict[str, list[str]] = field(default_factory=dict)  # role group -> hosts
    parent: dict[str, str] = field(default_factory=dict)  # group -> its one parent group
    host_vars: dict[str, dict[str, str]] = field(default_factory=dict)
    group_vars: dict[str, dict[str, str]] = field(default_factory=dict)
    odd: dict[str, str] = field(default_factory=dict)

    def ini(self) -> str:
        out = []
        for group, hosts in self.hosts.items():
            out.append(f"[{group}]")
            out += [" ".join([h, *(f"{k}={v}" for k, v in self.host_vars[h].items())]) for h in hosts]
            out.append("")
        for region in REGIONS:
            out += [f"[{region}:children]", *[g for g, p in self.parent.items() if p == region], ""]
        for group, values in self.group_vars.items():
            out += [f"[{group}:vars]", *[f"{k}={v}" for k, v in values.items()], ""]
        return "\n".join(out)


def plan(rnd: random.Random) -> Inventory:
    inv = Inventory()
    serial = iter(rnd.sample(range(11, 250), 239))
    for r, region in enumerate(REGIONS):
        inv.group_vars[region] = {"ntp_server": f"ntp{r + 1}.{region}.shop.example", "dns_zone": f"{region}.shop.example"}
        for role in ROLES:
            group = f"{region}_{role}"
            inv.parent[group] = region
            count = rnd.randint(5, 10)
            hosts = [f"{role}-{region[:2]}-{next(serial):03d}" for _ in range(count)]
            inv.hosts[group] = hosts
            for h in hosts:
                inv.host_vars[h] = {"ansible_host": f"10.{r + 20}.{ROLES.index(role) + 1}.{int(h[-3:])}"}
            inv.group_vars[group] = {"backup_window": "01:00"} if role == "db" else {}
    middle = [g for g in inv.hosts if g.startswith(("apac", "amer"))]
    lone, port_g, user_g, window_g = rnd.sample(middle, 4)
    inv.hosts[lone] = inv.hosts[lone][:1]
    inv.odd["lone"] = lone
    inv.odd["port"] = rnd.choice(inv.hosts[port_g][1:])
    inv.host_vars[inv.odd["port"]]["ansible_port"] = "2222"
    inv.odd["user"] = rnd.choice(inv.hosts[user_g][1:])
    inv.host_vars[inv.odd["user"]]["ansible_user"] = "breakglass"
    inv.odd["window"] = window_g
    inv.group_vars[window_g]["backup_window"] = "03:45"
    inv.group_vars = {g: v for g, v in inv.group_vars.items() if v}
    all_hosts = [h for hs in inv.hosts.values() for h in hs]
    inv.odd["asked"] = ",".join(rnd.sample([h for h in all_hosts if h not in inv.odd.values()], 6))
    return inv


def once_in_tree(content: str, text: str) -> bool:
    """``text`` occurs once as a whole name; the tree's ``|--`` may stand right before it (the
    shared check takes a ``-`` before a name for part of a longer one, as in ``api-ap-116``)."""
    if not text or content.count(text) != 1:
        return False
    return re.search(rf"(?<![\w.])(?<!\w-){re.escape(text)}(?![\w-])", content) is not None


def _asks(inv: Inventory) -> list[Ask]:
    note = "the capture's record of the inventory it wrote"
    graph = ("graph",)
    asks = [Ask("lone_group", "named", "named_item", (inv.odd["lone"],), note,
                ("Which group has only one host?", "Name the group with a single member host."), graph),
            Ask("port_2222", "named", "named_item", (inv.odd["port"],), note,
                ("Which host has SSH on port 2222?", "What host sets ansible_port to 2222?"), graph),
            Ask("breakglass", "named", "named_item", (inv.odd["user"],), note,
                ("Which host logs in as the breakglass user?", "What host overrides ansible_user?"), graph),
            Ask("window", "named", "named_item", (inv.odd["window"],), note,
                ("Which group's backup window is 03:45?", "What group runs backups at quarter to four?"), graph)]
    for i, h in enumerate(inv.odd["asked"].split(",")):
        group = next(g for g, hs in inv.hosts.items() if h in hs)
        if i < 3:
            asks.append(Ask(f"group_{h}", "named", "named_item", (group,), note,
                            (f"Which group is {h} in?", f"What inventory group holds {h}?"), graph))
        asks.append(Ask(f"address_{h}", "named", "named_item", (inv.host_vars[h]["ansible_host"],), note,
                        (f"What is the ansible_host address of {h}?", f"Which IP does {h} connect to?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    inv = plan(random.Random(2002))
    tool = pinned_tool(work / "tool", ANSIBLE, "ansible-inventory")
    data = work / "data"
    data.mkdir()
    (data / "hosts.ini").write_text(inv.ini())
    commands = {"graph": "ansible-inventory -i hosts.ini --graph --vars",
                "list": "ansible-inventory -i hosts.ini --list"}
    env = {"PATH": f"{tool.parent}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(work),
           "ANSIBLE_LOCAL_TEMP": str(work / "tmp"), "ANSIBLE_NOCOLOR": "1", "ANSIBLE_INVENTORY_ENABLED": "ini"}
    outputs = {name: Output({"command": cmd}, "json" if name == "list" else "text",
                            run(["bash", "-c", cmd], cwd=data, env=env).stdout)
               for name, cmd in commands.items()}
    out = asked_cases(SOURCE, outputs, _asks(inv), once=once_in_tree)
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
