"""Account-database checks as the shadow suite's checkers report them, read-only: ``pwck -r``
(a line per finding: a home directory that does not exist, a login program that does not, a
primary group that does not, an entry missing from the shadow file or from passwd, an invalid
name, a malformed entry with the ``delete line '...'? No`` the read-only mode answers), ``pwck
-r -q`` (errors only), over a ~300-user passwd file and its shadow file the capture writes, and
``grpck -r`` over a group and gshadow file it writes (every other group without its gshadow
entry, one malformed GID, one group in gshadow only).

Most users' homes do not exist (one warning each); the odd accounts, in the middle of the file,
have a home that does and malformed ones no shadow entry, so each is named once. Facts come
from the capture's record of the files it wrote, never from the checkers' text; a fact is kept
only where it stands once. pwck looks a primary group up in the building machine's group
database, so routine users get one that exists (``users``) and the odd one a GID the machine
has not. Held out (issue 33, sixteenth round): dev holds login history, but no account-file
consistency report.
"""

from __future__ import annotations

import grp
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from .html_tables import FIRST, LAST  # the same pool of names

SOURCE = "account_checks"
TEAMS = ("ledger", "checkout", "search", "catalog", "billing", "profile", "media", "reports", "stock", "audit")
COUNT = 300
COMMANDS = {"pwck": "pwck -r passwd shadow", "errors": "pwck -r -q passwd shadow",
            "grpck": "grpck -r group gshadow"}
ODD_USERS = ("shell", "group", "shadow", "uid", "short", "name", "stale")
ODD_GROUPS = ("gid", "orphan")


@dataclass
class Accounts:
    """The capture's record: which user or group is odd in which way, and with what."""

    odd_user: dict[str, str] = field(default_factory=dict)  # kind -> user name
    missing_shell: str = ""
    missing_gid: str = ""
    odd_group: dict[str, str] = field(default_factory=dict)  # kind -> group name


def free_gid(rnd: random.Random) -> int:
    """A GID the building machine's group database does not have (pwck looks groups up there)."""
    while True:
        gid = rnd.randrange(40000, 50000)
        try:
            grp.getgrgid(gid)
        except KeyError:
            return gid


def write_users(work: Path, rnd: random.Random, acc: Accounts) -> None:
    users_gid = grp.getgrnam("users").gr_gid
    names = rnd.sample([f"{f.lower()}_{la.lower()}" for f in FIRST for la in LAST], COUNT)
    odd_at = dict(zip(rnd.sample(range(COUNT // 4, COUNT * 3 // 4), len(ODD_USERS)), ODD_USERS, strict=True))
    acc.missing_shell = f"/usr/local/bin/{rnd.choice(('fish', 'xonsh', 'elvish'))}"
    acc.missing_gid = str(free_gid(rnd))
    passwd, shadow = ["root:x:0:0:root:/root:/bin/bash"], ["root:*:20000:0:99999:7:::"]
    for n, name in enumerate(names):
        kind = odd_at.get(n)
        uid, gid, home, shell = str(2000 + n), str(users_gid), f"/home/{name}", "/bin/bash"
        if kind:
            acc.odd_user[kind] = name
            home = "/"  # exists: the odd account's only line is its finding
        if kind == "shell":
            shell = acc.missing_shell
        elif kind == "group":
            gid = acc.missing_gid
        elif kind == "uid":
            uid = f"{uid}x"
        elif kind == "name":
            name = acc.odd_user[kind] = f"{name.title()}$"
        line = f"{name}:x:{uid}:{gid}:{name.replace('_', ' ').title()}:{home}:{shell}"
        if kind != "stale":  # the stale account is in shadow only
            passwd.append(line.rsplit(":", 3)[0] if kind == "short" else line)
        if kind not in ("shadow", "uid", "short", "name"):  # a malformed entry is named once, in passwd
            shadow.append(f"{name}:*:20000:0:99999:7:::")
    (work / "passwd").write_text("\n".join(passwd) + "\n")
    (work / "shadow").write_text("\n".join(shadow) + "\n")


def write_groups(work: Path, rnd: random.Random, acc: Accounts) -> None:
    names = [f"{t}-{k}-{n:02d}" for t in TEAMS for k in ("dev", "ops", "ro") for n in range(5)]
    odd_at = dict(zip(rnd.sample(range(len(names) // 4, len(names) * 3 // 4), len(ODD_GROUPS)), ODD_GROUPS,
                      strict=True))
    group, gshadow = ["root:x:0:"], ["root:*::"]
    for n, name in enumerate(names):
        kind = odd_at.get(n)
        gid = str(30000 + n)
        if kind:
            acc.odd_group[kind] = name
        if kind == "gid":
            gid = f"g{gid}"
        if kind != "orphan":  # the orphan is in gshadow only
            group.append(f"{name}:x:{gid}:")
        # Every other routine group lacks its gshadow entry (a line each); of the odd ones only
        # the orphan has one, so each stands once.
        if kind == "orphan" or (kind is None and n % 2):
            gshadow.append(f"{name}:!::")
    (work / "group").write_text("\n".join(group) + "\n")
    (work / "gshadow").write_text("\n".join(gshadow) + "\n")


def _asks(acc: Accounts) -> list[Ask]:
    note = "the capture's record of the account files it wrote"
    u, g = acc.odd_user, acc.odd_group
    return [
        Ask("shell_user", "named", "named_item", (u["shell"],), note,
            ("Which account's login shell isn't installed?", "Whose shell is missing on this box?"), ("pwck",)),
        Ask("shell_program", "named", "named_item", (acc.missing_shell,), note,
            ("Which login program does pwck say is missing?", "What shell binary is referenced but absent?"),
            ("pwck",)),
        Ask("group_user", "named", "named_item", (u["group"],), note,
            ("Which user's primary group doesn't exist?", "Whose primary GID points at no group?"), ("pwck",)),
        Ask("group_gid", "named", "named_item", (acc.missing_gid,), note,
            ("Which GID is used as a primary group but not defined?", "What's the dangling group id?"), ("pwck",)),
        Ask("shadow_user", "named", "named_item", (u["shadow"],), note,
            ("Which user has no entry in the shadow file?", "Who's missing from shadow?"), ("pwck", "errors")),
        Ask("uid_user", "named", "named_item", (u["uid"],), note,
            ("Which passwd entry has a malformed UID? Whose account?", "Which user's UID field isn't a number?"),
            ("pwck", "errors")),
        Ask("short_user", "named", "named_item", (u["short"],), note,
            ("Which passwd line is missing fields? Whose is it?", "Whose entry is truncated in passwd?"),
            ("pwck", "errors")),
        Ask("bad_name", "named", "named_item", (u["name"],), note,
            ("Which account name is invalid?", "Is there a user whose login name breaks the naming rules?")),
        Ask("stale_user", "named", "named_item", (u["stale"],), note,
            ("Which shadow entry has no user in passwd?", "Who's in shadow but no longer in passwd?")),
        Ask("gid_group", "named", "named_item", (g["gid"],), note,
            ("Which group entry has a malformed GID?", "Whose group line is invalid?"), ("grpck",)),
        Ask("orphan_group", "named", "named_item", (g["orphan"],), note,
            ("Which gshadow entry has no matching group?", "Which group exists only in gshadow?"), ("grpck",)),
    ]


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1605)
    acc = Accounts()
    write_users(work, rnd, acc)
    write_groups(work, rnd, acc)
    # pwck and grpck exit 2 when they find problems; read-only, so nothing is changed.
    return shell_cases(SOURCE, COMMANDS, _asks(acc), cwd=work, env={"PATH": "/usr/sbin:/usr/bin:/bin", "LC_ALL": "C"},
                       check=False)
