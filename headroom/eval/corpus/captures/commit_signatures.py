"""Commit signatures as git checks them through GnuPG: ``git log --show-signature`` (per commit
the ``commit`` line, gpg's own report of the signature: when it was made, the key's fingerprint,
``Good signature from ...`` or why not, with its warnings, then author, date and message; ~1,090
lines, ~42 kB) and ``git log --format='%H %G? %GF %GS %s'`` (one line a commit: id, gpg's
status letter, the signing key's fingerprint, the signer, the subject; ~120 lines, ~16 kB), of
a repository the capture makes in a throwaway ``GNUPGHOME``: 120 commits by four maintainers,
each signing with an Ed25519 key of their own.

In the middle, one commit is not signed, one is signed by an outside contributor whose key
nobody has certified (``[unknown]``), one by a key revoked afterwards, and one by a key whose
public half was deleted afterwards (``Can't check signature: No public key``). Facts come from
the capture's own record of which key it had sign which commit, with ``git rev-parse`` for the
commit ids and ``gpg --with-colons`` for the fingerprints (other readers of the same repository
and keyring), never from git's text; a fact is kept only where it stands once (a maintainer's
name and key stand on each of their commits, so only the odd commits and their keys are
asked). The signatures carry the time gpg made them, so a rebuild differs in those and in the
commit ids. Held out (issue 33, twenty-first round): dev holds commit histories and keyrings
(``git log``, ``gpg --list-packets``), but no signature verification.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "commit_signatures"
MAINTAINERS = ("Dana Ruiz", "Omar Haddad", "Lena Vogt", "Kwame Mensah")
ODD_SIGNERS = {"outside": "Ines Barros", "revoked": "Teo Lindqvist", "missing": "Mara Okafor"}
VERBS = ("Fix", "Add", "Drop", "Rename", "Speed up", "Document", "Guard", "Split", "Cache", "Retry", "Log",
         "Validate")
THINGS = ("refund totals", "invoice numbering", "payout batches", "tax rounding", "ledger export", "search index",
          "mailer queue", "thumbnail sizes", "coupon expiry", "session cookies", "shipping labels",
          "stock counts", "audit trail", "currency table", "webhook retries")


@dataclass
class History:
    """The capture's record: per commit its subject and who signed it ("" for unsigned)."""

    commits: list[tuple[str, str]] = field(default_factory=list)
    odd: dict[str, int] = field(default_factory=dict)  # role -> commit index


def plan(rnd: random.Random, n: int = 120) -> History:
    subjects = rnd.sample([f"{v} {t}" for v in VERBS for t in THINGS], n)
    hist = History()
    for s in subjects:
        hist.commits.append((s, rnd.choice(MAINTAINERS)))
    spots = rnd.sample(range(n // 3, 2 * n // 3), 4)
    for role, i in zip(("unsigned", *ODD_SIGNERS), spots, strict=True):
        hist.odd[role] = i
        hist.commits[i] = (hist.commits[i][0], ODD_SIGNERS.get(role, ""))
    return hist


def _email(name: str) -> str:
    return f"{name.split()[0].lower()}@shop.example"


def _gpg(home: Path, *args: str, **kw) -> str:
    return run(["gpg", "--batch", "--homedir", str(home), *args], **kw).stdout


def fingerprint(home: Path, name: str) -> str:
    """The key's fingerprint as gpg's machine-readable listing gives it."""
    for line in _gpg(home, "--with-colons", "--list-keys", f"<{_email(name)}>").splitlines():
        if line.startswith("fpr:"):
            return line.split(":")[9]
    raise LookupError(name)


def make_repo(hist: History, repo: Path, home: Path) -> tuple[list[str], dict[str, str]]:
    """The commits, signed as planned; their ids (git rev-parse) and every signer's fingerprint."""
    home.mkdir(mode=0o700)
    for name in (*MAINTAINERS, *ODD_SIGNERS.values()):
        _gpg(home, "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key",
             f"{name} <{_email(name)}>", "ed25519", "sign", "never")
    fprs = {name: fingerprint(home, name) for name in (*MAINTAINERS, *ODD_SIGNERS.values())}
    repo.mkdir()
    env = {**git_env(), "GNUPGHOME": str(home)}
    run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env)
    ids = []
    for i, (subject, signer) in enumerate(hist.commits):
        author = signer or MAINTAINERS[i % len(MAINTAINERS)]
        day = f"2026-10-{1 + i * 30 // len(hist.commits):02d} {9 + i % 9:02d}:{(i * 7) % 60:02d}:00 +0000"
        cenv = {**git_env(author, day), "GNUPGHOME": str(home)}
        (repo / "CHANGES").open("a").write(f"{subject}\n")
        run(["git", "add", "CHANGES"], cwd=repo, env=cenv)
        sign = ["-c", f"user.signingkey={fprs[signer]}", "commit", "-S"] if signer else ["commit"]
        run(["git", *sign, "-q", "-m", subject], cwd=repo, env=cenv)
        ids.append(run(["git", "rev-parse", "HEAD"], cwd=repo, env=cenv).stdout.strip())
    # After the fact: the outside key loses its ultimate trust (nobody certified it), one key is
    # revoked with the certificate gpg stored for it, one key's public half is deleted.
    run(["gpg", "--batch", "--homedir", str(home), "--import-ownertrust"],
        input=f"{fprs[ODD_SIGNERS['outside']]}:2:\n")
    rev = (home / "openpgp-revocs.d" / f"{fprs[ODD_SIGNERS['revoked']]}.rev").read_text()
    (home / "revoke.asc").write_text(rev.replace(":-----BEGIN", "-----BEGIN"))
    _gpg(home, "--import", str(home / "revoke.asc"))
    _gpg(home, "--yes", "--delete-secret-and-public-key", fprs[ODD_SIGNERS["missing"]])
    return ids, fprs


def _asks(hist: History, ids: list[str], fprs: dict[str, str]) -> list[Ask]:
    note = "the capture's record of which key signed which commit; git rev-parse for the commit id"
    key_note = "the capture's record of the signer; gpg --with-colons for the fingerprint"
    odd = {role: ids[i] for role, i in hist.odd.items()}
    asks = [
        Ask("unsigned", "named", "extreme", (odd["unsigned"],), note,
            ("Which commit has no signature at all?", "What commit was pushed unsigned?")),
        Ask("outside_commit", "named", "named_item", (odd["outside"],), note,
            ("Which commit is signed by a key nobody has certified?",
             "What commit carries a signature from an untrusted key?")),
        Ask("revoked_commit", "named", "named_item", (odd["revoked"],), note,
            ("Which commit was signed with a key that has since been revoked?",
             "What commit's signing key is revoked?")),
        Ask("missing_commit", "named", "named_item", (odd["missing"],), note,
            ("Which commit's signature can't be checked because the public key is missing?",
             "What commit is signed by a key not in the keyring?")),
        Ask("outside_subject", "named", "named_item", (hist.commits[hist.odd["outside"]][0],),
            "the capture's record of the commits it made",
            ("What change did the outside contributor sign?", "Subject of the commit from the uncertified key?")),
        Ask("revoked_subject", "named", "named_item", (hist.commits[hist.odd["revoked"]][0],),
            "the capture's record of the commits it made",
            ("What is the subject of the commit signed by the revoked key?",
             "Which change was signed with the key later revoked?")),
    ]
    for role, what in (("outside", "the uncertified key"), ("revoked", "the revoked key"),
                       ("missing", "the key whose public half is gone")):
        asks.append(Ask(f"{role}_key", "named", "named_item", (fprs[ODD_SIGNERS[role]],), key_note,
                        (f"What is the fingerprint of {what}?", f"Which key fingerprint belongs to {what}?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2101)
    hist = plan(rnd)
    home, repo = work / "gnupg", work / "shop"
    ids, fprs = make_repo(hist, repo, home)
    env = {**git_env(), "GNUPGHOME": str(home), "TZ": "UTC"}
    commands = {"verbose": "git log --show-signature",
                "oneline": "git log --format='%H %G? %GF %GS %s'"}
    try:
        return shell_cases(SOURCE, commands, _asks(hist, ids, fprs), cwd=repo, env=env)
    finally:
        run(["gpgconf", "--kill", "gpg-agent"], env={**os.environ, "GNUPGHOME": str(home)}, check=False)
