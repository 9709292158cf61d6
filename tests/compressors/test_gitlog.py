"""GitLogCompressor: one line per commit, created/deleted/renamed paths, stats summarised."""

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


def test_real_log_is_detected_and_every_commit_keeps_subject_totals_and_created_paths() -> None:
    text = corpus_log()
    assert detect_content_type(text) == ContentType.GIT_LOG
    _, commits = parse_git_log(text)
    out = compress(text)
    assert out is not None and out.lossy and out.items_before == len(commits) == 8
    lines = out.text.splitlines()
    for c in commits:
        row = next(ln for ln in lines if c.subject in ln)
        short = row.split(" ", 1)[0]
        assert c.hash.startswith(short) and len(short) >= 7
        files = re.match(r"(\d+) files? changed", c.totals)
        assert files and f"| {files[1]} file" in row
        for kind, path, _ in c.summary:
            assert path in expand_braces(out.text)
    assert count_tokens(out.text) < 0.6 * count_tokens(text)


def expand_braces(text: str) -> str:
    """"lib/{a.js,b.js}" written back as "lib/a.js, lib/b.js" (renames' "{a => b}" stay)."""
    return re.sub(r"(\S*/)\{([^{}=]*)\}", lambda m: ", ".join(m[1] + p for p in m[2].split(",")), text)


def test_paths_of_one_directory_are_written_once_in_brace_form() -> None:
    from headroom.compressors.gitlog import fold_dirs, time_span

    paths = ["esm.mjs", "lib/argument.js", "lib/command.js", "lib/help.js", "typings/index.d.ts", "lib/error.js"]
    assert fold_dirs(paths) == ["esm.mjs", "lib/{argument.js,command.js,help.js}", "typings/index.d.ts", "lib/error.js"]
    # A path the question names stays whole; so do renames.
    assert fold_dirs(paths, {"lib/command.js"}) == [
        "esm.mjs", "lib/argument.js", "lib/command.js", "lib/help.js", "typings/index.d.ts", "lib/error.js"]
    assert fold_dirs(["{a => b}/x.py", "{a => b}/y.py"]) == ["{a => b}/x.py", "{a => b}/y.py"]
    assert expand_braces(", ".join(fold_dirs(paths))) == ", ".join(paths)
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
        view = expand_braces(out.text)
        for c in commits:
            shown = [p for kind, p, _ in c.summary][:8]
            assert all(p in view for p in shown if "{" not in p)
        for fact in case.facts:
            assert fact.text in out.text


def test_a_named_path_keeps_its_stat_lines_and_extremes_show_the_largest_file() -> None:
    text = corpus_log()
    plain = compress(text)
    assert " lib/help.js | " not in plain.text
    named = compress(text, "How did lib/help.js change across releases?")
    touched = [ln for ln in text.splitlines() if ln.startswith(" lib/help.js ")]
    assert len([ln for ln in named.text.splitlines() if ln.startswith(" lib/help.js | ")]) == len(touched)
    biggest = compress(text, "Which release had the largest change?")
    assert " index.js | 2193" in biggest.text.splitlines()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("question", [
    "Which commit created src/extra.py? Give me its hash.",
    "I need the commit id that first added src/extra.py.",
])
def test_the_commit_a_question_names_keeps_its_whole_hash_and_totals(tmp_path: Path, question: str) -> None:
    # "Give me its hash": a prefix is a valid ref but not the hash; the totals line as git
    # wrote it is what a reader quotes. Only the named commit pays for it.
    text = git_repo_log(tmp_path)
    _, commits = parse_git_log(text)
    named = next(c for c in commits if any(p == "src/extra.py" for _, p, _ in c.summary))
    out = compress(text, question)
    lines = out.text.splitlines()
    assert any(ln.startswith(named.hash + " ") and ln.endswith("| " + named.totals.strip()) for ln in lines)
    assert [c.hash for c in commits if c.hash in out.text] == [named.hash]


def test_the_biggest_commit_keeps_its_whole_hash_and_totals() -> None:
    text = corpus_log()
    _, commits = parse_git_log(text)
    ins = [int(m[1]) if (m := re.search(r"(\d+) insertions", c.totals)) else 0 for c in commits]
    biggest = commits[ins.index(max(ins))]
    for question in ("Find the biggest commit by insertions and give its hash.", "Which commit added the most lines?"):
        out = compress(text, question)
        assert f"{biggest.hash} " in out.text and biggest.totals.strip() in out.text
    assert biggest.hash not in compress(text, "What changed?").text


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_renames_deletes_authors_and_anchored_message_lines(tmp_path: Path) -> None:
    text = git_repo_log(tmp_path)
    assert detect_content_type(text) == ContentType.GIT_LOG
    out = compress(text, "Why was DOC-4412 needed?")
    lines = out.text.splitlines()
    assert any(ln.startswith(" renamed: ") and "README.md => README.rst" in ln for ln in lines)
    assert " deleted: README.rst" in lines and " created: src/extra.py" in lines
    assert any("<Bob>" in ln and "Rename the readme" in ln for ln in lines)  # authors differ: per commit
    assert "    See ticket DOC-4412." in lines  # the body line the question names
    assert "    (+1 more message lines)" in lines  # the other body line, counted
    assert re.search(r" 2024-01-05 <Ada> Drop the readme, add extra \| 2 files \+1 -1$", lines[1])


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_name_status_and_name_only_logs(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    text = git_repo_log(tmp_path / "a", "--name-status")
    assert detect_content_type(text) == ContentType.GIT_LOG
    lines = compress(text).text.splitlines()
    assert " deleted: README.rst" in lines and " created: src/extra.py" in lines
    assert any(ln.startswith(" renamed: README.md => README.rst") for ln in lines)
    assert any(ln.endswith("Rename the readme | 2 files") for ln in lines)  # core.py modified, readme renamed
    assert not any(ln.startswith(("M\t", "A\t", "D\t", "R")) for ln in lines)
    named = compress(text, "What happened to src/core.py?").text.splitlines()
    assert sum(ln == "M\tsrc/core.py" for ln in named) == 1  # kept as git printed it
    only = compress(git_repo_log(tmp_path / "b", "--name-only")).text.splitlines()
    assert any(ln.endswith("Initial import | 2 files") for ln in only)
    assert "src/core.py" not in only  # counted, not listed


def test_lookalikes_are_not_git_logs() -> None:
    prose = "\n".join(["commit to the plan and ship it", "Author: notes", "Date: today"] * 3)
    assert detect_content_type(prose) != ContentType.GIT_LOG
    patch = corpus_log().split("\n\n", 2)[0] + "\n\n" + "\n".join([
        "diff --git a/x.py b/x.py", "--- a/x.py", "+++ b/x.py", "@@ -1 +1 @@", "-a", "+b"])
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
@example((_SHARED_DIR, ["Aaa"] * 6))  # two created paths of one directory: written a/{aa.py,a.py}
def test_every_commit_subject_and_created_path_stays_in_view(case: tuple[str, list[str]]) -> None:
    text, subjects = case
    out = compress(text)
    assert out is not None and out.items_before == len(subjects)
    for s in subjects:
        assert s in out.text
    created = [ln.split(" ", 4)[4] for ln in text.splitlines() if ln.startswith(" create mode ")]
    listed = set()
    for ln in out.text.splitlines():
        if ln.startswith(" created: "):
            for item in ln[len(" created: "):].split(", "):  # paths of one directory in the brace form
                head, brace, rest = item.partition("/{")
                listed.update(f"{head}/{name}" for name in rest.rstrip("}").split(",")) if brace else listed.add(item)
    assert all(p in listed for p in created)  # at most 5 a commit: under the per-commit cap


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=1500))
def test_odd_input_never_raises(text: str) -> None:
    compress("commit 0123456789abcdef\n" + text + "\ncommit fedcba9876543210\n" + text)
