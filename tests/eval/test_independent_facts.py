"""Facts defined by the program itself (issue 24): the PostgreSQL sources whose event types
come from the server's message catalogue and severity field, uvicorn's JSON records whose
event types are the format strings of uvicorn's own source, and the benchmark lines that
report them apart. Issue 33's audit found their one-offs coincide with the log compressor's
own key singletons and their severity fields are read by name, so their basis is
``program-field``, not ``independent``."""

from __future__ import annotations

from pathlib import Path

import pytest

from headroom.eval.corpus import load_cases, split_of
from headroom.eval.corpus.captures import _catalogue
from tests.eval.bench_scripts import load_bench

PROGRAM_FIELD = ("pg_sessions_jsonlog", "postgres_multifile", "postgres_dash_prefix", "postgres_debug_log",
               "pg_category_prefix", "uvicorn_json_logger")
MO = "/usr/share/locale/de/LC_MESSAGES/postgres-15.mo"


def test_program_field_sources_mark_every_fact_and_are_dev() -> None:
    cases = load_cases(sources=list(PROGRAM_FIELD))
    assert {c.source for c in cases} == set(PROGRAM_FIELD)
    assert all(f.basis == "program-field" for c in cases for f in c.facts)
    assert all(split_of(s) == "dev" for s in PROGRAM_FIELD)  # measured and tuned on: never held out
    assert {c.form for c in cases} == {"text", "json"}


def test_format_strings_become_patterns_of_their_literal_text() -> None:
    e = _catalogue._compile('relation "%s" does not exist at character %d')
    assert e is not None and e.pattern.match('relation "items" does not exist at character 15')
    assert not e.pattern.match('relation "items" does not exist')
    assert _catalogue._compile("%s: %s") is None  # no literal text: it would match anything
    assert _catalogue._compile("100%% done in %.*f s").pattern.match("100% done in 1.5 s")
    assert _catalogue.literal_stretch("checkpoint complete: wrote %d buffers (%.1f%%)") == "checkpoint complete: wrote"


@pytest.mark.skipif(not Path(MO).exists(), reason="Debian's postgresql-15 message catalogue")
def test_messages_match_the_most_specific_catalogue_entry() -> None:
    match = _catalogue.Matcher(_catalogue.load(MO))
    assert match("deadlock detected").msgid == "deadlock detected"
    assert match('role "nobody" does not exist').msgid == 'role "%s" does not exist'
    assert match("checkpoint starting: immediate force wait").msgid.startswith("checkpoint starting:")
    assert match("an internal debug line no catalogue holds 0x7f") is None


def test_uvicorn_catalogue_holds_its_startup_and_error_format_strings() -> None:
    from headroom.eval.corpus.captures.uvicorn_json_logger import uvicorn_catalogue

    fmts = uvicorn_catalogue()
    assert "Started server process [%d]" in fmts and "Application startup complete." in fmts
    assert any(f.startswith("Exception in ASGI application") for f in fmts)


def _row(bench, ms: float, up_ms: float, before: int, after: int, up_after: int, count_ms: float):
    return bench.CaseRow("s/c", "s", "dev", "text", "one_off", before, after, ms, [], count_ms=count_ms,
                         upstream={"ms": up_ms, "tokens_after": up_after})


def test_never_slower_follows_the_decided_rule() -> None:
    bench = load_bench("real_corpus_bench")
    # Upstream passes it through, we compress: up to 2.5x tiktoken's count time.
    assert not bench.slower_than_upstream(_row(bench, 40, 10, 1000, 100, 1000, count_ms=20))
    assert bench.slower_than_upstream(_row(bench, 60, 10, 1000, 100, 1000, count_ms=20))
    # Both leave it unchanged: 2 ms of slack.
    assert not bench.slower_than_upstream(_row(bench, 11.5, 10, 1000, 1000, 1000, count_ms=20))
    assert bench.slower_than_upstream(_row(bench, 12.5, 10, 1000, 1000, 1000, count_ms=20))
    # Both compress: never slower.
    assert bench.slower_than_upstream(_row(bench, 10.5, 10, 1000, 100, 500, count_ms=20))


def test_bench_reports_facts_by_basis(capsys) -> None:
    bench = load_bench("real_corpus_bench")
    assert bench.main(["--only-ours", "--rounds", "1", "--split", "dev",
                       "--cases", "pg_sessions_jsonlog/*_errors,redis_server/replica_text_one_off,"
                                  "read_shell/_usr_bin_apt-key_net_update"]) == 0
    printed = capsys.readouterr().out
    assert "| **dev** | independent |" in printed and "| **dev** | template |" in printed
    assert "| **dev** | program-field |" in printed and "program-field facts in view" in printed
    assert "no independent fact lost" in printed


def test_key_overlap_counts_one_offs_on_lines_whose_compressor_key_is_single() -> None:
    # benchmarks/fact_key_overlap.py (issue 33's audit): a one-off fact on a line the
    # compressor also keys once counts; one on a line whose key repeats does not.
    from headroom.eval.corpus import CorpusCase, Fact

    bench = load_bench("fact_key_overlap")
    lines = [f"2026-01-01 10:00:{i:02d} INFO worker {i} done" for i in range(20)]
    lines[5] = "2026-01-01 10:00:05 ERROR disk quota exceeded"
    facts = (Fact("disk quota exceeded", "one_off"), Fact("worker 7 done", "one_off"))
    case = CorpusCase("s/c", "s", "text", "dev", "shell", {}, "q?", "one_off", "\n".join(lines), facts)
    assert bench.overlap(case) == (1, 2)
    rows = "[" + ",".join(f'{{"t": {i}, "msg": "{ln[20:]}"}}' for i, ln in enumerate(lines)) + "]"
    as_json = CorpusCase("s/j", "s", "json", "dev", "api", {}, "q?", "one_off", rows, facts)
    assert bench.lines_of(as_json)[5] == "ERROR disk quota exceeded" and bench.overlap(as_json) == (1, 2)
