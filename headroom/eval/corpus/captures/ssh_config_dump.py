"""OpenSSH's resolved client configuration as ``ssh -G <host>`` prints it: every option
in force for one destination (~90 lowercase ``key value`` lines, defaults included),
after matching the ``Host`` blocks of a client configuration file (``-F``) written for a
small fleet: a bastion on an unusual port, database hosts reached through it with a
forwarded port and keep-alives, and a legacy appliance with host-key checking off.

Facts come from the capture's own record of the configuration it wrote (the values it
set for the host asked about), never from ssh's text. A fact is kept only where its
text stands once in the output. Held out (issue 33, fifth round): no dev source holds a
resolved ssh client configuration.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "ssh_config_dump"
CONFIG = """\
Host bastion
    HostName 203.0.113.17
    Port 2222
    User deploy
    IdentityFile ~/.ssh/id_ed25519_bastion
    IdentitiesOnly yes

Host db-*
    ProxyJump bastion
    User replicator
    LocalForward 15432 127.0.0.1:5432
    ServerAliveInterval 45
    ServerAliveCountMax 4

Host nas-legacy
    HostName 198.51.100.240
    User backup
    StrictHostKeyChecking no
    UserKnownHostsFile /dev/null
    ConnectTimeout 7

Host *
    Compression yes
"""
ASKED = {  # host -> (scenario, fact text, note, wordings)
    "bastion": (
        ("address", "203.0.113.17", "HostName of Host bastion",
         ("Which address will ssh really connect to for this host?", "What IP does this alias resolve to in the config?")),
        ("port", "2222", "Port of Host bastion",
         ("Which TCP port will the connection use?", "On what port does ssh reach this server?")),
        ("identity", "~/.ssh/id_ed25519_bastion", "IdentityFile of Host bastion",
         ("Which private key file will be offered?", "What identity file does ssh use for this host?")),
        ("user", "deploy", "User of Host bastion",
         ("Which remote user does ssh log in as?", "As what user will the session be opened?")),
    ),
    "db-eu1": (
        ("jump", "bastion", "ProxyJump of Host db-*",
         ("Does this connection go through another host first, and which?", "Which jump host is used?")),
        ("user", "replicator", "User of Host db-*",
         ("Which remote user does ssh log in as?", "As what user will the session be opened?")),
        ("forward", "15432", "LocalForward of Host db-*",
         ("Which local port is forwarded to the remote database?", "What port is forwarded locally?")),
        ("keepalive", "serveraliveinterval 45", "ServerAliveInterval of Host db-*",
         ("How often does the client send keep-alive probes?", "What keep-alive interval is configured?")),
    ),
    "nas-legacy": (
        ("known_hosts", "/dev/null", "UserKnownHostsFile of Host nas-legacy",
         ("Where are this host's keys recorded?", "Which known-hosts file does ssh use here?")),
        ("address", "198.51.100.240", "HostName of Host nas-legacy",
         ("Which address will ssh really connect to for this host?", "What IP does this alias resolve to in the config?")),
        ("timeout", "connecttimeout 7", "ConnectTimeout of Host nas-legacy",
         ("How long will ssh wait for the connection to open?", "Is a connection timeout set, and to what?")),
        ("user", "backup", "User of Host nas-legacy",
         ("Which remote user does ssh log in as?", "As what user will the session be opened?")),
    ),
}


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("ssh") is None:
        raise RuntimeError("needs the OpenSSH client")
    cfg = work / "ssh_config"
    cfg.write_text(CONFIG)
    out = []
    for host, asked in ASKED.items():
        # -F: only this file (no /etc/ssh/ssh_config, no ~/.ssh/config of the building machine).
        content = run(["ssh", "-F", str(cfg), "-G", host], stdin=None,
                      env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": "/home/ops", "USER": "ops"}).stdout
        args = {"command": f"ssh -F ~/fleet/ssh_config -G {host}"}
        for scen, text, note, wordings in asked:
            if content.count(text) != 1 or text in args["command"]:
                continue
            sid = f"{host}_{scen}"
            out.append(make_case(SOURCE, sid, "text", "bash", args, "named", choose(f"{SOURCE}/{sid}", wordings),
                                 content, [fact(text, "named_item", f"capture's ssh_config: {note}",
                                                basis="independent")]))
    assert len(out) >= 8, f"too few ssh_config_dump cases: {len(out)}"
    return out
