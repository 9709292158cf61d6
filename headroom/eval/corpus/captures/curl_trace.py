"""HTTP client traces: ``curl -v`` and ``curl --trace-ascii -`` (curl 7.88, trace and
bodies together as a terminal shows them) against a small HTTP/1.1 server on loopback that the capture starts: a login that
redirects twice (``-L``) and sets a session cookie, twelve pages of an API fetched in one
call through curl's URL globbing over one kept-alive connection (one page fails with a
500, one is served by another backend, one is slow), and an upload (``POST``, ``201`` with
a ``Location``) followed by a request the server refuses with ``503`` and ``Retry-After``.
``-v`` writes curl's ``*`` connection notes, ``>`` request and ``<`` response headers;
``--trace-ascii`` writes every header and body chunk as offset-numbered ``=> Send header``
/ ``<= Recv data`` blocks. Each mode runs the three calls once.

Facts come from the server's own record of what it sent (the values it generated and
wrote into its responses, saved by the server process), never from curl's output: the
session cookie, request ids, ETags, the backend that served one page, the slowest page's
``Server-Timing`` duration, the created resource's location and the retry delay. A fact is
kept only where its text occurs once in the trace. Held out (issue 33, third round): no
dev source holds an HTTP client trace.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import free_port, run, wait_for

SOURCE = "curl_trace"

SERVER = r'''
import hashlib, json, random, sys, time, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, record_path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(33)
record = {"pages": {}}
pages_failing, page_other_backend, page_slow = 7, 4, 10

def token(n):
    return "".join(rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(n))

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, headers, body=b""):
        # The record is on disk before the response leaves: a client that reads it as soon
        # as curl returns (the capture, its test) never finds it half written.
        with open(record_path, "w") as fh:
            json.dump(record, fh)
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path, _, query = self.path.partition("?")
        rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if path == "/login":
            sid = token(24)
            record["sid"] = sid
            record["session_path"] = f"/session/{token(10)}"
            self.send(302, [("Location", record["session_path"]), ("Set-Cookie", f"sid={sid}; Path=/; HttpOnly"),
                            ("X-Request-Id", rid)])
        elif path.startswith("/session/"):
            record["ref"] = token(8)
            self.send(301, [("Location", f"/dashboard?ref={record['ref']}"), ("X-Request-Id", rid)])
        elif path == "/dashboard":
            body = json.dumps({"user": "ops-bot", "widgets": ["queue", "latency", "errors"]}).encode()
            etag = '"' + hashlib.sha1(body + rid.encode()).hexdigest()[:20] + '"'
            record["dashboard"] = {"request_id": rid, "etag": etag}
            self.send(200, [("Content-Type", "application/json"), ("ETag", etag), ("X-Request-Id", rid),
                            ("Cache-Control", "private, max-age=60")], body)
        elif path == "/api/items":
            page = int(query.split("=")[1])
            dur = round(rng.uniform(2, 40), 1) if page != page_slow else round(rng.uniform(700, 900), 1)
            time.sleep(dur / 1000)
            backend = "app-2" if page == page_other_backend else "app-1"
            rec = {"request_id": rid, "dur": dur, "backend": backend}
            record["pages"][page] = rec
            if page == pages_failing:
                body = json.dumps({"error": "upstream timeout", "retryable": True}).encode()
                rec["status"] = 500
                self.send(500, [("Content-Type", "application/json"), ("X-Request-Id", rid), ("X-Backend", backend),
                                ("Server-Timing", f"app;dur={dur}")], body)
            else:
                items = [{"id": page * 100 + k, "sku": f"SKU-{page:02d}{k:02d}"} for k in range(3)]
                body = json.dumps({"page": page, "items": items}).encode()
                rec["status"] = 200
                self.send(200, [("Content-Type", "application/json"), ("X-Request-Id", rid), ("X-Backend", backend),
                                ("Server-Timing", f"app;dur={dur}"),
                                ("Link", f'</api/items?page={page + 1}>; rel="next"'),
                                ("X-RateLimit-Remaining", str(100 - page))], body)
        elif path == "/reports/latest":
            record["retry_after"] = str(rng.randint(11, 97))
            self.send(503, [("Retry-After", record["retry_after"]), ("X-Request-Id", rid)], b"busy\n")
        else:
            self.send(404, [("X-Request-Id", rid)], b"not found\n")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        record["created"] = f"/uploads/{token(12)}"
        record["upload_bytes"] = length
        self.send(201, [("Location", record["created"]), ("X-Request-Id", rid)], b"{}")

ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
'''


MODES = {"verbose": ["-v"], "trace": ["--trace-ascii", "-"]}  # curl's two trace formats


def _curl(mode: str, args: list[str]) -> str:
    """What a terminal shows: curl's trace (stderr, or stdout for ``--trace-ascii -``) and
    the bodies, interleaved as written."""
    res = subprocess.run(["curl", *MODES[mode], *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=60, check=False)
    return res.stdout


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("curl") is None:
        raise RuntimeError("needs curl")
    (work / "server.py").write_text(SERVER)
    port = free_port()
    record_path = work / "record.json"
    server = subprocess.Popen([sys.executable, str(work / "server.py"), str(port), str(record_path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    runs = []  # (mode, traces, the server's record after them)
    try:
        wait_for(lambda: run(["curl", "-s", "-o", "/dev/null", f"{base}/health"], check=False).returncode == 0)
        payload = work / "payload.json"
        payload.write_text(json.dumps({"rows": [{"n": k, "v": k * k} for k in range(400)]}))
        for mode, flags in MODES.items():
            shown = " ".join(f"'{f}'" if f == "-" else f for f in flags).replace("'-'", "-")
            traces = {
                "login": (_curl(mode, ["-L", f"{base}/login"]), f"curl {shown} -L {base}/login"),
                "pages": (_curl(mode, [f"{base}/api/items?page=[1-12]"]),
                          f"curl {shown} '{base}/api/items?page=[1-12]'"),
                "upload": (_curl(mode, ["-H", "Content-Type: application/json", "--data-binary", f"@{payload}",
                                        f"{base}/uploads", "--next", *flags, f"{base}/reports/latest"]),
                           (f"curl {shown} -H 'Content-Type: application/json' --data-binary @payload.json "
                            f"{base}/uploads --next {shown} {base}/reports/latest")),
            }
            runs.append((mode, traces, json.loads(record_path.read_text())))
    finally:
        server.terminate()
        server.wait(timeout=10)
    out = []
    for mode, traces, rec in runs:
        out += _cases(mode, traces, rec)
    assert len(out) >= 10, f"too few curl_trace cases: {len(out)}"
    return out


def _cases(mode: str, traces: dict[str, tuple[str, str]], rec: dict[str, Any]) -> list[dict[str, Any]]:
    pages = {int(k): v for k, v in rec["pages"].items()}
    failing = [p for p, v in pages.items() if v["status"] == 500]
    other = [p for p, v in pages.items() if v["backend"] != "app-1"]
    slow = sorted(pages.items(), key=lambda kv: -kv[1]["dur"])
    asked = {  # output -> [(scenario, intent, wordings, fact text, kind, note)]
        "login": [
            ("session_cookie", "named", ("Which session id did the server hand out at login?",
                                        "What value does the sid cookie set by the login response have?"),
             rec["sid"], "named_item", "server record: the sid it generated"),
            ("dashboard_request_id", "named", ("What request id did the final (dashboard) response carry?",
                                              "Which X-Request-Id came back with the page the redirects ended on?"),
             rec["dashboard"]["request_id"], "named_item", "server record: the dashboard response's id"),
            ("dashboard_etag", "named", ("What ETag did the dashboard response have?",
                                        "Which entity tag should the next conditional request for the dashboard send?"),
             rec["dashboard"]["etag"].strip('"'), "named_item", "server record: the ETag it computed"),
        ],
        "pages": [
            ("failed_request_id", "errors", ("Which request failed, and what request id did the server give it?",
                                            "One page came back with an error: what is its request id?"),
             pages[failing[0]]["request_id"], "named_item", "server record: the page it answered with 500"),
            ("other_backend", "named", ("Which page was not served by the usual backend? Give its request id.",
                                       "One response came from a different backend: what is its X-Request-Id?"),
             pages[other[0]]["request_id"], "named_item", "server record: the page served as app-2"),
            ("slowest_page", "extreme", ("Which page took the server longest to produce, and how long?",
                                        "What was the slowest server-side duration among these responses?"),
             f"dur={slow[0][1]['dur']}", "extreme", "server record: the largest duration it slept and reported"),
        ],
        "upload": [
            ("created_location", "named", ("Where was the uploaded resource created?",
                                          "Which URL path did the server return for the new upload?"),
             rec["created"], "named_item", "server record: the path it generated"),
            ("retry_after", "named", ("How long does the server ask the client to wait before retrying the report?",
                                     "After the 503, how many seconds until the report should be requested again?"),
             f"Retry-After: {rec['retry_after']}", "named_item", "server record: the delay it chose"),
        ],
    }
    out = []
    for output, (content, command) in traces.items():
        for scen, intent, wordings, text, kind, note in asked[output]:
            if content.count(text) != 1:
                continue
            sid = f"{mode}_{output}_{scen}"
            out.append(make_case(SOURCE, sid, "text", "bash", {"command": command}, intent,
                                 choose(f"{SOURCE}/{sid}", wordings), content, [fact(text, kind, note,
                                                                                     basis="independent")]))
    return out
