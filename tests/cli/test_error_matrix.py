"""Issue 29's CLI matrix: every way a first-hour user gets it wrong is one line that names
the fix and a non-zero exit, never a traceback. Each case runs the real command line."""

from __future__ import annotations

import json
import os

import pytest

from headroom.eval.corpus import load_cases

from .helpers import assert_one_line_error, headroom


@pytest.fixture
def cwd(tmp_path):
    d = tmp_path / "work"
    d.mkdir()
    return d


def test_an_empty_file(cwd):
    (cwd / "empty.json").write_text("  \n")
    line = assert_one_line_error(headroom("compress", "empty.json", cwd=cwd), "compress")
    assert "empty.json is empty" in line


def test_a_directory(cwd):
    (cwd / "logs").mkdir()
    line = assert_one_line_error(headroom("compress", "logs", cwd=cwd), "compress")
    assert "is a directory" in line and "give one file" in line


def test_a_missing_file(cwd):
    line = assert_one_line_error(headroom("compress", "nope.json", cwd=cwd), "compress")
    assert "nope.json: no such file" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file(cwd):
    f = cwd / "secret.log"
    f.write_text("x")
    f.chmod(0)
    line = assert_one_line_error(headroom("compress", "secret.log", cwd=cwd), "compress")
    assert "permission denied" in line


def test_a_binary_file(cwd):
    (cwd / "blob.bin").write_bytes(bytes(range(256)) * 20)
    line = assert_one_line_error(headroom("compress", "blob.bin", cwd=cwd), "compress")
    assert "not UTF-8 text" in line


def test_ambiguous_input_says_how_to_force_it(cwd):
    (cwd / "mixed.json").write_text(json.dumps([{"role": "user", "content": "hi"}, {"id": 1, "cpu": 3.5}]))
    line = assert_one_line_error(headroom("compress", "mixed.json", cwd=cwd), "compress")
    assert "ambiguous" in line and "--as-tool-output" in line
    ok = headroom("compress", "mixed.json", "--as-tool-output", cwd=cwd)
    assert ok.rc == 0 and "tool output" in ok.out


def test_a_broken_request_body(cwd):
    (cwd / "body.json").write_text('{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}')
    line = assert_one_line_error(headroom("compress", "body.json", cwd=cwd), "compress")
    assert "looks like a request body but is not valid JSON" in line and "line 1" in line


# One mistyped flag per command, each answered with that command's usage and a hint.
BAD_FLAGS = [
    (("compress", "body.json", "--modle", "gpt-4o"), "compress", "did you mean --model?"),
    (("doctor", "--jsn"), "doctor", "did you mean --json?"),
    (("models", "--devcie", "cpu"), "models", "did you mean --device?"),
    (("report", "--metric-db", "x.db"), "report", "did you mean --metrics-db?"),
    (("toin", "stats", "--ccr-pth", "x"), "toin", "did you mean --ccr-path?"),
    (("mcp", "serve", "--ccr-paht", "x"), "mcp serve", "did you mean --ccr-path?"),
    (("proxy", "--prot", "1"), "proxy", "did you mean --port?"),
    (("eval", "run", "--siute", "smoke"), "eval run", "did you mean --suite?"),
    (("eval", "gate", "dir", "--min-savigns", "1"), "eval gate", "did you mean --min-savings?"),
    (("eval", "report", "dir", "--noplots"), "eval report", "did you mean --no-plots?"),
    (("inspect", "--lats", "3"), "inspect", "did you mean --last?"),
    (("savings", "--dyas", "3"), "savings", "did you mean --days?"),
    (("wrap", "--prot", "1", "claude"), "wrap", "did you mean --port?"),
]


@pytest.mark.parametrize("argv,command,hint", BAD_FLAGS, ids=[c for _, c, _ in BAD_FLAGS])
def test_a_bad_flag_prints_that_commands_usage(cwd, argv, command, hint):
    r = headroom(*argv, cwd=cwd)
    assert r.rc == 2
    line = assert_one_line_error(r, command)
    assert hint in line and f"`headroom {command} --help`" in line
    assert r.err_lines[0].startswith(f"usage: headroom {command} ")  # its own usage, not the top level's


@pytest.mark.parametrize("argv,command", [
    (("doctor",), "doctor"), (("compress",), "compress"), (("models",), "models"),
    (("toin", "stats"), "toin"), (("report",), "report"), (("proxy",), "proxy"), (("mcp", "serve"), "mcp serve"),
    (("wrap", "--", "true"), "wrap"),
])
def test_a_bad_headroom_value_is_one_line(cwd, argv, command):
    r = headroom(*argv, cwd=cwd, env={"HEADROOM_CCR_TTL_SECONDS": "2h"}, stdin="")
    line = assert_one_line_error(r, command)
    assert "HEADROOM_CCR_TTL_SECONDS='2h'" in line and "HEADROOM_CCR_TTL_SECONDS=7200" in line
    assert list(cwd.iterdir()) == []  # failed before touching anything


def test_help_works_whatever_the_environment(cwd):
    env = {"HEADROOM_CCR_TTL_SECONDS": "2h", "HEADROOM_EXACT_TOKENS": "maybe"}
    for argv in (("--help",), ("compress", "--help"), ("mcp", "serve", "--help")):
        r = headroom(*argv, cwd=cwd, env=env)
        assert r.rc == 0 and r.out.startswith("usage: headroom") and r.err == ""


@pytest.mark.parametrize("env,needle", [
    ({"HEADROOM_CCR_TTL_SECONDS": "-5"}, "must be positive"),
    ({"HEADROOM_EXACT_TOKENS": "maybe"}, "set it to 1"),
    ({"HEADROOM_MODEL_DIR": "/nonexistent/models"}, "is not a directory"),
    ({"HEADROOM_PRICES_FILE": "/nonexistent/prices.json"}, "is not a file"),
])
def test_other_bad_values(cwd, env, needle):
    line = assert_one_line_error(headroom("doctor", cwd=cwd, env=env), "doctor")
    assert needle in line


UNREACHABLE = "redis://127.0.0.1:1/0"  # port 1: nothing listens there


@pytest.mark.parametrize("argv,command", [
    (("mcp", "serve", "--ccr-backend", "redis", "--redis-url", UNREACHABLE), "mcp serve"),
    (("toin", "stats", "--ccr-backend", "redis", "--redis-url", UNREACHABLE), "toin"),
])
def test_unreachable_redis(cwd, argv, command):
    line = assert_one_line_error(headroom(*argv, cwd=cwd, stdin=""), command)
    assert "127.0.0.1:1" in line and "start redis-server" in line and "--ccr-backend sqlite" in line


def test_redis_url_without_the_redis_backend(cwd):
    line = assert_one_line_error(headroom("toin", "stats", "--redis-url", UNREACHABLE, cwd=cwd), "toin")
    assert "--redis-url needs --ccr-backend redis" in line


def test_a_missing_model_says_where_to_put_it(cwd, tmp_path):
    empty = tmp_path / "models"
    empty.mkdir()
    r = headroom("models", cwd=cwd, env={"HEADROOM_MODEL_DIR": str(empty)})
    assert r.rc == 0
    assert "llmlingua-2-xlm-roberta-large        missing" in r.out
    assert "$HEADROOM_MODEL_DIR/llmlingua-2-xlm-roberta-large" in r.out  # where to put it
    assert "https://huggingface.co/microsoft/llmlingua-2-xlm-roberta-large-meetingbank" in r.out  # where to get it


def test_report_on_a_missing_database(cwd):
    line = assert_one_line_error(headroom("report", "--metrics-db", "none.db", cwd=cwd), "report")
    assert "none.db does not exist" in line and "--metrics-db" in line
    assert list(cwd.iterdir()) == []


@pytest.mark.parametrize("command", ["inspect", "savings"])
def test_inspect_and_savings_on_a_missing_database(cwd, command):
    line = assert_one_line_error(headroom(command, "--metrics-db", "none.db", cwd=cwd), command)
    assert "none.db" in line and "--metrics-db" in line
    assert list(cwd.iterdir()) == []  # readers create nothing


def test_report_bad_time(cwd):
    line = assert_one_line_error(headroom("report", "--since", "yesterday", cwd=cwd), "report")
    assert "'yesterday' is not a time" in line


def test_read_only_commands_create_no_files(cwd):
    r = headroom("toin", "stats", cwd=cwd)
    assert r.rc == 0 and "0 signatures: no TOIN store" in r.out
    line = assert_one_line_error(headroom("toin", "show", "abc", cwd=cwd), "toin")
    assert "no TOIN store here yet" in line
    assert_one_line_error(headroom("toin", "export", "out.json", cwd=cwd), "toin")
    for argv in (("doctor",), ("models",), ("compress",), ("compress", "--json")):
        assert headroom(*argv, cwd=cwd).rc == 0, argv
    assert list(cwd.iterdir()) == []


# What a user has in hand: raw JSON rows and a log file compress as one tool output.

def _real(source: str, form: str | None = None) -> str:
    cases = [c for c in load_cases(sources=[source]) if form is None or c.form == form]
    return max(cases, key=lambda c: len(c.content)).content


def test_raw_json_rows_compress_as_a_tool_output(cwd):
    rows = _real("pip_inspect")
    json.loads(rows)
    (cwd / "rows.json").write_text(rows)
    r = headroom("compress", "rows.json", cwd=cwd)
    assert r.rc == 0, r.err
    assert "tool output, gpt-4o" in r.out and "compressed as one tool output" in r.out
    assert "output  tool_output (json" in r.out
    saved = float(r.out.split("saved ")[1].split(",")[1].split("%")[0])
    assert saved > 50
    assert max(len(line) for line in r.out.splitlines()) <= 80


def test_a_log_file_compresses_as_a_tool_output(cwd):
    log = _real("redis_server", "text")
    (cwd / "redis.log").write_text(log)
    r = headroom("compress", "redis.log", "--question", "why did the replica resync?", "-o", "small.log", cwd=cwd)
    assert r.rc == 0, r.err
    assert "not JSON: compressed as one tool output (text)" in r.out and "(log)" in r.out
    small = (cwd / "small.log").read_text()
    assert len(small) < len(log) / 2 and "Full resync requested by replica" in small
    assert max(len(line) for line in r.out.splitlines()) <= 80


def test_toin_stats_reads_a_store_without_adding_files(cwd):
    from headroom.toin import SQLiteToinBackend

    writer = SQLiteToinBackend(cwd / "headroom_ccr.toin.sqlite3")
    writer.add({"sig-a": {"compressed": 3}}, {})
    writer.close()  # the proxy stopped (its rollback journal may stay behind, empty)
    before = sorted(p.name for p in cwd.iterdir())
    assert set(before) <= {"headroom_ccr.toin.sqlite3", "headroom_ccr.toin.sqlite3-journal"}
    r = headroom("toin", "stats", cwd=cwd)
    assert r.rc == 0 and "1 signatures, 3 compressions" in r.out
    assert sorted(p.name for p in cwd.iterdir()) == before
    live = SQLiteToinBackend(cwd / "headroom_ccr.toin.sqlite3")  # a running proxy: its WAL is read too
    try:
        live.add({"sig-b": {"compressed": 5}}, {})
        r = headroom("toin", "stats", cwd=cwd)
        assert r.rc == 0 and "2 signatures, 8 compressions" in r.out
    finally:
        live.close()
