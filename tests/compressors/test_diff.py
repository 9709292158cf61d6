"""DiffCompressor: every change kept, context trimmed, lockfiles collapsed, still a diff."""

from __future__ import annotations

import difflib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.config import HeadroomConfig, RouterConfig
from headroom.tokens import count_tokens, counter_for
from headroom.query.anchors import extract_anchors
from headroom.compressors.base import CompressInput
from headroom.compressors.diff import DiffCompressor, parse_diff


def git_file_diff(path: str, old: list[str], new: list[str], context: int = 8) -> str:
    body = difflib.unified_diff(old, new, f"a/{path}", f"b/{path}", n=context, lineterm="")
    return "\n".join([f"diff --git a/{path} b/{path}", "index 1a2b3c4..5d6e7f8 100644", *body])


def source_pair() -> tuple[list[str], list[str]]:
    old = [f"    step_{i} = compute(payload, {i})" for i in range(120)]
    new = list(old)
    new[10] = "    step_10 = compute(payload, MAX_RETRIES_9931)"
    new.insert(60, "    log.warning('retrying %s', job_id)")
    del new[100]
    return old, new


def lock_pair() -> tuple[list[str], list[str]]:
    old = [f'    "node_modules/pkg{i}": {{"version": "1.0.{i}"}},' for i in range(400)]
    new = [f'    "node_modules/pkg{i}": {{"version": "1.1.{i}"}},' for i in range(400)]
    return old, new


def full_diff() -> str:
    old, new = source_pair()
    lo, ln = lock_pair()
    return "\n".join([
        git_file_diff("src/worker.py", old, new),
        git_file_diff("package-lock.json", lo, ln),
        git_file_diff("docs/notes.md", ["a", "b", "c"], ["a", "B", "c"]),
    ]) + "\n"


def compress(text: str, query: str = "", config: HeadroomConfig | None = None):
    return DiffCompressor().compress(
        CompressInput(text=text, config=config or HeadroomConfig(), counter=counter_for("gpt-4o"),
                      query=query, anchors=extract_anchors(query))
    )


def apply_unified(old: list[str], hunks_text: list[str]) -> list[str]:
    """A strict patch applier: context and removed lines must match exactly where the header says."""
    out: list[str] = []
    pos = 0  # next old line (0-based) not yet copied
    i = 0
    while i < len(hunks_text):
        m = re.match(r"^@@ -(\d+),(\d+) \+(\d+),(\d+) @@", hunks_text[i])
        if not m:
            i += 1
            continue
        old_start, old_n, _new_start, new_n = map(int, m.groups())
        start = old_start - 1 if old_n else old_start
        out.extend(old[pos:start])
        pos = start
        i += 1
        seen_old = seen_new = 0
        while i < len(hunks_text) and (seen_old < old_n or seen_new < new_n):
            line = hunks_text[i]
            tag, body = line[:1], line[1:]
            if tag == " ":
                assert old[pos] == body, (pos, old[pos], body)
                out.append(body)
                pos += 1
                seen_old += 1
                seen_new += 1
            elif tag == "-":
                assert old[pos] == body, (pos, old[pos], body)
                pos += 1
                seen_old += 1
            elif tag == "+":
                out.append(body)
                seen_new += 1
            i += 1
        assert (seen_old, seen_new) == (old_n, new_n)
    out.extend(old[pos:])
    return out


def section(text: str, path: str) -> list[str]:
    """Lines of ``text`` belonging to one file's diff."""
    lines = text.splitlines()
    start = lines.index(f"diff --git a/{path} b/{path}")
    end = next((k for k in range(start + 1, len(lines)) if lines[k].startswith("diff --git ")), len(lines))
    return lines[start:end]


def test_every_change_survives_and_context_is_trimmed() -> None:
    text = full_diff()
    out = compress(text)
    assert out is not None and out.lossy
    for line in text.splitlines():
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---")) and "node_modules" not in line:
            assert line in out.text.splitlines()
    src = section(out.text, "src/worker.py")
    context = [ln for ln in src if ln.startswith(" ")]
    assert len(context) <= 2 * 3  # 1 line either side of 3 changes
    assert count_tokens(out.text) < count_tokens(text) * 0.15


def test_trimmed_hunks_still_apply_exactly() -> None:
    old, new = source_pair()
    out = compress(git_file_diff("src/worker.py", old, new))
    assert apply_unified(old, out.text.splitlines()) == new
    assert out.items_after == 3 and out.items_before == 3
    cfg = HeadroomConfig(router=RouterConfig(diff_context_lines=0))
    assert apply_unified(old, compress(git_file_diff("src/worker.py", old, new), config=cfg).text.splitlines()) == new


def test_lockfile_collapses_to_a_stat_line() -> None:
    out = compress(full_diff())
    lock = section(out.text, "package-lock.json")
    assert "node_modules/pkg" not in "\n".join(lock)
    assert "… 1 hunk collapsed (generated/lock file): +400 -400 lines" in lock
    assert " package-lock.json | +400 -400 (collapsed)" in out.text
    assert " src/worker.py | +2 -2" in out.text
    assert out.text.startswith("[diff: 3 files, +403 -403;")


def test_small_generated_change_and_anchored_lockfile_are_shown() -> None:
    lo, _ = lock_pair()
    small = git_file_diff("yarn.lock", lo[:10], [lo[0].replace("1.0", "9.9")] + lo[1:10])
    src_old, src_new = source_pair()
    out = compress(small + "\n" + git_file_diff("src/worker.py", src_old, src_new))
    assert "+" + lo[0].replace("1.0", "9.9") in out.text
    asked = compress(full_diff(), query='which version of "node_modules/pkg17" is locked now?')
    assert '+    "node_modules/pkg17": {"version": "1.1.17"},' in asked.text


def test_parse_handles_removed_lines_that_look_like_headers() -> None:
    old = ["intro", "-- a sql comment", "--- dashes", "tail"] + [f"x{i}" for i in range(20)]
    new = ["intro", "tail"] + [f"x{i}" for i in range(20)]
    d = git_file_diff("q.sql", old, new, context=10)
    _, files = parse_diff(d)
    assert len(files) == 1 and files[0].removed == 2
    assert apply_unified(old, compress(d).text.splitlines()) == new


def test_nothing_to_trim_returns_none() -> None:
    no_index = [ln for ln in git_file_diff("a.py", ["a", "b", "c"], ["a", "B", "c"], context=1).splitlines()
                if not ln.startswith("index ")]
    assert compress("\n".join(no_index)) is None
    assert compress("not a diff at all\njust words") is None


def test_deterministic() -> None:
    assert compress(full_diff()).text == compress(full_diff()).text


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=2000))
def test_odd_input_never_raises(text: str) -> None:
    out = compress(text)
    assert out is None or isinstance(out.text, str)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "--- x", "+++ y", "@@ z"]), max_size=40),
       st.lists(st.sampled_from(["a", "b", "c", "d", "--- x", "+++ y", "@@ z"]), max_size=40),
       st.integers(0, 3))
def test_random_diffs_apply_after_trimming(old: list[str], new: list[str], ctx: int) -> None:
    d = git_file_diff("f.txt", old, new, context=5)
    cfg = HeadroomConfig(router=RouterConfig(diff_context_lines=ctx))
    out = compress(d, config=cfg)
    if out is not None:
        assert apply_unified(old, out.text.splitlines()[1:]) == new


def test_end_to_end_marker_retrieves_exact_original() -> None:
    text = full_diff()
    messages = [
        {"role": "user", "content": "Review my change to the retry logic."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_d", "type": "function", "function": {"name": "git_diff", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_d", "content": text},
    ]
    result = headroom.compress(messages, model="gpt-4o")
    compressed = result.messages[2]["content"]
    assert "+    step_10 = compute(payload, MAX_RETRIES_9931)" in compressed
    m = MARKER_RE.search(compressed)
    assert m
    got = headroom.retrieve(m.group("hash"))
    assert got is not None and got.content == text


def test_many_files_stat_is_capped_and_index_lines_dropped() -> None:
    parts = []
    for k in range(30):
        old = [f"    line_{i} = {i}" for i in range(12)]
        new = list(old)
        for j in range(k % 4 + 1):
            new[j * 3] = f"    line_{j * 3} = {j * 3} + {k}"
        parts.append(git_file_diff(f"src/m{k}.py", old, new, context=3))
    text = "\n".join(parts)
    out = compress(text)
    lines = out.text.splitlines()
    assert not any(ln.startswith("index ") for ln in lines)
    stat = [ln for ln in lines if re.match(r"^ src/m\d+\.py \| \+\d+ -\d+$", ln)]
    # The 12 largest files: all seven with 4 changes, then the first five with 3.
    assert len(stat) == 12 and sum(ln.endswith("+4 -4") for ln in stat) == 7
    assert all(ln.endswith(("+4 -4", "+3 -3")) for ln in stat)
    assert " … and 18 more files" in lines
    assert sum(1 for ln in lines if ln.startswith("diff --git ")) == 30


def corpus_diff() -> str:
    """A real 21K-token `git diff` between two commander releases (a dev corpus source)."""
    from headroom.eval.corpus import load_cases
    return next(c.content for c in load_cases("dev") if c.id == "commander_releases/diff_files")


def test_large_diff_keeps_every_file_header_and_counts_what_it_does_not_show() -> None:
    text = corpus_diff()
    _, files = parse_diff(text)
    out = compress(text)
    lines = out.text.splitlines()
    for f in files:
        assert f.header[0] in lines  # every "diff --git a/… b/…"
        assert f" {f.path} | +{f.added} -{f.removed}" in lines
    # Per file, the shown hunks' changes plus the counted ones add up to the file's.
    for f in files:
        sec = section(out.text, f.path)
        shown_add = sum(1 for ln in sec if ln.startswith("+") and not ln.startswith("+++"))
        shown_rem = sum(1 for ln in sec if ln.startswith("-") and not ln.startswith("---"))
        counted = [re.match(r"^@@ \d+ more hunks? not shown: \+(\d+) -(\d+)", ln) for ln in sec]
        assert shown_add + sum(int(m[1]) for m in counted if m) == f.added
        assert shown_rem + sum(int(m[2]) for m in counted if m) == f.removed
    body = lines[next(k for k, ln in enumerate(lines) if ln.startswith("diff --git ")):]
    originals = set(text.splitlines())
    assert all(ln in originals for ln in body if ln[:1] in "+- ")  # shown lines are the diff's own
    assert count_tokens(out.text) < 0.2 * count_tokens(text)


def test_large_diff_shows_the_hunks_a_question_names() -> None:
    text = corpus_diff()
    target = next(ln for ln in text.splitlines() if ln.startswith("+") and "helpCommand" in ln)
    plain = compress(text)
    named = compress(text, "What changed around helpCommand?")
    assert target in named.text.splitlines()
    assert sum("helpCommand" in ln for ln in named.text.splitlines()) > sum("helpCommand" in ln for ln in plain.text.splitlines())


def test_large_diff_shows_every_hunk_of_a_file_the_question_names() -> None:
    text = corpus_diff()
    _, files = parse_diff(text)
    help_js = next(f for f in files if f.path == "lib/help.js")
    out = compress(text, "What changed in lib/help.js?")
    sec = section(out.text, "lib/help.js")
    assert not any("not shown" in ln for ln in sec)
    assert sum(1 for ln in sec if ln.startswith("+") and not ln.startswith("+++")) == help_js.added


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(0, 10**6)), min_size=3, max_size=8), st.text("xyz", max_size=3))
def test_budgeted_diffs_keep_every_header_and_account_for_every_change(shape, query: str) -> None:
    """Random multi-file diffs above the budget threshold: every file header stays, shown
    lines are the diff's own, and shown plus counted changes equal each file's totals."""
    parts = []
    for k, (changes, seed) in enumerate(shape):
        old = [f"    value_{k}_{i} = compute_{(seed + i) % 97}(payload, {i})  # step {i}" for i in range(260)]
        new = list(old)
        for j in range(changes):
            at = 40 + (seed // (j + 1) + 37 * j) % 180
            new[at] = f"    value_{k}_{at} = patched_{seed % 13}_{j}(payload)"
        parts.append(git_file_diff(f"pkg/mod_{k}.py", old, new, context=40))
    text = "\n".join(parts)
    assert count_tokens(text) >= 3000  # budget mode
    out = compress(text, query)
    lines = out.text.splitlines()
    originals = set(text.splitlines())
    _, files = parse_diff(text)
    for f in files:
        assert f.header[0] in lines
        sec = section(out.text, f.path)
        assert all(ln in originals for ln in sec if ln[:1] in "+- ")
        counted = [re.match(r"^@@ \d+ more hunks? not shown: \+(\d+) -(\d+)", ln) for ln in sec]
        shown_add = sum(1 for ln in sec if ln.startswith("+") and not ln.startswith("+++"))
        assert shown_add + sum(int(m[1]) for m in counted if m) == f.added


_path_part = st.sampled_from(["src", "vendor", "node_modules", "dist", "third_party", "a", "pkg", "Vendor"])
_file_name = st.sampled_from(["yarn.lock", "Cargo.lock", "app.min.js", "app.js", "x.map", "api_pb2.py",
                              "svc.pb.go", "ui.snap", "types.generated.ts", "go.sum", "main.py",
                              "package-lock.json", "README.md", "Yarn.lock", "lock", ".lock"])


@given(st.lists(_path_part, max_size=4), _file_name)
def test_generated_paths_match_the_globs_one_by_one(parts, name) -> None:
    from fnmatch import fnmatchcase

    from headroom.compressors.diff import _GENERATED, _is_generated

    path = "/".join([*parts, name])
    expected = any(fnmatchcase(path, g) or fnmatchcase(name, g) for g in _GENERATED)
    assert _is_generated(path) is expected
