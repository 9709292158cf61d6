"""TLS client handshake transcripts as ``openssl s_client`` prints them against a loopback
``openssl s_server``: the verify callbacks, the certificate chain with ``-showcerts`` (each
certificate's subject, issuer, key, validity and PEM block), the peer signature, the
server's temporary key, the negotiated protocol and cipher, ALPN, the verify result, and
for TLS 1.2 the ``SSL-Session`` block; and the short form ``-brief`` prints. Two servers:
TLS 1.3 with an ECDSA certificate, TLS 1.2 with an RSA certificate and one forced cipher.

Facts come from the capture's own record of how it configured each server (the key
exchange group, the forced cipher suite, the one ALPN protocol the server accepts, asked as
the transcript's ``ALPN protocol:`` line since the client's offer names it too)
and from Python's ``ssl`` certificate decoder reading the certificate file (its
``notAfter``), never from the transcript. A fact is kept only where its text stands once
in the output. Held out (issue 33, fifth round): no dev source holds a TLS handshake
transcript (``curl_trace`` is plain HTTP, ``x509_text`` a certificate dump).
"""

from __future__ import annotations

import contextlib
import shutil
import ssl
import subprocess
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import free_port, run, wait_for

SOURCE = "tls_handshake"
ALPN = "tally-rpc/1"
SERVERS = {  # name -> key options, server options, client options, what the capture set
    "tls13": (["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"],
              ["-groups", "X25519", "-alpn", ALPN],
              ["-alpn", f"h2,{ALPN}"],
              {"group": "X25519", "alpn": f"ALPN protocol: {ALPN}"}),
    "tls12": (["-newkey", "rsa:3072"],
              ["-tls1_2", "-groups", "X448", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"],
              ["-tls1_2"],
              {"group": "X448", "cipher": "ECDHE-RSA-AES128-GCM-SHA256"}),
}
CLIENT_FORMS = {"showcerts": ["-showcerts"], "brief": ["-brief"]}
QUESTIONS = {
    "expiry": ("When does the server's certificate stop being valid?", "What is the certificate's expiry date?"),
    "group": ("Which group was used for the key exchange?", "What kind of ephemeral key did the server send?"),
    "cipher": ("Which cipher suite was negotiated?", "What cipher did the two sides agree on?"),
    "alpn": ("Which application protocol did the server select?", "What did ALPN negotiate?"),
}


def not_after(cert: Path) -> str:
    """The certificate's expiry as Python's ssl decoder reads it (``Jan 13 16:33:16 2027 GMT``)."""
    return ssl._ssl._test_decode_cert(str(cert))["notAfter"]


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("openssl") is None:
        raise RuntimeError("needs the openssl command")
    out = []
    for server, (key_opts, server_opts, client_opts, record) in SERVERS.items():
        cert, key = work / f"{server}.crt", work / f"{server}.key"
        run(["openssl", "req", "-x509", *key_opts, "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "45",
             "-subj", "/CN=api.internal.test/O=Tally Ops",
             "-addext", "subjectAltName=DNS:api.internal.test,DNS:metrics.internal.test"])
        expected = {**record, "expiry": not_after(cert)}
        port = free_port()
        proc = subprocess.Popen(["openssl", "s_server", "-accept", f"127.0.0.1:{port}", "-cert", str(cert),
                                 "-key", str(key), "-www", "-quiet", *server_opts],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            probe = ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-brief"]
            wait_for(lambda probe=probe: run(probe, check=False, input="", timeout=5).returncode == 0, timeout=10)
            for form, flags in CLIENT_FORMS.items():
                cmd = ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "api.internal.test",
                       *client_opts, *flags]
                res = run(cmd, check=False, input="", timeout=20, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
                # -brief writes everything to stderr; the full form writes the verify lines there
                # and the transcript to stdout: the agent's terminal shows both, stderr first.
                content = res.stderr + res.stdout
                args = {"command": " ".join(["openssl", "s_client", "-connect", "127.0.0.1:8443", "-servername",
                                             "api.internal.test", *client_opts, *flags]) + " </dev/null"}
                for scen, wordings in QUESTIONS.items():
                    text = expected.get(scen)
                    if not text or content.count(text) != 1 or text in args["command"]:
                        continue
                    sid = f"{server}_{form}_{scen}"
                    note = "Python ssl decoder: notAfter" if scen == "expiry" else f"capture's server setup: {scen}"
                    out.append(make_case(SOURCE, sid, "text", "bash", args, "named",
                                         choose(f"{SOURCE}/{sid}", wordings), content,
                                         [fact(text, "named_item", note, basis="independent")]))
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            if proc.poll() is None:
                proc.kill()
    assert len(out) >= 6, f"too few tls_handshake cases: {len(out)}"
    return out
