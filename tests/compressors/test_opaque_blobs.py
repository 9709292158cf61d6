"""Base64 blobs give their place in a line selection to lines of words (issue 33, twelfth
session).

``openssl s_client -showcerts`` prints each certificate's PEM body (two dozen lines of
base64) among the handshake's facts; the plain-lines selection filled its budget in order
and kept the blob while eliding "Server Temp Key: X448". A run of base64 lines (both cases
of letters: hex digests and object ids are one case) is left to the elisions.
"""

from __future__ import annotations

import base64
import random

from headroom.compressors.structured.select import opaque_lines

from .tool_rounds import tool_round


def _pem(rng: random.Random) -> list[str]:
    body = base64.encodebytes(rng.randbytes(1200)).decode().split()
    return ["-----BEGIN CERTIFICATE-----", *body, "-----END CERTIFICATE-----"]


def test_opaque_lines_are_runs_of_mixed_case_base64():
    rng = random.Random(3)
    words = [f"Session field {k}: value {k}" for k in range(40)]
    lines = ["Certificate chain", *_pem(rng), "Server Temp Key: X448, 448 bits", *words]
    full = {i for i in range(2, len(lines) - 42) if len(lines[i]) >= 40}  # the last body line may be short
    assert opaque_lines(lines) == full and len(full) >= 20
    assert opaque_lines(_pem(rng)) == set()  # mostly blob (an attachment): nothing to give the room to
    shas = [f"{rng.getrandbits(160):040x}" for _ in range(10)]  # git rev-list: content, one case
    assert opaque_lines(shas) == set()
    assert opaque_lines(["Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4"] * 2) == set()  # too short a run


def test_a_handshake_report_keeps_its_facts_before_the_certificate_body():
    rng = random.Random(9)
    head = ["CONNECTED(00000003)", "---", "Certificate chain", " 0 s:CN = pay.example.test", "   i:CN = pay.example.test"]
    facts = [f"Server Temp Key: {rng.choice(['X448, 448 bits', 'X25519, 253 bits'])}",
             "Peer signature type: RSA-PSS", "New, TLSv1.2, Cipher is ECDHE-RSA-AES128-GCM-SHA256"]
    tail = [f"    Session field {k}: {rng.getrandbits(64):016X}" for k in range(30)]
    text = "\n".join(head + _pem(rng) + ["---", "Server certificate", "---", *facts, "SSL-Session:", *tail])
    out = tool_round("openssl s_client -connect pay.example.test:443 -showcerts", text,
                     "Which group did the key exchange use?")
    assert facts[0] in out
    assert sum(1 for ln in out.splitlines() if len(ln) >= 60 and ln.isalnum()) < 10
