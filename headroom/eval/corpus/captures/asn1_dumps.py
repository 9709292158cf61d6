"""ASN.1 structure dumps: ``openssl asn1parse -inform DER -i`` (offset, depth, header and
content length, primitive or constructed, tag, value; indented by depth) of two DER files
the capture makes: a certificate revocation list of ~240 entries signed by a throwaway CA
(``cryptography`` builds it), and a device registry the capture encodes itself (a SEQUENCE
of ~220 device records: name, serial, model, enabled flag, date added, port set, location).

Each is alike except for a few entries: in the list, one revoked for key compromise, one on
hold, one revoked long before the rest and one after them; in the registry, one device
switched off, one added first and one last, one carrying an optional ``[0]`` note, one with
far more ports and one of a model no other has. Facts come from ``cryptography`` reading the
same list back, the capture's own DER walker (the offset of the list's signature) and the
capture's record of the registry it encoded, never from ``asn1parse``'s text: the answer is a
serial number or an integer as ``asn1parse`` writes them (upper-case hex), a name, a date as
it stands in the DER, or an offset. Held out (issue 33, ninth round): no dev source holds
ASN.1 dumps.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "asn1_dumps"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}
START = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
MODELS = ("EX-2300", "EX-4400", "QFX-5120", "SRX-345", "MX-204", "ACX-710")
ODD_MODEL = "PTX-10001"
SITES = ("ams", "fra", "lhr", "cdg", "mad", "waw", "arn", "hel", "dub", "vie", "prg")


def integer_text(value: int) -> str:
    """An INTEGER as ``asn1parse`` prints it: upper-case hex, an even number of digits."""
    digits = f"{value:X}"
    return digits if len(digits) % 2 == 0 else "0" + digits


# --- a small DER encoder (the registry) and walker (offsets) --------------------------------

def tlv(tag: int, body: bytes) -> bytes:
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + body


def der_int(value: int) -> bytes:
    return tlv(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big", signed=True))


def children(data: bytes, start: int = 0) -> list[tuple[int, int]]:
    """(offset, tag) of each element directly inside the constructed element at ``start``."""
    def header(at: int) -> tuple[int, int]:  # (header length, content length)
        first = data[at + 1]
        if first < 0x80:
            return 2, first
        k = first & 0x7F
        return 2 + k, int.from_bytes(data[at + 2:at + 2 + k], "big")

    hl, length = header(start)
    at, end, out = start + hl, start + hl + length, []
    while at < end:
        out.append((at, data[at]))
        h, n = header(at)
        at += h + n
    return out


# --- the registry ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Device:
    name: str
    serial: int
    model: str
    enabled: bool
    added: dt.datetime
    ports: tuple[int, ...]
    location: str
    note: str = ""

    def der(self) -> bytes:
        when = self.added.strftime("%Y%m%d%H%M%SZ").encode()
        body = (tlv(0x0C, self.name.encode()) + der_int(self.serial) + tlv(0x13, self.model.encode())
                + tlv(0x01, b"\xff" if self.enabled else b"\x00") + tlv(0x18, when)
                + tlv(0x31, b"".join(der_int(p) for p in sorted(self.ports))) + tlv(0x16, self.location.encode()))
        if self.note:
            body += tlv(0xA0, tlv(0x0C, self.note.encode()))
        return tlv(0x30, body)


def make_devices() -> list[Device]:
    rnd = random.Random(92)
    out = []
    for n in range(220):
        site = SITES[n % len(SITES)]
        out.append(Device(name=f"edge-{site}-{n:03d}", serial=rnd.getrandbits(44) | (1 << 43),
                          model=rnd.choice(MODELS), enabled=True,
                          added=START + dt.timedelta(days=rnd.randint(1, 200), seconds=rnd.randint(0, 86399)),
                          ports=tuple(rnd.sample(range(1, 49), rnd.randint(2, 6))),
                          location=f"{site} rack {rnd.randint(1, 40)} unit {rnd.randint(1, 42)}"))
    odd = {97: {"enabled": False}, 104: {"added": START - dt.timedelta(days=400)},
           121: {"added": START + dt.timedelta(days=260)}, 113: {"note": "RMA pending: fan tray 2 noisy"},
           129: {"ports": tuple(range(1, 41))}, 108: {"model": ODD_MODEL}}
    for i, change in odd.items():
        out[i] = Device(**{**out[i].__dict__, **change})
    return out


def registry_roles(devices: list[Device]) -> dict[str, Any]:
    def only(test) -> str:
        hits = [d.name for d in devices if test(d)]
        assert len(hits) == 1, hits
        return hits[0]

    by_ports = sorted(devices, key=lambda d: len(d.ports), reverse=True)
    assert len(by_ports[0].ports) > 2 * len(by_ports[1].ports)
    return {"disabled": only(lambda d: not d.enabled), "noted": only(lambda d: d.note),
            "odd_model": only(lambda d: d.model == ODD_MODEL), "most_ports": by_ports[0].name,
            "first": min(devices, key=lambda d: d.added).name, "last": max(devices, key=lambda d: d.added).name,
            "serials": {d.name: integer_text(d.serial) for d in devices}}


# --- the revocation list -----------------------------------------------------------------------

def make_crl(path: Path) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding
    from cryptography.x509.oid import NameOID

    rnd = random.Random(93)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Ledger Mesh"),
                      x509.NameAttribute(NameOID.COMMON_NAME, "Ledger Mesh Issuing CA 3")])
    builder = (x509.CertificateRevocationListBuilder().issuer_name(name)
               .last_update(START + dt.timedelta(days=240)).next_update(START + dt.timedelta(days=247, hours=6)))
    reasons = {117: x509.ReasonFlags.key_compromise, 131: x509.ReasonFlags.certificate_hold}
    for n in range(240):
        when = START + dt.timedelta(days=rnd.randint(10, 200), seconds=rnd.randint(0, 86399))
        when = {109: START - dt.timedelta(days=300), 125: START + dt.timedelta(days=236)}.get(n, when)
        entry = (x509.RevokedCertificateBuilder().serial_number(rnd.getrandbits(63) | (1 << 62))
                 .revocation_date(when))
        entry = entry.add_extension(x509.CRLReason(reasons.get(n, x509.ReasonFlags.superseded)), critical=False)
        builder = builder.add_revoked_certificate(entry.build())
    path.write_bytes(builder.sign(key, hashes.SHA256()).public_bytes(Encoding.DER))


def crl_roles(path: Path) -> dict[str, Any]:
    """What ``cryptography`` reads back from the list, and where its signature starts."""
    from cryptography import x509

    data = path.read_bytes()
    crl = x509.load_der_x509_crl(data)
    entries = list(crl)

    def reason(e) -> str:
        return e.extensions.get_extension_for_class(x509.CRLReason).value.reason.name

    def only(value: str) -> str:
        hits = [integer_text(e.serial_number) for e in entries if reason(e) == value]
        assert len(hits) == 1, hits
        return hits[0]

    by_date = sorted(entries, key=lambda e: e.revocation_date_utc)
    top = children(data)
    assert [tag for _, tag in top] == [0x30, 0x30, 0x03], top
    return {"compromised": only("key_compromise"), "on_hold": only("certificate_hold"),
            "earliest": integer_text(by_date[0].serial_number), "latest": integer_text(by_date[-1].serial_number),
            "next_update": crl.next_update_utc.strftime("%y%m%d%H%M%SZ"), "signature_at": str(top[2][0]),
            "dates": {integer_text(e.serial_number): e.revocation_date_utc.strftime("%y%m%d%H%M%SZ")
                      for e in by_date[100:102]}}


def _asks(reg: dict[str, Any], crl: dict[str, Any]) -> list[Ask]:
    on_crl, on_reg = ("crl",), ("registry",)
    asks = [
        Ask("key_compromise", "named", "named_item", (crl["compromised"],),
            "cryptography: the entry whose CRLReason is keyCompromise",
            ("Which certificate was revoked for key compromise?", "What's the serial of the compromised cert?"),
            on_crl),
        Ask("on_hold", "named", "named_item", (crl["on_hold"],), "cryptography: the entry on certificateHold",
            ("Which certificate is only on hold, not revoked for good?", "Which serial has the hold reason?"),
            on_crl),
        Ask("earliest", "extreme", "extreme", (crl["earliest"],), "cryptography: the earliest revocation date",
            ("Which certificate was revoked first?", "What's the serial of the oldest revocation?"), on_crl),
        Ask("latest", "extreme", "extreme", (crl["latest"],), "cryptography: the latest revocation date",
            ("Which certificate was revoked most recently?", "What's the newest entry on this CRL?"), on_crl),
        Ask("next_update", "named", "named_item", (crl["next_update"],), "cryptography: next_update_utc",
            ("When is the next CRL due?", "When does this revocation list stop being current?"), on_crl),
        Ask("signature_offset", "named", "named_item", (crl["signature_at"],),
            "the capture's DER walker: offset of the top SEQUENCE's third element",
            ("At what offset does the CRL's signature value start?", "Where in the file is the signature?"),
            on_crl),
        *(Ask(f"revoked_on_{n}", "named", "named_item", (date,), "cryptography: revocation_date_utc",
              (f"When was serial {serial} revoked?", f"What's the revocation date of {serial}?"), on_crl)
          for n, (serial, date) in enumerate(crl["dates"].items())),
        Ask("disabled", "named", "named_item", (reg["disabled"],), "the capture's record: enabled FALSE",
            ("Which device is disabled in the registry?", "Is any device switched off? Which one?"), on_reg),
        Ask("note", "named", "named_item", (reg["noted"],), "the capture's record: the one [0] note",
            ("Which device carries a maintenance note?", "Does any record have the optional note field?"),
            on_reg),
        Ask("odd_model", "named", "named_item", (reg["odd_model"],), "the capture's record: the one model",
            ("Which device is a different model from all the others?", "Is there an odd model in the fleet?"),
            on_reg),
        Ask("most_ports", "extreme", "extreme", (reg["most_ports"],), "the capture's record: largest port set",
            ("Which device has the most ports configured?", "Which record's port set is the biggest?"), on_reg),
        Ask("first_added", "extreme", "extreme", (reg["first"],), "the capture's record: earliest added",
            ("Which device was added to the registry first?", "What's the oldest device record?"), on_reg),
        Ask("last_added", "extreme", "extreme", (reg["last"],), "the capture's record: latest added",
            ("Which device was registered most recently?", "What's the newest device in the registry?"), on_reg),
    ]
    for n, name in enumerate(("edge-waw-060", "edge-hel-150")):
        asks.append(Ask(f"serial_{n}", "named", "named_item", (reg["serials"][name],),
                        "the capture's record: the device's serial INTEGER",
                        (f"What's the serial number of {name}?", f"Which serial does {name} have?"), on_reg))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    crl_path, reg_path = work / "issuing-ca-3.crl", work / "devices.der"
    make_crl(crl_path)
    devices = make_devices()
    reg_path.write_bytes(tlv(0x30, der_int(2) + tlv(0x18, b"20261120080000Z")
                             + tlv(0x30, b"".join(d.der() for d in devices))))
    texts = {name: run(["openssl", "asn1parse", "-inform", "DER", "-i", "-in", path.name], cwd=work, env=ENV).stdout
             for name, path in (("crl", crl_path), ("registry", reg_path))}
    outputs = {name: Output({"command": f"openssl asn1parse -inform DER -i -in {path}"}, "text", texts[name])
               for name, path in (("crl", crl_path.name), ("registry", reg_path.name))}
    out = asked_cases(SOURCE, outputs, _asks(registry_roles(devices), crl_roles(crl_path)))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
