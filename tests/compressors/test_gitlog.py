"""GitLogCompressor: each commit by its own lines, verbatim (commit line, date, subject, totals,
created/deleted/renamed paths); stats and bodies left out, each run one marker."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType, detect_content_type
from headroom.compressors.gitlog import GitLogCompressor, parse_git_log
from headroom.config import HeadroomConfig
from headroom.eval.corpus import load_cases
from headroom.query.anchors import extract_anchors
from headroom.tokens import count_tokens, counter_for


def compress(text: str, query: str = ""):
    return GitLogCompressor().compress(CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"),
                                                     query=query, anchors=extract_anchors(query)))


def corpus_log() -> str:
    """A real ``git log --stat --summary`` (commander releases; a dev source)."""
    return next(c.content for c in load_cases("dev") if c.id == "commander_releases/log_first")


def git_repo_log(tmp_path: Path, *log_args: str) -> str:
    """``git log --stat --summary`` of a small repository this test builds with git
    itself: two authors, a rename, a delete, a multi-line message."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_COMMITTER_NAME": "Ci", "GIT_COMMITTER_EMAIL": "ci@example.org",
           "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org"}

    def git(*args: str, date: str = "2024-01-02T10:00:00+00:00") -> str:
        return subprocess.run(["git", "-C", str(tmp_path), *args], env={**env, "GIT_AUTHOR_DATE": date,
                              "GIT_COMMITTER_DATE": date}, check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "core.py").write_text("".join(f"line {i}\n" for i in range(40)))
    (tmp_path / "README.md").write_text("hello\n")
    git("add", "-A")
    git("commit", "-q", "-m", "Initial import", "--author", "Ada <ada@example.org>")
    (tmp_path / "src" / "core.py").write_text("".join(f"line {i * 2}\n" for i in range(40)))
    git("mv", "README.md", "README.rst")
    git("add", "-A")
    git("commit", "-q", "-m", "Rename the readme\n\nThe docs build wants reStructuredText.\nSee ticket DOC-4412.",
        "--author", "Bob <bob@example.org>", date="2024-01-03T11:00:00+00:00")
    git("rm", "-q", "README.rst")
    (tmp_path / "src" / "extra.py").write_text("x = 1\n")
    git("add", "-A")
    git("commit", "-q", "-m", "Drop the readme, add extra", date="2024-01-05T12:00:00+00:00")
    return git("log", *(log_args or ("--stat", "--summary")))


_MARKER = re.compile(r"^\s*… \d+ (?:lines?|commits?) omitted$")


def shown_lines_are_input_lines(out: str, text: str) -> bool:
    """Every line after the header is a line of the input or a marker (issue 33)."""
    original = set(text.splitlines())
    return all(ln in original or _MARKER.match(ln) for ln in out.splitlines()[1:])


def test_real_log_is_detected_and_every_commit_keeps_its_own_lines() -> None:
    text = corpus_log()
    assert detect_content_type(text) == ContentType.GIT_LOG
    _, commits = parse_git_log(text)
    out = compress(text)
    assert out is not None and out.lossy and out.items_before == len(commits) == 8
    lines = out.text.splitlines()
    assert shown_lines_are_input_lines(out.text, text)
    for c in commits:
        assert f"commit {c.hash}{c.decoration}" in lines  # the whole hash, as git printed it
        assert f"    {c.subject}" in lines
        assert c.totals and f" {c.totals}" in lines
        for _, _, line in c.summary[:8]:
            assert line in lines
    assert count_tokens(out.text) < 0.6 * count_tokens(text)


def test_time_spans_write_a_shared_day_and_zone_once() -> None:
    from headroom.compressors.gitlog import time_span

    assert time_span("2026-11-23 18:17:06 +0000", "2026-11-23 18:17:07 +0000") == "2026-11-23 18:17:06 to 18:17:07 +0000"
    assert time_span("2026-11-20 10:00:00 +0000", "2026-11-23 18:17:07 +0000") == (
        "2026-11-20 10:00:00 to 2026-11-23 18:17:07 +0000")
    assert time_span("2026-11-20 10:00:00 +0100", "2026-11-23 18:17:07 +0000") == (
        "2026-11-20 10:00:00 +0100 to 2026-11-23 18:17:07 +0000")
    assert time_span("3 days ago", "2 days ago") == "3 days ago to 2 days ago"


@pytest.mark.parametrize("source", ["commander_releases", "click_releases"])
def test_real_release_logs_keep_every_created_path_and_fact(source: str) -> None:
    from headroom.eval.corpus import load_cases

    for case in (c for c in load_cases("dev") if c.source == source and c.id.split("/")[1].startswith("log")):
        out = compress(case.content, case.question)
        _, commits = parse_git_log(case.content)
        lines = out.text.splitlines()
        for c in commits:  # up to 8 a commit (the ones the question names first)
            assert sum(line in lines for _, _, line in c.summary) >= min(8, len(c.summary))
        for fact in case.facts:
            assert fact.text in out.text


def test_a_named_path_keeps_its_stat_lines_and_extremes_show_the_largest_file() -> None:
    text = corpus_log()
    plain = compress(text)
    assert not any(ln.startswith(" lib/help.js ") for ln in plain.text.splitlines())
    named = compress(text, "How did lib/help.js change across releases?")
    touched = [ln for ln in text.splitlines() if ln.startswith(" lib/help.js ")]
    assert touched and all(ln in named.text.splitlines() for ln in touched)
    biggest = compress(text, "Which release had the largest change?")
    assert any(ln.startswith(" index.js ") and "| 2193 " in ln for ln in biggest.text.splitlines())


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("question", [
    "Which commit created src/extra.py? Give me its hash.",
    "I need the commit id that first added src/extra.py.",
])
def test_every_commit_keeps_its_whole_hash_and_totals_as_git_wrote_them(tmp_path: Path, question: str) -> None:
    # "Give me its hash": a prefix is a valid ref but not the hash, and the totals line as git
    # wrote it is what a reader quotes: every commit line and totals line stays as it was.
    text = git_repo_log(tmp_path)
    _, commits = parse_git_log(text)
    out = compress(text, question)
    lines = out.text.splitlines()
    for c in commits:
        assert f"commit {c.hash}{c.decoration}" in lines and f" {c.totals}" in lines
    assert " create mode 100644 src/extra.py" in lines
    assert shown_lines_are_input_lines(out.text, text)


def test_the_biggest_commit_keeps_its_whole_hash_and_totals() -> None:
    text = corpus_log()
    _, commits = parse_git_log(text)
    ins = [int(m[1]) if (m := re.search(r"(\d+) insertions", c.totals)) else 0 for c in commits]
    biggest = commits[ins.index(max(ins))]
    for question in ("Find the biggest commit by insertions and give its hash.", "Which commit added the most lines?"):
        out = compress(text, question)
        assert f"commit {biggest.hash}" in out.text and biggest.totals.strip() in out.text


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_renames_deletes_authors_and_anchored_message_lines(tmp_path: Path) -> None:
    text = git_repo_log(tmp_path)
    assert detect_content_type(text) == ContentType.GIT_LOG
    out = compress(text, "Why was DOC-4412 needed?")
    lines = out.text.splitlines()
    assert shown_lines_are_input_lines(out.text, text)
    assert " rename README.md => README.rst (100%)" in lines
    assert " delete mode 100644 README.rst" in lines and " create mode 100644 src/extra.py" in lines
    assert "Author: Bob <bob@example.org>" in lines  # authors differ: per commit
    assert "    See ticket DOC-4412." in lines  # the body line the question names
    assert "    The docs build wants reStructuredText." not in lines
    assert "    … 1 line omitted" in lines  # the other body line, counted
    assert " src/core.py | 80 ++++++++++++++++++++++++++++++++++++++++----------------------------" not in lines


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_name_status_and_name_only_logs(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    text = git_repo_log(tmp_path / "a", "--name-status")
    assert detect_content_type(text) == ContentType.GIT_LOG
    out = compress(text)
    lines = out.text.splitlines()
    assert shown_lines_are_input_lines(out.text, text)
    assert "D\tREADME.rst" in lines and "A\tsrc/extra.py" in lines
    assert any(ln.startswith("R100\tREADME.md\tREADME.rst") for ln in lines)
    assert "M\tsrc/core.py" not in lines  # modified: left out
    named = compress(text, "What happened to src/core.py?").text.splitlines()
    assert sum(ln == "M\tsrc/core.py" for ln in named) == 1  # kept as git printed it
    only = compress(git_repo_log(tmp_path / "b", "--name-only")).text.splitlines()
    assert "    Initial import" in only
    assert "src/core.py" not in only  # left out


def test_lookalikes_are_not_git_logs() -> None:
    prose = "\n".join(["commit to the plan and ship it", "Author: notes", "Date: today"] * 3)
    assert detect_content_type(prose) != ContentType.GIT_LOG
    patch = corpus_log().split("\n\n", 2)[0] + "\n\ndiff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b"
    assert detect_content_type(patch) == ContentType.DIFF  # git log -p: a diff
    one = corpus_log().split("\ncommit ", 1)[0]
    assert compress(one) is None  # a single commit: nothing to summarise


def test_end_to_end_marker_retrieves_the_exact_log() -> None:
    text = corpus_log()
    messages = [
        {"role": "user", "content": "What happened in these releases?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "git_log", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": text},
    ]
    result = headroom.compress(messages, model="gpt-4o")
    compressed = result.messages[2]["content"]
    assert "Import commander 5.0.0 from its npm tarball" in compressed
    m = MARKER_RE.search(compressed)
    assert m and headroom.retrieve(m.group("hash")).content == text


_PATH = st.from_regex(r"[a-z]{1,6}(/[a-z]{1,6}){0,2}\.(py|js|md)", fullmatch=True)


@st.composite
def git_logs(draw) -> tuple[str, list[str]]:
    out, subjects = [], []
    for k in range(draw(st.integers(2, 6))):
        subject = draw(st.from_regex(r"[A-Z][a-z]{2,8}( [a-z0-9]{1,8}){0,4}", fullmatch=True))
        subjects.append(subject)
        paths = draw(st.lists(_PATH, min_size=1, max_size=5, unique=True))
        sizes = draw(st.lists(st.integers(1, 900), min_size=len(paths), max_size=len(paths)))
        out += [f"commit {k:040x}", "Author: A <a@b.c>", "Date:   Mon Nov 23 18:17:07 2026 +0000", "",
                f"    {subject}", ""]
        out += [f" {p} | {n} {'+' * min(n, 9)}" for p, n in zip(paths, sizes)]
        out.append(f" {len(paths)} files changed, {sum(sizes)} insertions(+)")
        out += [f" create mode 100644 {p}" for p in paths if draw(st.booleans())]
        out.append("")
    return "\n".join(out), subjects


_SHARED_DIR = "".join(
    f"commit {k:040x}\nAuthor: A <a@b.c>\nDate:   Mon Nov 23 18:17:07 2026 +0000\n\n    Aaa\n\n a.py | 1 +\n"
    " 1 files changed, 1 insertions(+)\n\n" for k in range(5)) + (
    f"commit {5:040x}\nAuthor: A <a@b.c>\nDate:   Mon Nov 23 18:17:07 2026 +0000\n\n    Aaa\n\n a/aa.py | 1 +\n"
    " a.py | 1 +\n a/a.py | 1 +\n 3 files changed, 3 insertions(+)\n create mode 100644 a/aa.py\n"
    " create mode 100644 a/a.py\n")


@settings(max_examples=60, deadline=None)
@given(git_logs())
@example((_SHARED_DIR, ["Aaa"] * 6))  # two created paths of one directory
def test_every_commit_subject_and_created_path_stays_in_view(case: tuple[str, list[str]]) -> None:
    text, subjects = case
    out = compress(text)
    assert out is not None and out.items_before == len(subjects)
    lines = out.text.splitlines()
    for s in subjects:
        assert f"    {s}" in lines
    created = [ln for ln in text.splitlines() if ln.startswith(" create mode ")]
    assert all(ln in lines for ln in created)  # at most 5 a commit: under the per-commit cap
    assert shown_lines_are_input_lines(out.text, text)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=1500))
def test_odd_input_never_raises(text: str) -> None:
    compress("commit 0123456789abcdef\n" + text + "\ncommit fedcba9876543210\n" + text)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_long_log_leaves_out_whole_commits_but_the_asked_ones(tmp_path: Path) -> None:
    """Ninety commits of a subject and a two-line body each: every commit's own lines would
    still be most of the log, so whole commits are left out (one marker a run), except the
    newest and oldest and the one the question quotes."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.org"}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tmp_path), *args], env=env, check=True, capture_output=True,
                              text=True).stdout

    git("init", "-q")
    parts = ["kiln", "loom", "sieve", "press", "hopper", "mill"]
    for k in range(90):
        (tmp_path / "log.txt").write_text(f"{k}\n")
        git("add", "log.txt")
        git("commit", "-q", "-m", f"retune the {parts[k % 6]} stage, pass {k}", "-m", f"Shift {k}.\nCrew {k % 7}.")
    text = git("log")
    _, commits = parse_git_log(text)
    asked = commits[41]
    out = compress(text, f"What crew did '{asked.subject}'?")
    lines = out.text.splitlines()
    assert len(out.text) < 0.5 * len(text)
    assert shown_lines_are_input_lines(out.text, text)
    assert f"commit {asked.hash}" in lines and f"    {asked.subject}" in lines
    assert all(f"commit {c.hash}" in lines for c in commits[:3] + commits[-3:])
    assert any(re.fullmatch(r"… \d+ commits omitted", ln) for ln in lines)
    assert out.items_after < len(commits)


def test_signature_checks_keep_the_commits_whose_check_differs() -> None:
    """A real ``git log --show-signature`` (a known-gap source, dev since the nineteenth
    session): the commits whose check says something else than "Good signature" (revoked,
    untrusted, a missing key, no signature at all) stay in view, whole hash and all."""
    cases = [c for c in load_cases(sources=["commit_signatures"]) if c.id.split("/")[1].startswith("verbose")]
    assert len(cases) >= 4
    for case in cases:
        out = compress(case.content, case.question)
        assert shown_lines_are_input_lines(out.text, case.content)
        for fact in case.facts:
            assert fact.text in out.text, case.id
