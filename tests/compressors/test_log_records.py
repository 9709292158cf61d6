"""JSON arrays of log records are selected like a text log (issue 24, class 1).

Built from real outputs: the corpus' postgres and uvicorn logs (real program runs) as
record arrays, reshaped into the field layouts structured loggers and log APIs use. The
facts are the corpus' own (computed without the compressors) and the questions are
paraphrases that do not contain them.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.compressors.base import CompressInput
from headroom.compressors.log_records import (
    LogRecordsCompressor,
    layout_of,
    record_line,
    record_lines,
)
from headroom.compressors.record_shape import RecordLayout
from headroom.config import HeadroomConfig
from headroom.eval.corpus import load_cases
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for


def _case(source: str, intent: str):
    return next(c for c in load_cases(sources=[source]) if c.form == "json" and c.intent == intent)


def _split_ts(rows: list[dict]) -> list[dict]:
    """The issue's layout: {id, date, time, level, component, pid, message}."""
    out = []
    for k, r in enumerate(rows):
        date, _, time = r["ts"].partition(" ")
        out.append({"id": k + 1, "date": date, "time": time.split(" ")[0], "level": r["level"],
                    "component": r["component"].split("@")[0], "pid": 4400 + k % 7, "message": r["message"],
                    **({"detail": r["detail"]} if "detail" in r else {})})
    return out


def _run(records: list, question: str) -> tuple[str, object]:
    messages = [{"role": "user", "content": question},
                {"role": "assistant", "content": None,
                 "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "fetch_logs", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": json.dumps(records)}]
    r = headroom.compress(messages, model="gpt-4o")
    return r.messages[-1]["content"], next(d for d in r.decisions if d.transform == "content_router")


def _body(out: str):
    """The compressed JSON without its retrieval marker."""
    return json.loads(MARKER_RE.sub("", out).strip())


def test_log_record_array_keeps_every_one_off_without_date_change_points() -> None:
    case = _case("postgres_server", "one_off")
    records = _split_ts(json.loads(case.content))
    out, decision = _run(records, "Which events in these records happened only a single time?")
    assert decision.action == "compressed"
    assert decision.strategy == "log_records:log_record_templates"
    assert "free-text field 'message', time 'time'" in decision.reason
    body = _body(out)
    assert {f.text for f in case.facts if f.text not in out} == set()
    # Kept records are original records, in their original order; no record is there
    # because its date or id changed.
    kept = [it for it in body["items"] if "_similar" not in it]
    ids = [it["id"] for it in kept]
    assert ids == sorted(ids)
    by_id = {r["id"]: r for r in records}
    for it in kept:
        assert {**body.get("_constant", {}), **it} == by_id[it["id"]]
    assert len(kept) < len(records) // 5


def test_frequent_templates_read_as_exemplar_count_and_time_span() -> None:
    records = _split_ts(json.loads(_case("uvicorn_access", "one_off").content))
    out, _ = _run(records, "Summarise what this web server did.")
    notes = [it["_similar"] for it in _body(out)["items"] if "_similar" in it]
    assert notes and all("similar records" in n or "repeated" in n for n in notes)
    assert any("time " in n for n in notes)  # the span of the records a note stands for


def test_errors_with_tracebacks_in_a_detail_field_stay_in_view() -> None:
    case = _case("uvicorn_access", "errors")
    records = _split_ts(json.loads(case.content))
    out, _ = _run(records, "Did the service run into any exceptions? Show them.")
    assert [f.text for f in case.facts if f.text not in out] == []


def test_structured_logger_layouts_are_recognised() -> None:
    rows = json.loads(_case("postgres_server", "one_off").content)
    structlog = [{"event": r["message"], "level": r["level"].lower(), "timestamp": r["ts"], "logger": r["component"]}
                 for r in rows]
    # journalctl -o json: priorities as digit strings, 3 (err) on three records only.
    journal = [{"MESSAGE": r["message"], "PRIORITY": "3" if k % 500 == 250 else "6",
                "__REALTIME_TIMESTAMP": str(1700000000000000 + k),
                "SYSLOG_IDENTIFIER": "postgres", "_PID": "3559", "_BOOT_ID": "9f1c"} for k, r in enumerate(rows)]
    assert layout_of(structlog).message == "event"
    assert layout_of(structlog).time == "timestamp"
    lay = layout_of(journal)
    assert (lay.message, lay.time, lay.level) == ("MESSAGE", "__REALTIME_TIMESTAMP", "PRIORITY")
    assert record_line({"MESSAGE": "disk full", "PRIORITY": "err", "SYSLOG_IDENTIFIER": "kernel"}, lay) \
        == "ERROR disk full"
    out, decision = _run(journal, "Anything unusual in the journal?")
    assert decision.strategy == "log_records:log_record_templates"
    # Fields every record holds with one value are stated once.
    assert _body(out)["_constant"]["_BOOT_ID"] == "9f1c"
    # The rare priority is in view on every record that holds it, whatever its message.
    stamps = {it["__REALTIME_TIMESTAMP"] for it in _body(out)["items"] if it.get("PRIORITY") == "3"}
    assert stamps == {r["__REALTIME_TIMESTAMP"] for r in journal if r["PRIORITY"] == "3"}


def test_listings_and_tables_are_not_logs() -> None:
    issues = [{"id": k, "title": f"Crash when saving file {k}", "body": "Steps: open, save, crash",
               "created_at": "2024-03-02T10:00:00Z", "user": {"login": f"u{k}"}, "state": "open"} for k in range(40)]
    metrics = [{"ts": f"2024-03-02T10:00:{k:02d}Z", "host": "web-1", "cpu": k / 3} for k in range(40)]
    assert layout_of(issues) is None
    assert layout_of(metrics) is None
    assert layout_of([{"message": "x", "level": "INFO"}] * 5) is None  # too short to select from


def _compress(records: list, query: str = ""):
    text = json.dumps(records)
    return LogRecordsCompressor().compress(CompressInput(
        text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=query,
        anchors=extract_anchors(query), parsed=records))


def test_an_anchor_in_another_field_keeps_its_record() -> None:
    records = _split_ts(json.loads(_case("postgres_server", "one_off").content))
    for k, r in enumerate(records):
        r["request_id"] = f"req-{(k * 2654435761) % 16**8:08x}"
    target = records[len(records) // 2]
    res = _compress(records, f"What did request {target['request_id']} log?")
    assert res is not None and f'"id":{target["id"]},' in res.text


_MESSAGES = st.sampled_from(["request served in 12ms", "cache hit ratio 0.5", "heartbeat from node-3",
                             "disk quota exceeded", "leader elected", "config reloaded from disk"])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(_MESSAGES, st.sampled_from(["INFO", "WARN", "ERROR", "DEBUG"]),
                          st.integers(0, 10**6)), min_size=12, max_size=120))
def test_output_is_json_of_original_records_in_order(rows) -> None:
    records = [{"seq": k, "ts": f"2024-03-02T10:{k // 60 % 60:02d}:{k % 60:02d}Z", "level": lvl, "pid": 7,
                "message": f"{msg} #{n}"} for k, (msg, lvl, n) in enumerate(rows)]
    res = _compress(records)
    if res is None:
        return
    body = json.loads(res.text)
    kept = [it for it in body["items"] if "_similar" not in it]
    assert [it["seq"] for it in kept] == sorted(it["seq"] for it in kept)
    for it in kept:
        assert {**body.get("_constant", {}), **it} == records[it["seq"]]
    assert res.items_after == len(kept) and res.items_before == len(records)


_VALUES = st.one_of(st.none(), st.text(max_size=12), st.integers(0, 9), st.lists(st.integers(0, 3), max_size=2),
                    st.dictionaries(st.sampled_from("ab"), st.integers(0, 3), max_size=1))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["level", "logger", "msg", "exc_info", "x"]), _VALUES, max_size=5),
                min_size=1, max_size=20))
def test_record_lines_column_wise_equals_one_record_at_a_time(items) -> None:
    lay = RecordLayout(message="msg", levels=("level", "logger"), time=None, exception="exc_info", reason="")
    assert record_lines(items, lay) == [record_line(it, lay) for it in items]


def test_a_record_from_a_rarely_heard_component_stays_in_view() -> None:
    rows = json.loads(_case("redis_server", "one_off").content)
    # The one routine line a subsystem wrote: its message template is a frequent one.
    k = next(k for k in range(len(rows) // 2, len(rows)) if "Accepted" in rows[k]["message"])
    rows[k] = {**rows[k], "component": "sentinel"}
    res = _compress(rows, "Summarise this log.")
    assert res is not None and '"component":"sentinel"' in res.text
