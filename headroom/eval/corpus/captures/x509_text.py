"""``openssl x509 -text`` of the first CA certificates of the Mozilla bundle that
``certifi`` ships (via ``openssl pkcs7 -print_certs -text``): a text report of one
record per certificate, mostly hex dumps of keys and signatures, with the dates and names
an agent asks about buried in it."""

from __future__ import annotations

import re
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "x509_text"
CERTS = 30  # of the bundle's first certificates: ~2 000 lines, a tool output's size
_BEGIN = "-----BEGIN CERTIFICATE-----"


def records(text: str) -> list[dict[str, Any]]:
    """Per certificate: its Subject line, its Not After line and date, its key size."""
    out = []
    for block in text.split("Certificate:\n")[1:]:
        subject = re.search(r"^ *Subject: .*$", block, re.M)
        after = re.search(r"^ *Not After : (.*)$", block, re.M)
        bits = re.search(r"Public-Key: \((\d+) bit\)", block)
        if subject and after and bits:
            out.append({"subject": subject.group(0).strip(), "after_line": after.group(0).strip(),
                        "after": datetime.strptime(" ".join(after.group(1).split()), "%b %d %H:%M:%S %Y GMT"),
                        "bits": int(bits.group(1))})
    return out


def build(work: Path) -> list[dict[str, Any]]:
    import certifi

    if shutil.which("openssl") is None:
        raise SystemExit("x509_text needs openssl")
    pems = Path(certifi.where()).read_text().split(_BEGIN)[1:CERTS + 1]
    (work / "ca.pem").write_text("".join(_BEGIN + p for p in pems))
    run(["openssl", "crl2pkcs7", "-nocrl", "-certfile", str(work / "ca.pem"), "-out", str(work / "ca.p7")])
    text = run(["openssl", "pkcs7", "-in", str(work / "ca.p7"), "-print_certs", "-text", "-noout"]).stdout
    recs = records(text)
    assert len(recs) >= CERTS - 2, len(recs)
    once = [r for r in recs if text.count(r["subject"]) == 1]
    first = min(once, key=lambda r: (r["after"], r["subject"]))
    last = max(once, key=lambda r: (r["after"], r["subject"]))
    named = sorted(once, key=lambda r: (r["after"], r["subject"]))[len(once) // 2]
    cn = re.search(r"CN ?= ?([^,]+)", named["subject"])
    name = cn.group(1).strip() if cn else named["subject"].split("O=", 1)[-1].split(",")[0]
    args = {"command": "openssl pkcs7 -in ca.p7 -print_certs -text -noout"}
    asks = [
        ("expires_first", "extreme", first, "soonest Not After",
         ("Which certificate in this bundle expires soonest?",
          "Of these CA certificates, which one runs out first?")),
        ("expires_last", "extreme", last, "latest Not After",
         ("Which certificate stays valid the longest?",
          "Which of these CAs has the most distant expiry date?")),
    ]
    out = []
    for sid, intent, rec, note, wordings in asks:
        facts = [fact(rec["subject"], "extreme", f"{note}: the certificate's Subject line")]
        if text.count(rec["after_line"]) == 1:
            facts.append(fact(rec["after_line"], "extreme", f"{note}: its Not After line (occurs once)"))
        out.append(make_case(SOURCE, sid, "text", "bash", args, intent, choose(f"{SOURCE}/{sid}", wordings), text,
                             facts))
    if text.count(named["after_line"]) == 1:
        q = choose(f"{SOURCE}/named", (f"When does the {name} certificate expire?",
                                        f"Until when is {name} valid?"))
        out.append(make_case(SOURCE, "named", "text", "bash", args, "named", q, text,
                             [fact(named["after_line"], "named_item", "the named certificate's Not After line")]))
    return out
