"""LogCompressor: planted failures survive, noise collapses with honest counts."""

from __future__ import annotations

import json
import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.config import HeadroomConfig, RouterConfig
from headroom.tokens import count_tokens, counter_for
from headroom.query.anchors import extract_anchors
from headroom.compressors.base import CompressInput
from headroom.compressors.logs import LogCompressor, template_of

TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/app/worker.py", line 88, in run',
    "    result = handle(job)",
    '  File "/app/handlers.py", line 41, in handle',
    "    return PAYLOAD_PARSERS[job.kind](job.body)",
    "KeyError: 'invoice_v2'",
]


def build_log(n: int = 3000, seed: int = 7) -> str:
    """A CI build log: thousands of info lines, some warnings, two planted errors, a traceback."""
    rnd = random.Random(seed)
    out = ["$ make test", "Starting build 8841 at 2026-11-22T03:00:00Z"]
    for i in range(n):
        if i == 1200:
            out.append("2026-11-22T03:10:00Z ERROR db.pool: connection refused to 10.0.0.5:5432 (attempt 3)")
        elif i == 2100:
            out += TRACEBACK
        elif i == 2500:
            out.append("2026-11-22T03:20:00Z FATAL migrations: checksum mismatch for 0042_add_invoice_index")
        elif rnd.random() < 0.02:
            out.append(f"2026-11-22T03:{i % 60:02d}:{i % 60:02d}Z WARN cache miss ratio high: {rnd.randint(50, 99)}%")
        else:
            out.append(
                f"2026-11-22T03:{i % 60:02d}:{i % 60:02d}Z INFO worker-{rnd.randint(1, 8)} "
                f"processed job {rnd.randint(1000, 99999)} in {rnd.randint(1, 500)}ms"
            )
    out.append("===== 1 failed, 412 passed in 12.34s =====")
    out.append("make: *** [Makefile:12: test] Error 1")
    return "\n".join(out)


def compress(text: str, query: str = "", aggressiveness: float = 0.5, config: HeadroomConfig | None = None):
    return LogCompressor().compress(
        CompressInput(text=text, config=config or HeadroomConfig(), counter=counter_for("gpt-4o"),
                      query=query, anchors=extract_anchors(query), aggressiveness=aggressiveness)
    )


def test_build_log_keeps_errors_traceback_summary_and_edges() -> None:
    log = build_log()
    out = compress(log)
    assert out is not None and out.lossy
    text = out.text
    assert "ERROR db.pool: connection refused to 10.0.0.5:5432" in text
    assert "FATAL migrations: checksum mismatch for 0042_add_invoice_index" in text
    assert "\n".join(TRACEBACK) in text  # the whole short traceback, in order
    assert "1 failed, 412 passed in 12.34s" in text
    assert text.splitlines()[1] == "$ make test"  # first line (after the summary header)
    assert "make: *** [Makefile:12: test] Error 1" in text  # last line
    assert count_tokens(text) < count_tokens(log) * 0.05
    assert out.items_before == len(log.splitlines())
    assert out.items_after < 60 + 10


def test_header_counts_levels() -> None:
    log = build_log()
    out = compress(log)
    header = out.text.splitlines()[0]
    assert re.match(rf"\[log: {len(log.splitlines())} lines; \d+ error, \d+ warning, \d+ info, 1 stack trace", header), header


def test_warnings_are_summarised_with_their_count() -> None:
    log = build_log()
    n_warn = sum(1 for ln in log.splitlines() if " WARN " in ln)
    out = compress(log)
    assert f"… {n_warn} similar lines" in out.text
    assert sum(1 for ln in out.text.splitlines() if " WARN cache miss" in ln) <= 3


def test_identical_repeats_collapse_with_exact_count() -> None:
    lines = ["starting"] + ["retrying connection to broker"] * 1523 + ["ERROR gave up after 1523 attempts", "done"]
    out = compress("\n".join(lines))
    assert "… repeated 1523 times" in out.text
    # One representative plus at most the two context lines before the error.
    assert out.text.count("retrying connection to broker") <= 3 + 1
    assert "ERROR gave up after 1523 attempts" in out.text


def test_templates_collapse_numbers_ids_and_timestamps() -> None:
    a = template_of("2026-11-22T03:00:01Z req 5f2a9c1e took 45ms id=123e4567-e89b-12d3-a456-426614174000")
    b = template_of("2026-11-22T04:59:59Z req 77bb01ff took 9ms id=00000000-1111-2222-3333-444444444444")
    assert a == b


def test_zero_errors_is_not_an_error() -> None:
    lines = [f"INFO compiled module {i}" for i in range(100)]
    lines[40] = "lint finished: 0 errors, 0 warnings"
    lines[70] = "typecheck finished: 3 errors"
    out = compress("\n".join(lines))
    assert out.text.startswith("[log: 100 lines; 1 error, 0 warning")
    assert "typecheck finished: 3 errors" in out.text


def test_errors_keep_context_lines() -> None:
    lines = [f"INFO step {i} of the pipeline ok" for i in range(200)]
    lines[100] = "ERROR step 100 crashed: disk full on /var/lib/data"
    out = compress("\n".join(lines)).text
    assert "INFO step 99 of the pipeline ok\nERROR step 100 crashed" in out
    assert "disk full on /var/lib/data\nINFO step 101 of the pipeline ok" in out


def test_long_java_trace_is_trimmed_in_the_middle_with_a_count_and_keeps_the_cause() -> None:
    lines = [f"2026-11-22 03:00:{i:02d} INFO boot step {i}" for i in range(20)]
    lines += ["2026-11-22 03:01:00 ERROR [exec-1] OrderController: request failed", "java.lang.RuntimeException: wrapper"]
    lines += [f"\tat com.example.layer{i}.Service.call(Service.java:{i + 10})" for i in range(40)]
    lines += ["Caused by: java.sql.SQLException: deadlock detected on table orders_991"]
    lines += [f"\tat org.db.Driver{i}.exec(Driver.java:{i + 100})" for i in range(30)]
    lines += ["\t... 12 more"]
    lines += [f"2026-11-22 03:02:{i:02d} INFO shutdown step {i}" for i in range(20)]
    out = compress("\n".join(lines)).text
    assert "java.lang.RuntimeException: wrapper\n\tat com.example.layer0.Service.call(Service.java:10)" in out
    assert "Caused by: java.sql.SQLException: deadlock detected on table orders_991" in out
    assert "\t... 12 more" in out
    omitted = [int(m) for m in re.findall(r"… (\d+) frames omitted", out)]
    assert omitted and sum(omitted) == sum(1 for ln in lines if ln.startswith("\tat ")) - sum(
        1 for ln in out.splitlines() if ln.startswith("\tat ")
    )


def test_anchor_lines_survive_even_among_noise() -> None:
    log = build_log()
    planted = log.splitlines()[1701]
    job = re.search(r"job (\d+)", planted).group(1)
    out = compress(log, query=f"what happened to job {job}?")
    assert planted in out.text
    assert planted not in compress(log).text  # only the question made it survive


def test_room_under_the_cap_is_filled_and_scales_with_aggressiveness() -> None:
    rnd = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]
    lines = [" ".join(rnd.choice(words) for _ in range(6)) for _ in range(2000)]  # distinct, no numbers
    gentle = compress("\n".join(lines), aggressiveness=0.0)
    hard = compress("\n".join(lines), aggressiveness=1.0)
    assert hard.items_after < gentle.items_after
    assert gentle.items_after == 90  # 60 * (1.5 - 0): the room is used, not left empty
    cfg = HeadroomConfig(router=RouterConfig(log_max_lines=20))
    small = compress("\n".join(lines), config=cfg)
    assert small.items_after <= 20


def test_thousands_of_distinct_errors_are_bounded() -> None:
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "zeta", "eta"]
    lines = [f"ERROR cannot open /data/{a}/{b}/{c}.txt" for a in words for b in words for c in words]
    out = compress("\n".join(lines))
    errors = [ln for ln in out.text.splitlines() if ln.startswith("ERROR")]
    assert len(errors) == 2 * 60
    assert errors[0] == lines[0] and errors[-1] == lines[-1]
    assert out.text.startswith("[log: 1000 lines; 1000 error")


def test_json_lines_log_keeps_the_error_record() -> None:
    recs = [{"ts": f"2026-11-22T03:00:{i % 60:02d}Z", "level": "info", "msg": "request done", "status": 200, "ms": i}
            for i in range(500)]
    recs[321] = {"ts": "2026-11-22T03:05:21Z", "level": "error", "msg": "upstream timeout", "route": "/v1/pay"}
    for k in range(0, 500, 7):  # info records that carry an empty "error" field
        if k != 321:
            recs[k]["error"] = None
    text = "\n".join(json.dumps(r) for r in recs)
    out = compress(text)
    assert json.dumps(recs[321]) in out.text
    assert out.text.startswith("[log: 500 lines; 1 error, 0 warning, 499 info")
    assert count_tokens(out.text) < count_tokens(text) * 0.2


def test_pytest_output_keeps_failures_and_totals() -> None:
    passed = [f"tests/test_mod{i}.py::test_case_{k} PASSED" for i in range(30) for k in range(10)]
    passed[150] = "tests/test_mod15.py::test_case_0 FAILED"
    tail = [
        "=================================== FAILURES ===================================",
        "_____________________________ test_case_0 ______________________________",
        "",
        "    def test_case_0(invoice):",
        "        invoice.add(line(price=100))",
        ">       assert invoice.total() == 119",
        "E       assert 118 == 119",
        "tests/test_mod15.py:42: AssertionError",
        "=========================== short test summary info ============================",
        "FAILED tests/test_mod15.py::test_case_0 - assert 118 == 119",
        "======================== 1 failed, 299 passed in 4.21s =========================",
    ]
    out = compress("\n".join(passed + tail)).text
    assert "\n".join(tail) in out  # the whole failure section and the summary, untouched
    assert "tests/test_mod15.py::test_case_0 FAILED" in out
    assert "E       assert 118 == 119" in out
    assert "FAILED tests/test_mod15.py::test_case_0 - assert 118 == 119" in out
    assert "1 failed, 299 passed in 4.21s" in out


def test_an_unclosed_banner_does_not_hide_errors() -> None:
    lines = ["________ setup ________"] + [f"INFO step {i} done" for i in range(500)]
    lines[300] = "ERROR step 299 lost its lease on shard 7"
    out = compress("\n".join(lines)).text
    assert "ERROR step 299 lost its lease on shard 7" in out


def test_short_logs_are_left_alone() -> None:
    assert compress("INFO a\nERROR b\nINFO c") is None


def test_deterministic() -> None:
    log = build_log(1500, seed=11)
    assert compress(log, query="why did it fail").text == compress(log, query="why did it fail").text


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3000))
def test_odd_input_never_raises(text: str) -> None:
    out = compress(text)
    assert out is None or isinstance(out.text, str)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([
    "INFO ok", "ERROR boom 12", "WARN slow 3ms", "Traceback (most recent call last):", '  File "x.py", line 1',
    "\tat a.b(C.java:1)", "Caused by: x", "", "=== 1 failed, 2 passed in 0.1s ===", "{\"level\": \"error\"}",
]), min_size=12, max_size=300))
def test_log_shaped_noise_never_raises(lines: list[str]) -> None:
    out = compress("\n".join(lines))
    assert out is None or out.items_after <= out.items_before


def test_end_to_end_marker_retrieves_exact_original() -> None:
    log = build_log(3000, seed=5)
    messages = [
        {"role": "user", "content": "Run the tests and tell me why the build failed."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "run_tests", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": log},
    ]
    result = headroom.compress(messages, model="gpt-4o")
    compressed = result.messages[2]["content"]
    assert "FATAL migrations: checksum mismatch" in compressed
    m = MARKER_RE.search(compressed)
    assert m, compressed[-300:]
    got = headroom.retrieve(m.group("hash"))
    assert got is not None and got.content == log
    assert result.tokens_after < result.tokens_before * 0.1
