"""Login session history as util-linux ``last`` reads it from a wtmp file: ``last -F -w``
(user, terminal, host, login and logout with full dates, the session's length; newest
first; ``wtmp begins`` at the end) and ``last -x -w --time-format iso`` (the same with ISO
times and the system's boot record), of a wtmp file the capture writes record by record
(~440 sessions over two months: a few staff accounts from office addresses, a handful of
one-off accounts and hosts, one session a day long, one root login on the console).

Facts come from the capture's record of the sessions it wrote, never from ``last``'s text;
a fact is kept only where it stands once. Held out (issue 33, fifteenth round, replacing a
near-dev source): dev holds process, socket, lock and log listings, but no login history.
"""

from __future__ import annotations

import random
import socket
import struct
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "login_history"
# glibc's struct utmp on x86_64: type, pid, line, id, user, host, exit status, session,
# time (seconds, microseconds), IPv6-sized address, padding: 384 bytes.
UTMP = struct.Struct("<hhi32s4s32s256shhiii4i20s")
BOOT, USER_LOGIN, LOGOUT = 2, 7, 8
STAFF = ("dana", "bo", "amara", "cyril", "dagny", "ivo")
OFFICE = tuple(f"10.0.4.{n}" for n in (11, 17, 23, 42, 56, 61))
ONE_OFF = (("vendor-kim", "jump-3.partner.example"), ("auditor2", "198.51.100.77"),
           ("ci-deploy", "runner-12.build.example"), ("temp-ops", "203.0.113.45"),
           ("contractor", "vpn-gw-9.acme.example"), ("backup-svc", "nas-2.office.example"))
START = int(datetime(2026, 9, 1, 6, 0, tzinfo=UTC).timestamp())
COUNT = 440
COMMANDS = {"full": "last -F -w -f wtmp", "iso": "last -x -w --time-format iso -f wtmp"}
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}


@dataclass(frozen=True)
class Session:
    user: str
    line: str
    host: str
    login: int
    logout: int


def record(kind: int, pid: int, line: str, user: str, host: str, at: int) -> bytes:
    addr = struct.unpack("<i", socket.inet_aton(host))[0] if host.replace(".", "").isdigit() else 0
    return UTMP.pack(kind, 0, pid, line.encode(), line[-4:].encode(), user.encode(), host.encode(),
                     0, 0, 0, at, 0, addr, 0, 0, 0, b"")


def sessions(rnd: random.Random) -> tuple[list[Session], dict[str, int]]:
    """Sessions one to three hours apart, each on its own pts line until forty later (none
    lasts that long); the odd ones (one-off accounts, the long session, root on tty1) in the
    middle half. Returns the sessions and where each odd one is."""
    odd = rnd.sample(range(COUNT // 4, COUNT * 3 // 4), len(ONE_OFF) + 2)
    where = {"long": odd[-2], "root": odd[-1]} | {u: odd[i] for i, (u, _) in enumerate(ONE_OFF)}
    by_index = {i: k for k, i in where.items()}
    out, at = [], START
    for n in range(COUNT):
        at += rnd.randrange(3600, 3 * 3600) + rnd.randrange(60)
        length = rnd.randrange(120, 9 * 3600)
        user, host, line = rnd.choice(STAFF), rnd.choice(OFFICE), f"pts/{n % 40}"
        odd_kind = by_index.get(n)
        if odd_kind == "long":
            length = 26 * 3600 + rnd.randrange(3600)
        elif odd_kind == "root":
            user, host, line = "root", "", "tty1"
        elif odd_kind:
            user, host = odd_kind, dict(ONE_OFF)[odd_kind]
        out.append(Session(user, line, host, at, at + length))
    return out, where


def write_wtmp(path: Path, found: list[Session]) -> None:
    events = [(START - 600, record(BOOT, 0, "~", "reboot", "6.1.0-28-amd64", START - 600))]
    for pid, s in enumerate(found, start=2000):
        events.append((s.login, record(USER_LOGIN, pid, s.line, s.user, s.host, s.login)))
        events.append((s.logout, record(LOGOUT, pid, s.line, "", "", s.logout)))
    path.write_bytes(b"".join(rec for _, rec in sorted(events, key=lambda e: e[0])))


def duration(s: Session) -> str:
    """A session's length the way ``last`` writes it: ``D+HH:MM`` past a day."""
    minutes = (s.logout - s.login) // 60
    days, rest = divmod(minutes, 24 * 60)
    return f"{days}+{rest // 60:02d}:{rest % 60:02d}" if days else f"{rest // 60:02d}:{rest % 60:02d}"


def _when(at: int) -> dict[str, str]:
    t = datetime.fromtimestamp(at, UTC)
    return {"full": t.strftime("%H:%M:%S"), "iso": t.strftime("%Y-%m-%dT%H:%M:%S+00:00")}


def _asks(found: list[Session], where: dict[str, int]) -> list[Ask]:
    note = "the capture's record of the sessions it wrote"
    asks = [Ask(f"host_of_{user}", "named", "named_item", (found[where[user]].host,), note,
                (f"Where did the {user} account log in from?", f"Which host did {user} connect from?"))
            for user, _ in ONE_OFF[:4]]
    asks += [Ask(f"user_from_{host.split('.')[0]}", "named", "named_item", (found[where[user]].user,), note,
                 (f"Which account logged in from {host}?", f"Who connected from {host}?"))
             for user, host in ONE_OFF[4:]]
    long_session = found[where["long"]]
    asks.append(Ask("longest", "extreme", "extreme", (duration(long_session),), note,
                    ("How long was the longest session?", "What's the longest anyone stayed logged in?")))
    root = found[where["root"]]
    asks.append(Ask("root_console", "named", "named_item", lambda out: (_when(root.login)[out],), note,
                    ("When did root log in on the console?", "At what time was there a root login on tty1?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1509)
    found, where = sessions(rnd)
    write_wtmp(work / "wtmp", found)
    return shell_cases(SOURCE, COMMANDS, _asks(found, where), cwd=work, env=ENV)
