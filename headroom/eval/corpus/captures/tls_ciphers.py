"""TLS cipher-suite tables as the ``openssl`` command prints them: ``openssl ciphers -V``
(two-byte code point, OpenSSL name, protocol, ``Kx=``/``Au=``/``Enc=``/``Mac=`` columns)
and ``openssl ciphers -v -stdname`` (the IANA name first), over every suite OpenSSL 3.0
knows (``ALL:COMPLEMENTOFALL:@SECLEVEL=0``, ~160 rows: anonymous, PSK, SRP, NULL-cipher
and TLS 1.3 suites among the common ones).

Facts come from another reader of the library's suite list: Python's ``ssl`` module
(``SSLContext.get_ciphers()`` with the same cipher string: each suite's numeric id, key
exchange, authentication and symmetric cipher as OpenSSL's NIDs), never from the
command's text: a named suite's code point, the suite a code point names, and the suites
of a rare kind (no authentication, SRP key exchange, no encryption, TLS 1.3). A fact is
kept only where its text occurs once in the output. Held out (issue 33, third round): no
dev source holds a cipher-suite table.
"""

from __future__ import annotations

import shutil
import ssl
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "tls_ciphers"
SPEC = "ALL:COMPLEMENTOFALL:@SECLEVEL=0"
OUTPUTS = {"codes": ["-V"], "stdname": ["-v", "-stdname"]}
GROUPS = (  # scenario, predicate over a get_ciphers() entry, wordings
    ("anonymous", lambda c: c["auth"] == "auth-null",
     ("Which cipher suites do no authentication of the server at all?",
      "List the anonymous suites (no peer authentication) in this table.")),
    ("srp", lambda c: c["kea"] == "kx-srp",
     ("Which suites use SRP for key exchange?", "List the suites whose key exchange is SRP.")),
    ("null_cipher", lambda c: c["symmetric"] is None,
     ("Which suites send data without encrypting it?", "List the suites that offer no encryption.")),
    ("tls13", lambda c: c["protocol"] == "TLSv1.3",
     ("Which of these suites are TLS 1.3 suites?", "List the suites usable only with TLS 1.3.")),
)


def code_point(cipher_id: int) -> str:
    """How ``openssl ciphers -V`` writes a suite's id: its two low bytes, ``0xC0,0x2C``."""
    return f"0x{(cipher_id >> 8) & 0xFF:02X},0x{cipher_id & 0xFF:02X}"


def suites() -> list[dict[str, Any]]:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.set_ciphers(SPEC)
    return ctx.get_ciphers()


def _once(content: str, name: str) -> bool:
    """The name stands once in the output as a whole column (``DHE-RSA-AES256-SHA`` also
    ends ``ECDHE-RSA-AES256-SHA``: such a name is not a checkable fact)."""
    return content.count(name) == 1 and content.count(f" {name} ") == 1


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("openssl") is None:
        raise RuntimeError("needs the openssl command")
    every = suites()
    out = []
    for output, flags in OUTPUTS.items():
        content = run(["openssl", "ciphers", *flags, SPEC]).stdout
        args = {"command": f"openssl ciphers {' '.join(flags)} '{SPEC}'"}
        asked: list[tuple[str, str, tuple[str, ...], list[dict[str, str]]]] = []
        for scen, wanted, wordings in GROUPS:
            names = [c["name"] for c in every if wanted(c)]
            facts = [fact(n, "named_item", f"Python ssl get_ciphers(): {scen}", basis="independent")
                     for n in names if _once(content, n)]
            # A name that is also the tail of a longer one is left out (not checkable); the
            # group is asked when at least three of its suites remain.
            if len(facts) >= min(3, len(names)) and facts:
                asked.append((scen, "named", wordings, facts))
        if output == "codes":
            named = [c for c in every if _once(content, c["name"]) and content.count(code_point(c["id"])) == 1]
            for c in spread(named, 4):
                asked.append((f"code_of_{c['name']}", "named",
                              (f"What is the two-byte code point of {c['name']}?",
                               f"Which hex id does the suite {c['name']} have on the wire?"),
                              [fact(code_point(c["id"]), "named_item", "Python ssl get_ciphers(): id",
                                    basis="independent")]))
            for c in spread(named[1::2], 3):
                cp = code_point(c["id"])
                asked.append((f"name_of_{cp.replace(',', '_')}", "named",
                              (f"Which suite has the code point {cp}?", f"What is the OpenSSL name of suite {cp}?"),
                              [fact(c["name"], "named_item", "Python ssl get_ciphers(): name by id",
                                    basis="independent")]))
        for scen, intent, wordings, facts in asked:
            sid = f"{output}_{scen}"
            out.append(make_case(SOURCE, sid, "text", "bash", args, intent, choose(f"{SOURCE}/{sid}", wordings),
                                 content, facts))
    assert len(out) >= 8, f"too few tls_ciphers cases: {len(out)}"
    return out
