"""Content-type detection on realistic tool outputs."""

from __future__ import annotations

import json

import pytest

from headroom.compressors.detect import ContentType, detect_content_type

PYTEST_OUTPUT = """============================= test session starts ==============================
platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0
rootdir: /work/app
configfile: pyproject.toml
plugins: asyncio-0.23.8
collected 214 items

tests/test_api.py ........................................               [ 18%]
tests/test_billing.py ..........F.............................           [ 37%]
tests/test_models.py ....................................................  [ 61%]
tests/test_utils.py .....................................................  [ 86%]
tests/test_worker.py ..............................                       [100%]

=================================== FAILURES ===================================
_____________________________ test_invoice_total ______________________________

    def test_invoice_total():
        inv = Invoice(amount=100)
>       assert inv.total() == 119
E       assert 118 == 119
E        +  where 118 = total()

tests/test_billing.py:42: AssertionError
=========================== short test summary info ============================
FAILED tests/test_billing.py::test_invoice_total - assert 118 == 119
======================== 1 failed, 213 passed in 4.21s ========================="""

PYTEST_VERBOSE = "\n".join(
    [f"tests/api/test_api_{i // 25}.py::test_handles_case_{i} {'FAILED' if i == 40 else 'PASSED'} [{i + 1:3d}%]"
     for i in range(99)]
    + ["", "=========================== short test summary info ============================",
       "FAILED tests/api/test_api_1.py::test_handles_case_40 - AssertionError: expected 200, got 422",
       "========================= 1 failed, 98 passed in 41.27s ========================="]
)

NPM_BUILD = """> web@1.0.0 build
> webpack --mode production

npm WARN deprecated har-validator@5.1.5: this library is no longer supported
npm WARN deprecated uuid@3.4.0: Please upgrade  to version 7 or higher.
asset main.js 1.2 MiB [emitted] [big] (name: main)
asset vendor.js 800 KiB [emitted] (name: vendor)
orphan modules 2.3 MiB [orphan] 812 modules
runtime modules 1.1 KiB 5 modules
cacheable modules 3.1 MiB
  modules by path ./node_modules/ 2.9 MiB 700 modules
  modules by path ./src/ 210 KiB 90 modules
ERROR in ./src/app.tsx 12:8
Module not found: Error: Can't resolve './Header' in '/work/web/src'
webpack 5.91.0 compiled with 1 error in 8123 ms
npm ERR! code ELIFECYCLE
npm ERR! errno 1
npm ERR! web@1.0.0 build: `webpack --mode production`"""

CARGO_BUILD = """    Updating crates.io index
  Downloaded serde v1.0.200
  Downloaded tokio v1.37.0
   Compiling proc-macro2 v1.0.81
   Compiling unicode-ident v1.0.12
   Compiling serde v1.0.200
   Compiling tokio v1.37.0
   Compiling app v0.1.0 (/work/app)
warning: unused variable: `x`
 --> src/main.rs:4:9
  |
4 |     let x = 5;
  |         ^ help: if this is intentional, prefix it with an underscore: `_x`
  |
  = note: `#[warn(unused_variables)]` on by default

error[E0308]: mismatched types
 --> src/main.rs:8:18
  |
8 |     let y: u32 = "five";
  |            ---   ^^^^^^ expected `u32`, found `&str`
  |            |
  |            expected due to this

error: could not compile `app` (bin "app") due to 1 previous error; 1 warning emitted"""

JAVA_APP_LOG = """2026-11-22 03:00:01.123 INFO  [main] o.s.b.StartupInfoLogger : Starting App v1.4.2
2026-11-22 03:00:02.456 INFO  [main] o.s.b.w.e.tomcat.TomcatWebServer : Tomcat initialized with port 8080
2026-11-22 03:00:05.001 ERROR [http-nio-8080-exec-1] c.e.OrderController : Request failed
java.lang.IllegalStateException: order 991 has no lines
\tat com.example.OrderService.total(OrderService.java:88)
\tat com.example.OrderController.get(OrderController.java:41)
\tat java.base/java.lang.Thread.run(Thread.java:1583)
2026-11-22 03:00:06.002 INFO  [main] c.e.Health : ok"""

JSON_LINES_LOG = "\n".join(
    json.dumps({"ts": f"2026-11-22T03:00:{i % 60:02d}Z", "level": "error" if i == 7 else "info",
                "msg": "request done", "status": 200, "ms": i})
    for i in range(30)
)

RG_WITH_LINES = "\n".join(f"src/mod{i % 7}/file{i}.py:{i * 3 + 1}:    result = compute_total(order, tax={i})" for i in range(30))
RG_WITHOUT_LINES = "\n".join(f"src/mod{i % 7}/file{i}.py:    result = compute_total(order, tax={i})" for i in range(30))
RG_HEADING = "\n".join(
    f"src/mod{i}/file{i}.py\n{i + 3}:    x = compute_total()\n{i + 9}:    y = compute_total(1)\n" for i in range(10)
)
GREP_SINGLE_FILES = "\n".join(f"notes{i}.md:the compute_total function is described here ({i})" for i in range(12))

GIT_DIFF = """diff --git a/app/models.py b/app/models.py
index 3f2a1b0..9c8d7e6 100644
--- a/app/models.py
+++ b/app/models.py
@@ -10,7 +10,8 @@ class Order:
     id: int
     lines: list
-    total: int = 0
+    total: int = 0
+    currency: str = "EUR"

     def add(self, line):
         self.lines.append(line)"""

HTML_PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Release notes</title><script src="/app.js"></script></head>
<body>
<nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<main><h1>Release 2.4</h1><p>We fixed the retry bug.</p><ul><li>Faster startup</li><li>New CLI flag</li></ul></main>
</body></html>"""

PYTHON_FILE = '''"""Order totals."""

import math
from dataclasses import dataclass


@dataclass
class Order:
    id: int
    lines: list

    def total(self) -> int:
        return sum(line.price for line in self.lines)


def round_up(x: float) -> int:
    return math.ceil(x)
'''

JS_FILE = """import { api } from './api';

export const fetchOrders = async (userId) => {
  const res = await api.get(`/users/${userId}/orders`);
  return res.data;
};

function total(orders) {
  let sum = 0;
  for (const o of orders) {
    sum += o.total;
  }
  return sum;
}

module.exports = { total };
"""

GO_FILE = """package orders

import (
\t"fmt"
\t"strings"
)

type Order struct {
\tID    int
\tLines []string
}

func (o *Order) Describe() string {
\tif len(o.Lines) == 0 {
\t\treturn "empty"
\t}
\treturn fmt.Sprintf("%d: %s", o.ID, strings.Join(o.Lines, ","))
}
"""

JAVA_FILE = """package com.example.orders;

import java.util.List;

public class OrderService {
    private final OrderRepository repo;

    public OrderService(OrderRepository repo) {
        this.repo = repo;
    }

    @Transactional
    public int total(long orderId) {
        List<Line> lines = repo.lines(orderId);
        return lines.stream().mapToInt(Line::price).sum();
    }
}
"""

PROSE_WITH_CODE_WORDS = """The retry policy decides how often a failed request is attempted again. By default the client
waits one second, then two, then four. If you return early from the handler, the retry counter is not
reset, and the next call continues where the previous one stopped.

You can import the policy from the config module, and for each request you may override it. Class names
such as RetryPolicy are stable across releases. The function call sites do not need to change.
Running the test suite locally requires Docker. Building the docs requires Sphinx.

Note that the limit applies per key. When the limit is reached the server answers with status 429 and a
Retry-After header that says how long to wait. Error messages are returned as plain text."""

YAML_CONFIG = """server.port: 8080
server.host: 0.0.0.0
spring.datasource.url: jdbc:postgresql://db:5432/app
spring.datasource.user: app
logging.level.root: INFO
management.endpoints.web.exposure.include: health"""


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        (PYTEST_OUTPUT, ContentType.LOG),
        (PYTEST_VERBOSE, ContentType.LOG),
        (NPM_BUILD, ContentType.LOG),
        (CARGO_BUILD, ContentType.LOG),
        (JAVA_APP_LOG, ContentType.LOG),
        (JSON_LINES_LOG, ContentType.LOG),
        (RG_WITH_LINES, ContentType.SEARCH),
        (RG_WITHOUT_LINES, ContentType.SEARCH),
        (RG_HEADING, ContentType.SEARCH),
        (GREP_SINGLE_FILES, ContentType.SEARCH),
        (GIT_DIFF, ContentType.DIFF),
        (HTML_PAGE, ContentType.HTML),
        (PYTHON_FILE, ContentType.CODE),
        (JS_FILE, ContentType.CODE),
        (GO_FILE, ContentType.CODE),
        (JAVA_FILE, ContentType.CODE),
        (PROSE_WITH_CODE_WORDS, ContentType.TEXT),
    ],
    ids=[
        "pytest", "pytest-v", "npm", "cargo", "java-log", "json-lines", "rg-n", "rg-no-line-numbers", "rg-heading",
        "grep-md", "git-diff", "html", "python", "javascript", "go", "java", "prose",
    ],
)
def test_realistic_samples_are_detected(sample: str, expected: ContentType) -> None:
    assert detect_content_type(sample) is expected


def test_json_wins_even_when_its_strings_look_like_other_types() -> None:
    items = [{"line": "2026-11-22 ERROR boom", "patch": GIT_DIFF, "page": HTML_PAGE, "hit": "src/a.py:1:x"}] * 5
    assert detect_content_type(json.dumps(items)) is ContentType.JSON_ARRAY
    assert detect_content_type(json.dumps({"diff": GIT_DIFF, "html": HTML_PAGE}, indent=2)) is ContentType.JSON_OBJECT


def test_dotted_config_keys_are_not_search_hits() -> None:
    assert detect_content_type(YAML_CONFIG) is not ContentType.SEARCH


def test_empty_and_blank_text_is_text() -> None:
    assert detect_content_type("") is ContentType.TEXT
    assert detect_content_type("  \n\n \t") is ContentType.TEXT


# Line shapes of real programs (redis-server 7 verbose log, dpkg.log, apt's term.log) with
# their own timestamps and fields. (A reserved log benchmark's lines were here until issue 33.)
REDIS_LOG = "\n".join(
    [
        "11850:C 23 Nov 2026 17:16:31.630 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo",
        "11850:C 23 Nov 2026 17:16:31.630 # Configuration loaded",
        "11850:M 23 Nov 2026 17:16:31.634 * Ready to accept connections",
    ]
    + [f"11850:M 23 Nov 2026 17:16:32.{600 + i} - Accepted 127.0.0.1:{53560 + i}" for i in range(30)]
)
DPKG_LOG = "\n".join(
    f"2025-06-24 14:36:34 status {s} libtirpc{i}:amd64 1.3.3+ds-1" for i in range(20) for s in ("half-installed", "unpacked")
)
APT_TERM = "\n".join(
    ["Log started: 2025-06-24  14:36:25"]
    + [f"{verb} lib{name}{i}:amd64 ({i}.{i + 2}-1~deb12u1) ..." for i, name in enumerate("abcdefghijklmnopqrstu")
       for verb in ("Preparing to unpack", "Unpacking", "Setting up")]
)
MULTI_FILE = "\n".join(
    f"logs/node-{i % 3}.2024-01-01T10:00:00.log: 2024-01-01 10:00:{i:02d},123 INFO worker: received batch {i * 7919}"
    for i in range(40)
)
GREP_OF_LOGS = "\n".join(f"logs/app.log:{i * 7 + 1}:2024-01-01 10:00:{i:02d} ERROR worker {i} died" for i in range(20))
LINT = "\n".join(["************* Module tenacity"] + [
    f"tenacity/__init__.py:{70 + i}:0: {code}: {msg}" for i, (code, msg) in enumerate(
        [("C0301", "Line too long (114/100) (line-too-long)"), ("W0404", "Reimport 'wait' (imported line 73) (reimported)"),
         ("C0114", "Missing module docstring (missing-module-docstring)")] * 5)])
PROSE_LINES = "\n".join(
    f"The {w} chapter explains why the design keeps every original, and how it is retrieved later."
    for w in ["first", "second", "third", "fourth", "fifth", "sixth", "seventh"] * 4
)


@pytest.mark.parametrize(
    "sample, expected",
    [
        (REDIS_LOG, ContentType.LOG),
        (DPKG_LOG, ContentType.LOG),
        (APT_TERM, ContentType.LOG),
        (MULTI_FILE, ContentType.LOG),  # file names with timestamps and colons, then the log line
        (MULTI_FILE.replace("logs/", ""), ContentType.LOG),
        (GREP_OF_LOGS, ContentType.SEARCH),  # grep -n: line numbers make it search hits
        (LINT, ContentType.DIAGNOSTICS),  # path:line:col: CODE message — a linter report, not grep hits
        (PROSE_LINES, ContentType.TEXT),
    ],
    ids=["redis", "dpkg", "apt-term", "multi-file", "multi-file-no-dir", "grep-n-of-logs", "lint", "prose-lines"],
)
def test_logs_are_told_apart_from_search_hits_and_prose_by_structure(sample: str, expected: ContentType) -> None:
    assert detect_content_type(sample) == expected


def test_dashed_title_lines_open_no_diff():
    """"--- node07 ---" over each host's output is no file header: a diff's "--- a" comes
    with its "+++ b" on the next line."""
    from headroom.compressors.detect import ContentType, detect_content_type

    text = "\n".join(f"--- node{h:02d} ---\nuptime {h} days, load {h % 4}.{h % 10}" for h in range(30)) + "\n"
    assert detect_content_type(text) != ContentType.DIFF
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n b = 3\n--- a/y.py\n+++ b/y.py\n@@ -1 +1 @@\n-c\n+d\n"
    assert detect_content_type(diff) == ContentType.DIFF
