"""OpenSSH key fingerprint listings as ``ssh-keygen -l`` prints them: one line per key of
an ``authorized_keys`` file (bits, fingerprint, comment, type), as SHA-256 (the default)
and as MD5 (``-E md5``), and ``ssh-keygen -lv`` of a ``known_hosts`` file, where every key
line is followed by its eleven-line "randomart" picture.

The keys are made by the capture (``ssh-keygen -t ... -N ''``): mostly Ed25519, a few
ECDSA P-256, one P-384, one P-521 and two RSA keys of different sizes, each with its own
comment (a user at a host) or host name. Facts come from another reader of the same keys,
never from the listing: a fingerprint is the SHA-256 (or MD5) of the key blob decoded from
the public key file with ``base64``, written as OpenSSH writes it; the rare or largest key
is known from what the capture asked ``ssh-keygen`` to make. A fact is kept only where its
text stands once in the output. Held out (issue 33, sixth round): no dev source holds key
fingerprint listings.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "ssh_key_fingerprints"
# comment -> (type, bits); users at hosts for authorized_keys
USERS = {
    "ana@build-07": ("ed25519", 0), "deploy@ci-runner-03": ("ed25519", 0), "ops@bastion-eu": ("ecdsa", 256),
    "lee@laptop-lee": ("ed25519", 0), "backup@vault-2": ("rsa", 3072), "mo@desk-114": ("ed25519", 0),
    "ci@runner-11": ("ed25519", 0), "sam@mbp-sam": ("ecdsa", 256), "release@signer": ("ecdsa", 384),
    "kit@wsl-kit": ("ed25519", 0), "git@mirror-a": ("ed25519", 0), "old-admin@legacy": ("rsa", 2048),
    "ivy@tablet": ("ed25519", 0), "noc@monitor-1": ("ecdsa", 256), "pat@vm-pat": ("ed25519", 0),
    "hsm@keyserver": ("ecdsa", 521), "jo@air-jo": ("ed25519", 0), "etl@worker-5": ("ed25519", 0),
}
HOSTS = {
    "db-primary.internal": ("ed25519", 0), "db-replica.internal": ("ed25519", 0),
    "[gitlab.internal]:2222": ("ecdsa", 256), "cache-01.internal": ("ed25519", 0),
    "legacy-nfs.internal": ("rsa", 2048), "queue.internal": ("ed25519", 0),
}
# Routine Ed25519 keys around the distinct ones, so each listing is a long run of alike rows.
USERS.update({f"dev{n:02d}@ws-{100 + 7 * n}": ("ed25519", 0) for n in range(30)})
HOSTS.update({f"web-{n:02d}.internal": ("ed25519", 0) for n in range(8)})
NAMED = ("deploy@ci-runner-03", "lee@laptop-lee", "noc@monitor-1", "etl@worker-5")


def keygen(work: Path, n: int, label: str, kind: str, bits: int) -> Path:
    path = work / "keys" / f"key{n:02d}"
    path.parent.mkdir(exist_ok=True)
    cmd = ["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", label, "-f", str(path)]
    if bits:
        cmd[4:4] = ["-b", str(bits)]
    run(cmd)
    return path.with_suffix(".pub")


def blob(pub_line: str) -> bytes:
    return base64.b64decode(pub_line.split()[1])


def sha256_fp(pub_line: str) -> str:
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob(pub_line)).digest()).decode().rstrip("=")


def md5_fp(pub_line: str) -> str:
    return "MD5:" + ":".join(f"{b:02x}" for b in hashlib.md5(blob(pub_line)).digest())


def _only(keys: dict[str, tuple[str, int]], kind: tuple[str, int]) -> str | None:
    """The one key the capture made of ``kind`` (type, bits), when exactly one is."""
    holders = [k for k, v in keys.items() if v == kind]
    return holders[0] if len(holders) == 1 else None


def build(work: Path) -> list[dict[str, Any]]:
    pub: dict[str, str] = {}
    for n, (label, (kind, bits)) in enumerate({**USERS, **HOSTS}.items()):
        pub[label] = keygen(work, n, label, kind, bits).read_text().strip()
    auth = work / "authorized_keys"
    auth.write_text("".join(f"{pub[u]}\n" for u in USERS))
    known = work / "known_hosts"
    known.write_text("".join(f"{h} {' '.join(pub[h].split()[:2])}\n" for h in HOSTS))
    outputs = {
        "sha256": (["ssh-keygen", "-l", "-f", "authorized_keys"], USERS),
        "md5": (["ssh-keygen", "-l", "-E", "md5", "-f", "authorized_keys"], USERS),
        "visual": (["ssh-keygen", "-l", "-v", "-f", "known_hosts"], HOSTS),
    }
    largest_user = max(USERS, key=lambda u: USERS[u][1] if USERS[u][0] == "rsa" else 0)
    out = []
    for output, (cmd, keys) in outputs.items():
        content = run(cmd, cwd=work).stdout
        args = {"command": " ".join(cmd)}
        fp = md5_fp if output == "md5" else sha256_fp
        asked: list[tuple[str, str, tuple[str, ...], list[dict[str, str]]]] = []
        names = NAMED if keys is USERS else ("db-replica.internal", "[gitlab.internal]:2222", "queue.internal")
        for name in names:
            tag = name.split("@")[0].strip("[").split(".")[0].split("]")[0]
            who = f"the key of {name}" if keys is USERS else f"the host key of {name}"
            asked.append((f"fingerprint_{tag}", "named",
                          (f"What is the fingerprint of {who}?", f"Which fingerprint does {who} have?",
                           f"Give me the {'MD5' if output == 'md5' else 'SHA-256'} fingerprint of {who}."),
                          [fact(fp(pub[name]), "named_item",
                                f"{'md5' if output == 'md5' else 'sha256'} of the key blob decoded from the .pub file",
                                basis="independent")]))
        if keys is USERS:
            asked.append(("largest_key", "extreme",
                          ("Which of these keys is the largest (the most bits)?",
                           "Whose key has the biggest key size?"),
                          [fact(largest_user, "extreme", f"the capture made it RSA {USERS[largest_user][1]} bits",
                                basis="independent")]))
            rare = _only(USERS, ("ecdsa", 384))
            if rare:
                asked.append(("p384_key", "named",
                              ("Whose key is the ECDSA key on the P-384 curve (384 bits)?",
                               "Which entry is the only 384-bit ECDSA key?"),
                              [fact(rare, "named_item", "the capture made it ecdsa -b 384", basis="independent")]))
            asked.append(("rsa_keys", "named",
                          ("Which of these keys are RSA keys?", "Who still uses an RSA key here?"),
                          [fact(u, "named_item", f"the capture made it RSA {b}", basis="independent")
                           for u, (k, b) in USERS.items() if k == "rsa"]))
        else:
            rsa = [h for h, (k, _) in HOSTS.items() if k == "rsa"]
            asked.append(("rsa_host", "named",
                          ("Which host presents an RSA host key?", "Which of these hosts still has an RSA key?"),
                          [fact(h, "named_item", "the capture made it RSA 2048", basis="independent") for h in rsa]))
        for scen, intent, wordings, facts in asked:
            facts = [f for f in facts if content.count(f["text"]) == 1 and f["text"] not in args["command"]]
            if not facts:
                continue
            sid = f"{output}_{scen}"
            out.append(make_case(SOURCE, sid, "text", "bash", args, intent, choose(f"{SOURCE}/{sid}", wordings),
                                 content, facts))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
