"""Text tool outputs: build/test runs, plain logs, code search hits, diffs, HTML pages."""

from __future__ import annotations

import random

from .base import Probe, Scenario, ToolCall, Turn, as_lines

_CODER = "You are a coding agent. Answer from the tool results; quote exact names and values."
_MODULES = ("api", "billing", "auth", "storage", "search", "jobs", "events", "reports")
_VERBS = ("handles", "rejects", "retries", "parses", "caches", "serialises", "validates", "merges")
_NOUNS = ("empty_payload", "unicode_name", "large_batch", "expired_token", "duplicate_key", "null_field")


def build_output(size: int, seed: int) -> Scenario:
    """pytest -v output: many PASSED lines, one failure with its traceback."""
    rng = random.Random(f"build_output:{seed}:{size}")
    fail = rng.randrange(size // 3, max(size // 3 + 1, size - 3))
    lines = ["============================= test session starts ==============================",
             "platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0", f"collected {size} items", ""]
    failing = ""
    for i in range(size):
        mod = rng.choice(_MODULES)
        name = f"tests/{mod}/test_{mod}_{i // 25}.py::test_{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}_{i}"
        status = "FAILED" if i == fail else "PASSED"
        if i == fail:
            failing = name
        lines.append(f"{name} {status} [{(i + 1) * 100 // size:3d}%]")
    code = rng.choice((503, 409, 422))
    lines += ["", "=================================== FAILURES ===================================",
              f"_____ {failing.split('::')[1]} _____", "", "    def test_case(client):",
              "        resp = client.post('/v1/charge', json=PAYLOAD)",
              ">       assert resp.status_code == 200, resp.text",
              f"E       AssertionError: expected 200, got {code}",
              f"E        +  where {code} = <Response [{code}]>.status_code", "",
              f"{failing.split('::')[0]}:42: AssertionError",
              "=========================== short test summary info ============================",
              f"FAILED {failing} - AssertionError: expected 200, got {code}",
              f"========================= 1 failed, {size - 1} passed in 41.27s ========================="]
    probes = [Probe("Which test failed, and with what error?", f"{failing} expected 200, got {code}",
                    (failing.split("::")[1], f"expected 200, got {code}"), kind="error")]
    call = ToolCall("run_tests", {"cmd": "pytest -v"}, as_lines(lines))
    return Scenario("build_output", size, seed, _CODER, [Turn("Run the test suite.", (call,))], probes)


def text_logs(size: int, seed: int) -> Scenario:
    """Plain service log lines (syslog-ish), one ERROR with a stack trace."""
    rng = random.Random(f"text_logs:{seed}:{size}")
    err = rng.randrange(size // 4, max(size // 4 + 1, size - 4))
    worker = f"worker-{rng.randint(10, 99)}"
    job = f"job-{rng.getrandbits(32):08x}"
    lines = []
    for i in range(size):
        ts = f"2026-03-04 09:{(i // 60) % 60:02d}:{i % 60:02d},{rng.randint(0, 999):03d}"
        if i == err:
            lines += [f"{ts} ERROR [{worker}] {job} failed: ConnectionResetError: peer reset by db-replica-3:5432",
                      "Traceback (most recent call last):",
                      '  File "/srv/app/jobs/export.py", line 88, in run', "    rows = cursor.fetchmany(500)",
                      "ConnectionResetError: [Errno 104] Connection reset by peer"]
        else:
            lines.append(f"{ts} INFO  [worker-{rng.randint(10, 99)}] job-{rng.getrandbits(32):08x} "
                         f"processed {rng.randint(100, 999)} rows in {rng.randint(20, 400)} ms")
    probes = [Probe("Which job failed, and what was the cause?", f"{job} ConnectionResetError db-replica-3",
                    (job, "db-replica-3"), kind="error")]
    call = ToolCall("tail_log", {"path": "/var/log/app/worker.log", "lines": size}, as_lines(lines))
    return Scenario("text_logs", size, seed, "You are an SRE assistant. Answer from the logs.",
                    [Turn("What happened in the worker log?", (call,))], probes)


def code_search(size: int, seed: int) -> Scenario:
    """`rg -n` output: many call sites of a function, one definition."""
    rng = random.Random(f"code_search:{seed}:{size}")
    fn = f"resolve_{rng.choice(_NOUNS)}_quota"
    define = rng.randrange(size // 3, max(size // 3 + 1, size - 2))
    def_path = f"src/{rng.choice(_MODULES)}/limits_{seed}.py"
    def_line = rng.randint(100, 900)
    lines = []
    for i in range(size):
        if i == define:
            lines.append(f"{def_path}:{def_line}:def {fn}(tenant_id: str, *, strict: bool = False) -> Quota:")
            continue
        mod = rng.choice(_MODULES)
        path = f"src/{mod}/{rng.choice(_VERBS)}_{i // 8}.py"
        lines.append(f"{path}:{rng.randint(1, 600)}:    quota = {fn}(tenant.id{', strict=True' if i % 3 else ''})")
    probes = [Probe(f"In which file is `def {fn}` located?", def_path, (def_path, f"def {fn}("), key=f"def {fn}", kind="lookup")]
    call = ToolCall("ripgrep", {"pattern": fn, "path": "src/", "flags": "-n"}, as_lines(lines))
    return Scenario("code_search", size, seed, _CODER, [Turn(f"Find usages of {fn}.", (call,))], probes)


def git_diff(size: int, seed: int) -> Scenario:
    """A multi-file unified diff (size = hunks), one config change the question is about."""
    rng = random.Random(f"git_diff:{seed}:{size}")
    target = rng.randrange(size)
    new_retries = rng.randint(5, 12)
    out = []
    for h in range(size):
        path = f"src/{rng.choice(_MODULES)}/module_{h}.py"
        out += [f"diff --git a/{path} b/{path}", f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644",
                f"--- a/{path}", f"+++ b/{path}", f"@@ -{10 + h},7 +{10 + h},7 @@ class Handler{h}:"]
        ctx = [f"     def step_{k}(self, payload):" if k % 2 == 0 else f"         return self._{rng.choice(_VERBS)}(payload)"
               for k in range(3)]
        out += [" " + c[1:] for c in ctx]
        if h == target:
            out += ["-MAX_RETRIES = 3", f"+MAX_RETRIES = {new_retries}"]
        else:
            v = rng.choice(_VERBS)
            out += [f"-        log.debug('{v} payload %s', payload.id)", f"+        log.debug('{v} payload id=%s', payload.id)"]
        out += [" " + c[1:] for c in ctx]
    probes = [Probe("What is the new value of `MAX_RETRIES` in this diff?", str(new_retries),
                    (f"+MAX_RETRIES = {new_retries}",), key="MAX_RETRIES", kind="lookup")]
    call = ToolCall("git_diff", {"range": "main..feature/retries"}, as_lines(out))
    return Scenario("git_diff", size, seed, _CODER, [Turn("Show me the diff of the branch.", (call,))], probes)


_FILLER = ("Our products are designed for demanding environments and tested to the highest standards.",
           "Customers can contact support at any time through the help centre or their account manager.",
           "Shipping times vary by region and are shown at checkout before payment is taken.",
           "All prices include applicable taxes unless stated otherwise in the order summary.",
           "Firmware updates are delivered automatically when the device is connected to the internet.",
           "Accessories sold separately may differ in colour and finish from the images shown.")


def documents(size: int, seed: int) -> Scenario:
    """An HTML product page (size = paragraphs): navigation, boilerplate, one fact."""
    rng = random.Random(f"documents:{seed}:{size}")
    model = f"XR-{rng.randint(1000, 9999)}"
    months = rng.choice((18, 30, 36, 42))
    fact = rng.randrange(size // 3, max(size // 3 + 1, size - 1))
    parts = ["<!DOCTYPE html>", "<html><head><title>Product support</title>",
             "<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}</script>",
             "<style>body{font-family:sans-serif}.nav a{margin:0 8px}</style></head><body>",
             '<div class="nav"><a href="/">Home</a><a href="/products">Products</a><a href="/support">Support</a></div>',
             "<h1>Support and warranty</h1>"]
    for i in range(size):
        if i == fact:
            parts.append(f"<p>The warranty period for model {model} is {months} months from the date of purchase.</p>")
        else:
            parts.append(f"<p>{rng.choice(_FILLER)} {rng.choice(_FILLER)}</p>")
    parts += ['<footer><a href="/privacy">Privacy</a> &middot; <a href="/terms">Terms</a></footer></body></html>']
    number = model.removeprefix("XR-")
    probes = [Probe(f"How long is the warranty for the XR-series model numbered `{number}`?", f"{months} months",
                    (model, f"{months} months"), key=number)]
    call = ToolCall("fetch_url", {"url": "https://shop.example.com/support/warranty"}, "\n".join(parts))
    return Scenario("documents", size, seed, "You are a shopping assistant. Answer from the fetched pages.",
                    [Turn("Check the warranty page.", (call,))], probes)


_NOTES = ("The team reviewed the open action items from the previous sync and agreed to keep the current scope.",
          "Several people raised concerns about the timeline, but no blocking issues were identified this week.",
          "The discussion moved on to hiring, onboarding material and the offsite planning for next quarter.",
          "It was noted that the dashboards are slow in the mornings, which will be looked at by the platform group.",
          "Everyone is reminded to update their status in the tracker before the end of the day on Thursday.",
          "The retro format will stay the same, with a rotating facilitator chosen at the start of each sprint.")


def plain_text(size: int, seed: int) -> Scenario:
    """Plain prose (meeting notes, size = paragraphs) with one decision in it: the text
    compressors' (TextCrusher, LLMLingua-2) home ground."""
    rng = random.Random(f"plain_text:{seed}:{size}")
    owner = f"{rng.choice(('Priya', 'Marek', 'Aiko', 'Tomás', 'Lena'))} {rng.choice(('Okafor', 'Lindqvist', 'Sato', 'Moreau'))}"
    date = f"2026-04-{rng.randint(10, 28)}"
    fact = rng.randrange(size // 3, max(size // 3 + 1, size - 1))
    paras = []
    for i in range(size):
        if i == fact:
            paras.append(f"Decision: the `billing-v2` migration is owned by {owner} and freezes on {date}; "
                         "no schema changes are allowed after that day.")
        else:
            paras.append(" ".join(rng.sample(_NOTES, 3)))
    probes = [Probe("Who owns the `billing-v2` migration, and when does it freeze?", f"{owner} {date}",
                    (owner, date), key="billing-v2")]
    call = ToolCall("read_document", {"doc": "notes/weekly-sync.md"}, "\n\n".join(paras))
    return Scenario("plain_text", size, seed, "You are a project assistant. Answer from the documents.",
                    [Turn("Summarise the weekly sync notes.", (call,))], probes)
