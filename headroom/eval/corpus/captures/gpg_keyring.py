"""OpenPGP keyrings Debian ships (``debian-archive-keyring``: the archive's current and
removed signing keys), as ``gpg --list-packets`` prints them (every packet: public keys,
user IDs, signatures with their subpackets) and as ``gpg --show-keys`` lists them.

Facts come from gpg's machine-readable listing (``--with-colons``: key id, creation and
expiry times, fingerprint, user ID per primary key), never from the text asked about.
A fact is used only where its text occurs once in the output. Held out (issue 33): a
kind of output no dev source has.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "gpg_keyring"
KEYRINGS = ("/usr/share/keyrings/debian-archive-keyring.gpg", "/usr/share/keyrings/debian-archive-removed-keys.gpg")


@dataclass(frozen=True)
class Key:
    keyid: str
    created: int
    expires: int | None
    fingerprint: str
    uid: str  # the first user ID, without its e-mail address


def _gpg(home: Path, *args: str) -> str:
    return run(["gpg", "--homedir", str(home), "--batch", *args], env={**os.environ, "LC_ALL": "C"}).stdout


def primary_keys(home: Path, keyring: str) -> list[Key]:
    """Primary keys from ``--with-colons`` (pub, then its fpr and uid records)."""
    keys, cur = [], None
    for line in _gpg(home, "--show-keys", "--with-colons", keyring).splitlines():
        f = line.split(":")
        if f[0] == "pub":
            cur = {"keyid": f[4], "created": int(f[5]), "expires": int(f[6]) if f[6] else None}
        elif f[0] == "sub":
            cur = None if cur is None or "uid" in cur else cur
        elif f[0] == "fpr" and cur is not None and "fingerprint" not in cur:
            cur["fingerprint"] = f[9]
        elif f[0] == "uid" and cur is not None and "uid" not in cur:
            cur["uid"] = f[9].split(" <")[0].strip()
            keys.append(Key(**cur))
    return keys


def _day(epoch: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(epoch))


def build(work: Path) -> list[dict[str, Any]]:
    home = work / "gnupg"
    home.mkdir(mode=0o700)
    out = []

    def add(sid: str, command: str, text: str, intent: str, wordings: tuple[str, ...], fact_text: str, kind: str,
            note: str) -> None:
        q = choose(f"{SOURCE}/{sid}", wordings)
        out.append(make_case(SOURCE, sid, "text", "bash", {"command": command}, intent, q, text,
                             [fact(fact_text, kind, note, basis="independent")]))

    for keyring in KEYRINGS:
        name = Path(keyring).name.removesuffix(".gpg").removeprefix("debian-archive-").replace("-", "_")
        keys = primary_keys(home, keyring)
        # Packets: a key is found by its user ID, answered by the key packet's own line.
        command = f"gpg --list-packets {keyring}"
        text = _gpg(home, "--list-packets", keyring)
        uids = [k for k in keys if text.count(f"keyid: {k.keyid}") == 1 and sum(j.uid == k.uid for j in keys) == 1]
        for n, k in enumerate(spread(uids, 3)):
            add(f"{name}_packets_keyid_{n}", command, text, "named",
                (f"What is the key ID of the key whose user ID is {k.uid}?",
                 f"Which key ID belongs to {k.uid}?"),
                f"keyid: {k.keyid}", "named_item", f"--with-colons key id of {k.uid}")
        newest = max(keys, key=lambda k: k.created)
        if sum(k.created == newest.created for k in keys) == 1 and text.count(f"keyid: {newest.keyid}") == 1:
            add(f"{name}_packets_newest", command, text, "extreme",
                ("Which primary key in this keyring was created most recently? Give its key ID.",
                 "What is the newest primary key here (its key ID)?"),
                f"keyid: {newest.keyid}", "extreme", f"--with-colons: {newest.uid}, the latest creation time")
        # The human listing: fingerprints.
        command = f"gpg --show-keys {keyring}"
        text = _gpg(home, "--show-keys", keyring)
        fprs = [k for k in keys if text.count(k.fingerprint) == 1 and sum(j.uid == k.uid for j in keys) == 1]
        for n, k in enumerate(spread(fprs[::-1], 2)):
            add(f"{name}_list_fingerprint_{n}", command, text, "named",
                (f"What is the fingerprint of {k.uid}?", f"Give me the full fingerprint of the key of {k.uid}."),
                k.fingerprint, "named_item", f"--with-colons fingerprint of {k.uid}")
        expiring = [k for k in keys if k.expires]
        if expiring:
            first = min(expiring, key=lambda k: k.expires)
            # The listing shows dates: the earliest must be alone on its day, not just its second.
            if (sum(_day(k.expires) == _day(first.expires) for k in expiring) == 1
                    and text.count(first.fingerprint) == 1):
                add(f"{name}_list_expires_first", command, text, "extreme",
                    ("Which of these keys expires (or expired) first? Give its fingerprint.",
                     "What is the key with the earliest expiry date, by fingerprint?"),
                    first.fingerprint, "extreme", f"--with-colons: {first.uid}, the earliest expiry")
    assert len(out) >= 8, "too few keyring cases"
    return out
