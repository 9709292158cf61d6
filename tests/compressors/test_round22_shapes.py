"""Round 22's misses, read by class (issue 33, twentieth session), on outputs of real tools
over inputs this test makes, or on shapes written here with other words; the facts are the
test's own record of what it made.

- A line under a head that ends in a colon (GNU ld's ``obj/x.o: in function `f':`` over
  the undefined references of ``f``) brings its head: the head says who needs the symbol.
- Where a named family's leading status mark turns (``[X]`` to ``[ ]``) is how far it got.
- A rare type or value one level down stays: a ``null`` among a nested key's strings in a
  JSON array's records, a rare line below the levels an outline's record shows (a redis
  reply's one ``(nil)``), and a line a question word names there (a function's flag).
- A question word on every record of a tree names the one inside the named line's record
  (a column chunk's ``statistics`` whose children hold the asked maximum).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from headroom.compressors.base import CompressInput
from headroom.compressors.line_shapes import mark_turns
from headroom.compressors.logs import LogCompressor
from headroom.compressors.text_records import colon_heads, numbered_mates, subtree_words
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

from .tool_rounds import tool_round

_VERBS = ("rotate", "gather", "flush", "shard", "probe", "trace", "drain", "prune", "stamp", "merge")
_NOUNS = ("quota", "beacon", "ledger", "socket", "bucket", "cursor", "digest", "tenant", "window", "signal")


def _link_failure(tmp_path) -> tuple[str, dict[str, str]] | None:
    """GNU ld's complaint about a program the test writes: eight files of a dozen functions,
    each calling one to three functions nothing defines; the missing symbol -> its caller
    (each symbol called once). None without gcc."""
    if shutil.which("gcc") is None:
        return None
    rng = random.Random(22)
    names = iter(rng.sample([f"{v}_{n}" for v in _VERBS for n in _NOUNS], 100))
    missing = iter(rng.sample([f"ext_{v}_{n}_{k}" for v in _VERBS for n in _NOUNS for k in range(3)], 300))
    caller_of: dict[str, str] = {}
    objects = []
    for unit in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"):
        src, decls = [], []
        for _ in range(12):
            fn = next(names)
            calls = [next(missing) for _ in range(rng.randint(1, 3))]
            for c in calls:
                caller_of[c] = fn
                decls.append(f"int {c}(int);")
            src.append(f"int {fn}(int x) {{\n" + "".join(f"  x += {c}(x);\n" for c in calls) + "  return x;\n}\n")
        (tmp_path / f"{unit}.c").write_text("\n".join(decls) + "\n" + "\n".join(src))
        subprocess.run(["gcc", "-c", "-O0", f"{unit}.c", "-o", f"{unit}.o"], cwd=tmp_path, check=True)
        objects.append(f"{unit}.o")
    (tmp_path / "main.c").write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-c", "main.c", "-o", "main.o"], cwd=tmp_path, check=True)
    done = subprocess.run(["gcc", "-Wl,--no-as-needed", "-o", "app", "main.o", *objects, "-Wl,--whole-archive"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode != 0
    return done.stderr, caller_of


def test_an_undefined_reference_brings_the_function_it_is_in(tmp_path):
    got = _link_failure(tmp_path)
    if got is None:
        pytest.skip("needs gcc")
    text, caller_of = got
    assert "in function" in text
    rng = random.Random(3)
    for symbol in rng.sample(sorted(caller_of), 4):
        for question in (f"Who references {symbol}, which the link lacks?",
                         f"Which function calls the undefined `{symbol}`?"):
            out = tool_round("gcc -o app main.o *.o", text, question)
            assert len(out) < 0.8 * len(text)
            lines = out.splitlines()
            at = next(k for k, ln in enumerate(lines) if f"`{symbol}'" in ln)
            head = next(ln for ln in reversed(lines[:at]) if ln.rstrip().endswith(":"))
            assert f"in function `{caller_of[symbol]}':" in head, question


def test_colon_heads_are_the_heads_above_kept_lines(tmp_path):
    got = _link_failure(tmp_path)
    if got is None:
        pytest.skip("needs gcc")
    raw = got[0].splitlines()
    at = next(k for k, ln in enumerate(raw) if "undefined reference" in ln and k > 40)
    head = max(k for k in range(at) if raw[k].endswith("':"))
    assert colon_heads(raw, [at]) == {head}
    # Code ending in a colon under one id is no head: most lines opening on that id are not.
    code = [f"c0ffee {k:>3}) {'def f():' if k % 7 == 0 else '    x += 1'}" for k in range(60)]
    assert colon_heads(code, [9]) == set()


def _progress_list(plan: bool) -> tuple[str, dict[str, tuple[str, str]]]:
    """A pipeline runner's list of stages per job, each stage marked done ``[X]`` or not
    ``[ ]``, written here (as a migration tool's list is shaped); the job -> its last done
    and first pending stage. ``plan``: one ``[X]  job.stage`` line each, jobs interleaved."""
    rng = random.Random(9)
    jobs = ["ingest", "enrich", "dedupe", "publish", "archive", "billing", "alerts", "exports", "search"]
    out, rows = [], []
    turns: dict[str, tuple[str, str]] = {}
    for job in jobs:
        steps = [f"{k:04d}_{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}" for k in range(1, rng.randint(12, 24))]
        done = len(steps) if job in ("ingest", "search") else rng.randint(3, len(steps) - 3)
        if done < len(steps):
            turns[job] = (steps[done - 1], steps[done])
        out.append(job)
        for k, s in enumerate(steps):
            out.append(f" [{'X' if k < done else ' '}] {s}")
            rows.append((k, f"[{'X' if k < done else ' '}]  {job}.{s}"))
    if plan:
        out = [r for _, r in sorted(rows, key=lambda r: r[0])]
    return "\n".join(out) + "\n", turns


@pytest.mark.parametrize("plan", [False, True])
def test_how_far_a_named_list_got_is_where_its_mark_turns(plan):
    text, turns = _progress_list(plan)
    for job, (last, first) in list(turns.items())[:4]:
        for question in (f"How far has {job} got?", f"What is the first stage of {job} still to run?"):
            out = tool_round("runner status" + (" --plan" if plan else ""), text, question)
            assert len(out) < 0.7 * len(text)
            assert last in out and first in out, question


def test_mark_turns_are_the_ends_of_each_run_of_one_mark():
    lines = [" [X] a", " [X] b", " [X] c", " [ ] d", " [ ] e", " [ ] f"]
    assert mark_turns(lines, list(range(6))) == {0, 2, 3, 5}
    # Names, not marks: no turn.
    assert mark_turns(["alpha 1", "bravo 2", "charlie 3", "delta 4"], [0, 1, 2, 3]) == set()


def _function_registry(tmp_path, flag: str) -> tuple[str, str, dict[str, str], str] | None:
    """``redis-cli FUNCTION LIST`` of a server the test fills (``flag``: ``--no-raw`` or
    ``--json``): thirty libraries of three to six functions, most without flags or with
    ``no-writes``; three carry a flag no other does and one has no description. Returns the
    text, the command, the odd flag -> its function, the silent function. None without redis."""
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        return None
    from headroom.eval.corpus.captures._run import redis_server

    rng = random.Random(31)
    names = iter(rng.sample([f"{v}_{n}_{t}" for v in _VERBS for n in _NOUNS for t in ("hot", "cold")], 200))
    libs = [f"{n}_{k}" for k, n in enumerate(rng.sample(_NOUNS * 3, 30))]
    odd = {"allow-oom": None, "allow-stale": None, "no-cluster": None}
    silent = None
    loads = []
    for li, lib in enumerate(libs):
        specs = []
        for _ in range(rng.randint(3, 6)):
            fn = next(names)
            flags = ["no-writes"] if rng.random() < 0.4 else []
            if 8 <= li < 22 and (free := [f for f, v in odd.items() if v is None]) and rng.random() < 0.2:
                flags, odd[free[0]] = [free[0]], fn
            spec = [f"function_name='{fn}'", f"callback=function(keys, args) return '{fn}' end"]
            if silent is None and li == 15:
                silent = fn
            else:
                spec.append(f"description='Runs {fn.replace('_', ' ')} for {lib}'")
            spec.append("flags={" + ", ".join(f"'{x}'" for x in flags) + "}")
            specs.append("redis.register_function{" + ", ".join(spec) + "}")
        loads.append(f"#!lua name={lib}\n" + "\n".join(specs) + "\n")
    assert all(odd.values()) and silent
    with redis_server(tmp_path) as (_port, cli):
        for code in loads:
            subprocess.run([*cli, "-x", "FUNCTION", "LOAD"], input=code, capture_output=True, text=True, check=True)
        command = [*cli, flag, "FUNCTION", "LIST"]
        text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return text, f"redis-cli {flag} FUNCTION LIST", odd, silent


@pytest.mark.parametrize("flag", ["--no-raw", "--json"])
def test_a_rare_value_one_level_down_stays(tmp_path, flag):
    got = _function_registry(tmp_path, flag)
    if got is None:
        pytest.skip("needs redis-server and redis-cli")
    text, command, odd, silent = got
    if flag == "--json":
        json.loads(text)
    for question in ("What function was registered without a description?",
                     "Which function has no description?"):
        out = tool_round(command, text, question)
        assert len(out) < 0.6 * len(text)
        assert f'"{silent}"' in out, question
    for flag_name, fn in odd.items():
        for question in (f"Which function carries the {flag_name} flag?", f"What function is flagged {flag_name}?"):
            out = tool_round(command, text, question)
            assert f'"{fn}"' in out, question


def test_numbered_mates_read_every_level_of_a_line(tmp_path):
    got = _function_registry(tmp_path, "--no-raw")
    if got is None:
        pytest.skip("needs redis-server and redis-cli")
    text, _command, odd, _silent = got
    raw = text.splitlines()
    at = next(k for k, ln in enumerate(raw) if ln.rstrip().endswith(") allow-oom"))
    mates = numbered_mates(raw, {at})
    # The flag is item 6 of its function's list: the function's name is item 2 of it.
    assert f'"{odd["allow-oom"]}"' in raw[min(mates)] or any(f'"{odd["allow-oom"]}"' in raw[k] for k in mates)
    assert max(mates) < at and at - min(mates) == 5


def _chunk_tree() -> tuple[str, dict[str, str]]:
    """A storage footer's dump, indented a level per field (written here, as a columnar
    file's inspector prints one): a schema, then per column a chunk whose path names the
    column and whose stats hold its largest and smallest value; the column -> its largest."""
    rng = random.Random(4)
    columns = [f"{n}_{s}" for n in _NOUNS for s in ("id", "code")][:16]
    out = ["Footer", "    version = 2", "    schema = list"]
    for c in columns:
        out += ["        Field", f"            name = {c}", "            repetition = 1", "            type = 6"]
    out += ["    blocks = list", "        Block", "            chunks = list"]
    largest = {}
    for c in columns:
        hi, lo = rng.sample(range(10_000, 99_999), 2)
        largest[c] = f"'{c[:3].upper()}-{max(hi, lo)}'"
        out += ["                Chunk", "                    meta = ChunkMeta", "                        type = 6",
                "                        path = list", f"                            {c}",
                f"                        values = {rng.randint(900, 3000)}",
                f"                        size = {rng.randint(9000, 40000)}",
                "                        stats = Stats", f"                            high = {largest[c]}",
                f"                            low = '{c[:3].upper()}-{min(hi, lo)}'",
                "                        pages = list", "                            Page", "                                kind = 2",
                "                                count = 1"]
    return "\n".join(out) + "\n", largest


def test_a_common_word_names_the_line_inside_the_named_record():
    text, largest = _chunk_tree()
    raw = text.splitlines()
    column = sorted(largest)[5]
    named = [k for k, ln in enumerate(raw) if ln.strip() == column]
    got = subtree_words(raw, named, f"What is the highest value in the {column} column's stats?")
    assert any(largest[column] in raw[k] for k in got)
    assert all(raw[k].strip() != "stats = Stats" or k > named[0] for k in got)
    for question in (f"What is the highest value in the {column} column's stats?",
                     f"Which is the largest value the stats of {column} record?"):
        out = tool_round("footer-inspect --detail data.bin", text, question)
        assert len(out) < 0.7 * len(text)
        assert largest[column] in out, question
        # Read as a log (as a longer footer is), the named chunk's stats stay too.
        inp = CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=question,
                            anchors=extract_anchors(question))
        assert largest[column] in LogCompressor().compress(inp).text, question
