"""Certificate revocation status as an OCSP responder answers it, through OpenSSL 3's ``openssl
ocsp``: the response printed in full with ``-resp_text`` (the response data, then one block a
certificate asked about: its ID with hash algorithm, issuer hashes and serial, its status, for a
revoked one the time and reason, and the update times; then the signature and the responder's
certificate; ~650 lines, ~23 kB) and the client's summary of the same response (one ``0xSERIAL: status``
line a certificate with its times, reason and revocation time indented below; ~225 lines, ~7 kB). The
capture writes a CA's certificate database (``index.txt``: serial, status, revocation time and
reason), asks about sixty serials in one request and answers it with ``openssl ocsp -index``.

Facts come from the capture's own record of the database it wrote (each serial's status,
revocation time and reason), never from OpenSSL's text; times are written from the record as
OpenSSL prints them (``%b %e %H:%M:%S %Y GMT``); a fact is kept only where it stands once. Every
revoked serial has a revocation time of its own, four reasons are each given once, one serial
is unknown to the responder. Serials are six hex digits; a serial that happens to stand inside
the response's hashes is not asked (the stands-once check drops it). Held out (issue 33,
twenty-fifth round): dev holds certificates and their chains printed, TLS handshakes and ASN.1
dumps, but no revocation check of a batch of certificates.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "ocsp_status"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
RARE = ("keyCompromise", "CACompromise", "affiliationChanged", "cessationOfOperation")
WORDING = {"keyCompromise": "its private key was compromised", "CACompromise": "its issuing CA was compromised",
           "affiliationChanged": "its holder's affiliation changed",
           "cessationOfOperation": "the service it named ceased operation"}


def plan(rnd: random.Random) -> dict[str, Any]:
    """The capture's record: serial -> (status, revocation time or None, reason or None)."""
    serials = [f"{s:06X}" for s in rnd.sample(range(0x100000, 0xFFFFFF), 61)]
    start = datetime(2025, 1, 1, tzinfo=UTC)
    times = sorted(start + timedelta(seconds=s) for s in rnd.sample(range(330 * 86_400), 20))
    rnd.shuffle(times)
    reasons = [*RARE, *["superseded"] * 16]
    rnd.shuffle(reasons)
    record: dict[str, tuple[str, datetime | None, str | None]] = {}
    for n, serial in enumerate(serials[:60]):
        record[serial] = ("revoked", times[n], reasons[n]) if n < 20 else ("good", None, None)
    order = serials[:60]
    rnd.shuffle(order)
    unknown = serials[60]
    order.insert(rnd.randrange(10, 50), unknown)
    return {"record": record, "asked": order, "unknown": unknown}


def openssl_time(t: datetime) -> str:
    """A time as OpenSSL prints an ASN.1 time: month, space-padded day, time, year, GMT."""
    return f"{t:%b} {t.day:2d} {t:%H:%M:%S %Y} GMT"


def index_text(p: dict[str, Any]) -> str:
    """The CA database openssl ocsp -index reads: status, expiry, revocation, serial, file, subject."""
    lines = []
    for serial, (status, when, reason) in p["record"].items():
        revoked = f"{when:%y%m%d%H%M%S}Z,{reason}" if when else ""
        lines.append(f"{'R' if status == 'revoked' else 'V'}\t301201000000Z\t{revoked}\t{serial}\tunknown"
                     f"\t/CN=vehicle-{serial.lower()}.fleet.example")
    return "\n".join(lines) + "\n"


def _asks(p: dict[str, Any], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the CA database it wrote (index.txt: status, revocation time, reason)"
    rec = p["record"]

    def serial(s: str):
        return lambda output: (f"0x{s}",) if output == "summary" else (s,)
    revoked = sorted(s for s, (st, _, _) in rec.items() if st == "revoked")
    asks = []
    for s in rnd.sample(revoked, 8):
        asks.append(Ask(f"time_{s}", "named", "named_item", (openssl_time(rec[s][1]),), note,
                        (f"When was the certificate with serial {s} revoked?",
                         f"What revocation time does the responder give for serial {s}?")))
    for reason in RARE:
        s = next(x for x in revoked if rec[x][2] == reason)
        asks.append(Ask(f"reason_{reason}", "named", "named_item", serial(s), note,
                        (f"Which serial was revoked because {WORDING[reason]}?",
                         f"What certificate's revocation reason says {WORDING[reason]}?")))
    asks.append(Ask("unknown", "named", "named_item", serial(p["unknown"]), note,
                    ("Which queried serial does the responder not know?",
                     "What certificate gets an unknown status?")))
    first = min(revoked, key=lambda x: rec[x][1])
    asks.append(Ask("earliest", "extreme", "extreme", serial(first), note,
                    ("Which certificate was revoked earliest?", "What serial has the oldest revocation?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2504)
    p = plan(rnd)
    (work / "index.txt").write_text(index_text(p))
    run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=Fleet Vehicle CA", "-days", "3650"], cwd=work, env=ENV)
    # the serials asked sit in a file, one a line, as a batch check keeps them
    (work / "serials.txt").write_text("".join(f"0x{s}\n" for s in p["asked"]))
    ask = "$(sed 's/^/-serial /' serials.txt)"
    run(["bash", "-c", f"openssl ocsp -issuer ca.pem {ask} -no_nonce -reqout req.der"], cwd=work, env=ENV)
    run(["openssl", "ocsp", "-index", "index.txt", "-CA", "ca.pem", "-rsigner", "ca.pem", "-rkey", "ca.key",
         "-reqin", "req.der", "-respout", "resp.der", "-ndays", "7"], cwd=work, env=ENV)
    commands = {"text": "openssl ocsp -respin resp.der -resp_text -noverify",
                "summary": f"openssl ocsp -respin resp.der -issuer ca.pem -VAfile ca.pem {ask} 2>&1"}
    return shell_cases(SOURCE, commands, _asks(p, rnd), cwd=work, env=ENV, least=12)
