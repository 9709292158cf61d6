"""Records of named fields, and keys written as one word (issue 33, seventh session).

- Records of ``Name: value`` fields (``pip show -f``, ``apt-cache policy``) repeat their field
  names the way a log repeats its templates, but their values are the content: they are not
  a log (whose compressor folds "Installed: <*>" into one line with a count); their lines are
  selected whole.
- A key written as one word ("identityfile", "serveraliveinterval") is named by the
  question's words that are its parts; a plural in -ies names its singular in -y.
- Among the nodes a question names, the ones whose own line also holds another of the
  question's words come first ("which vulnerabilities have a mitigation").

Real programs print the records here where they are installed; the expected lines are read
off their output by a plain split, never by the compressor.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.detect import ContentType, detect
from headroom.compressors.structured.formats import FORMATS
from headroom.compressors.structured.select import question_terms, select
from headroom.compressors.structured.tree import build
from headroom.query.anchors import extract_anchors

from .tool_rounds import tool_round

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=8)


def _lines_select(lines: list[str], question: str, budget: int = 20, fmt_name: str = "lines") -> list[str]:
    fmt = FORMATS[fmt_name]
    keep = select(lines, build(lines, fmt), question, extract_anchors(question), budget, fmt)
    return [ln for ln, k in zip(lines, keep) if k]


# -- records of named fields are no log ----------------------------------------------------------

def _pip_show_files(names: list[str]) -> str:
    try:
        run = subprocess.run([sys.executable, "-m", "pip", "show", "-f", *names], check=False, capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return run.stdout if run.returncode == 0 else ""


def test_real_pip_show_files_keeps_every_record_s_fields():
    """``pip show -f`` of packages this environment installs: each record's ``Required-by``
    line stays in view (as a log, most of them were folded or left out)."""
    out = _pip_show_files(["idna", "click", "certifi", "urllib3"])
    if out.count("\nName: ") < 3:
        pytest.skip("pip show lists too few of these packages here")
    assert detect(out).type is not ContentType.LOG
    required = [ln for ln in out.splitlines() if ln.startswith("Required-by: ")]
    name = next(ln.split(": ", 1)[1] for ln in out.splitlines() if ln.startswith("Name: "))
    kept = tool_round("pip show -f idna click certifi urllib3", out, f"Which installed packages depend on {name}?")
    assert len(kept) < len(out) // 2
    assert [ln for ln in required if ln not in kept.splitlines()] == []


@pytest.mark.skipif(shutil.which("apt-cache") is None or shutil.which("dpkg-query") is None,
                    reason="needs apt-cache and dpkg-query")
def test_real_apt_cache_policy_keeps_the_asked_package_s_installed_version():
    installed = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\n"], check=False, capture_output=True, text=True,
                               timeout=60).stdout.split()
    names = [p for p in installed if p.isalnum()][:16]
    if len(names) < 12:
        pytest.skip("too few packages installed here")
    out = subprocess.run(["apt-cache", "policy", *names], check=False, capture_output=True, text=True, timeout=60).stdout
    if out.count("\n  Installed: ") < 12:
        pytest.skip("apt-cache prints no policy records here")
    assert detect(out).type is not ContentType.LOG
    lines = out.splitlines()
    for name in (names[3], names[9]):
        head = lines.index(f"{name}:")
        installed_line = lines[head + 1]
        assert installed_line.startswith("  Installed: ")
        kept = tool_round(f"apt-cache policy {' '.join(names)}", out, f"Which version of {name} is installed?")
        assert installed_line in kept.splitlines()


@settings(max_examples=40, deadline=None)
@given(fields=st.lists(WORD, min_size=5, max_size=8, unique=True), n=st.integers(4, 7),
       items=st.integers(8, 30), seed=st.integers(0, 10_000))
def test_records_of_opaque_fields_are_no_log(fields, n, items, seed):
    """Whatever the fields are called: records of named fields, one holding an indented list,
    separated by ``---``, are not a log."""
    rng = random.Random(seed)
    records = []
    for r in range(n):
        body = [f"{f.capitalize()}: {rng.choice(['', f'{f}{r}', str(rng.randint(1, 999))])}".rstrip(" ")
                if k else f"{f.capitalize()}: rec{r}" for k, f in enumerate(fields[:-1])]
        body.append(f"{fields[-1].capitalize()}:")
        body += [f"  rec{r}/{rng.choice(fields)}/{k}.dat" for k in range(items)]
        records.append("\n".join(body))
    text = "\n---\n".join(records)
    assert detect(text).type is not ContentType.LOG


def test_a_log_with_indented_continuations_stays_a_log():
    """A package installer's output (sentences before their colons, indented progress lines)
    is still a log."""
    lines = []
    for k in range(30):
        lines += [f"Collecting package{k}==1.{k}.0", f"  Downloading package{k}-1.{k}.0-py3-none-any.whl ({k + 3} kB)",
                  f"Requirement already satisfied: dep{k} in ./venv/lib/python3.11/site-packages"]
    assert detect("\n".join(lines)).type is ContentType.LOG


# -- keys written as one word --------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(parts=st.lists(WORD, min_size=40, max_size=60, unique=True), seed=st.integers(0, 10_000))
def test_a_compound_key_is_named_by_its_parts(parts, seed):
    rng = random.Random(seed)
    keys = sorted({rng.choice(parts) + rng.choice(parts) for _ in range(70)})
    lines = [f"{k} {rng.choice(['yes', 'no', str(rng.randint(1, 99))])}" for k in keys]
    asked = rng.choice(keys)
    first, second = next((a, b) for a in parts for b in parts if a + b == asked)
    if first == second or sum(1 for k in keys if first in k and second in k) > 6:
        # The question names more keys than one ("the abas abas" is one word, held by every
        # key made with it: a word naming several keys alike names none in particular).
        return
    kept = _lines_select(lines, f"What is the {first} {second} here?")
    assert lines[keys.index(asked)] in kept


def test_real_ssh_config_dump_named_by_compound_key_parts():
    """ssh -G prints its options as one lower-case word each."""
    if shutil.which("ssh") is None:
        pytest.skip("needs ssh")
    run = subprocess.run(["ssh", "-G", "-F", "/dev/null", "-o", "ServerAliveInterval=45", "-o", "ProxyJump=gate",
                          "-i", "/nonexistent/id_probe", "example.invalid"],
                         check=False, capture_output=True, text=True, timeout=30)
    lines = run.stdout.splitlines()
    if len(lines) < 40:
        pytest.skip("this ssh prints no configuration dump")
    for question, key in [("What keep-alive interval is configured?", "serveraliveinterval"),
                          ("Which jump host is used?", "proxyjump"),
                          ("What identity file does ssh use for this host?", "identityfile")]:
        line = next(ln for ln in lines if ln.startswith(key + " "))
        assert line in _lines_select(lines, question), question


def test_plural_in_ies_names_its_singular():
    assert "vulnerability" in question_terms("Which vulnerabilities are mitigated?")
    assert "policy" in question_terms("list the policies")


@settings(max_examples=40, deadline=None)
@given(head=WORD, rare=WORD, names=st.lists(WORD, min_size=16, max_size=24, unique=True),
       k=st.integers(2, 5), seed=st.integers(0, 10_000))
def test_named_lines_holding_another_asked_word_come_first(head, rare, names, k, seed):
    """More keys name the question's word than are kept by name; those whose value also holds
    the question's other word are among the kept ones (``lscpu`` reads as YAML: a key's value
    is no part of its key)."""
    if rare not in question_terms(rare) or head not in question_terms(head + "s") \
            or any(rare in w or w in rare for w in [head, *names]):
        return  # a word of the question (no stop word, no plural), in the picked values only
    rng = random.Random(seed)
    picked = set(rng.sample(range(len(names)), k))
    lines = ["Arch: x86_64", f"Model: {rng.randint(1, 300)}"]
    lines += [f"{head.capitalize()} {name}: {rare.capitalize() + '; by feature' if i in picked else 'Not affected'}"
              for i, name in enumerate(names)]
    kept = _lines_select(lines, f"Which {head}s have a {rare} in place?", budget=12, fmt_name="yaml")
    assert all(lines[2 + i] in kept for i in picked)


# -- a record named by a word and its number ---------------------------------------------------

def _dumpe2fs(tmp_path) -> str:
    mke2fs, dumpe2fs = shutil.which("mke2fs") or "/usr/sbin/mke2fs", shutil.which("dumpe2fs") or "/usr/sbin/dumpe2fs"
    image = tmp_path / "fs.img"
    try:
        subprocess.run([mke2fs, "-q", "-F", "-t", "ext4", "-b", "1024", "-g", "1024", str(image), "12M"],
                       capture_output=True, check=True, timeout=60)
        return subprocess.run([dumpe2fs, str(image)], capture_output=True, text=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("needs mke2fs and dumpe2fs (e2fsprogs)")


def test_real_dumpe2fs_group_named_by_its_number_keeps_its_counts(tmp_path):
    """``dumpe2fs`` prints a record per block group, its head ``Group N: (Blocks …)`` and its
    counts indented under it. As a log, the counts were folded into "similar lines"."""
    out = _dumpe2fs(tmp_path)
    lines = out.splitlines()
    heads = [k for k, ln in enumerate(lines) if ln.startswith("Group ") and ": (Blocks " in ln]
    if len(heads) < 8:
        pytest.skip("too few block groups")
    assert detect(out).type is not ContentType.LOG
    for g in (2, len(heads) - 3):
        assert lines[heads[g]].startswith(f"Group {g}: ")
        counts = next(ln for ln in lines[heads[g] + 1:] if "free blocks," in ln)
        kept = tool_round("dumpe2fs fs.img", out, f"What are the free-space counts of block group {g}?")
        assert len(kept) < len(out)
        assert counts in kept.splitlines(), g


@settings(max_examples=40, deadline=None)
@given(word=WORD, n=st.integers(16, 40), size=st.integers(3, 8), seed=st.integers(0, 10_000))
def test_a_word_and_its_number_name_one_record(word, n, size, seed):
    if word not in question_terms(word):
        return  # a stop word ("them 4") names nothing
    rng = random.Random(seed)
    lines = []
    # Records in any order; the asked one is numbered by one digit (a two-digit number is an
    # anchor of its own) and listed past the first twelve, which every record ties with.
    order = list(range(10, n)) + list(range(10))
    for r in order:
        lines.append(f"{word.capitalize()} {r}: (span {r * 100}-{r * 100 + 99})")
        lines += [f"  item {rng.randint(1, 9999)} at {rng.randint(1, 9999)}" for _ in range(size)]
    asked = rng.randrange(10)
    kept = _lines_select(lines, f"What does {word} {asked} hold?", budget=n)
    head = lines.index(f"{word.capitalize()} {asked}: (span {asked * 100}-{asked * 100 + 99})")
    assert lines[head: head + size + 1] == [ln for ln in kept if ln in lines[head: head + size + 1]]


def test_real_pip_show_verbose_record_named_by_its_package():
    """``pip show -v`` records, separated by ``---``: the asked package's record stays whole
    (its name also stands in its own URLs, which does not make it any less its name)."""
    try:
        run = subprocess.run([sys.executable, "-m", "pip", "show", "-v", "idna", "click", "certifi", "rich", "tenacity"],
                             check=False, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        pytest.skip("pip is not runnable here")
    records = [r for r in run.stdout.split("\n---\n") if r.startswith("Name: ")]
    if len(records) < 4:
        pytest.skip("pip show lists too few of these packages here")
    last = records[-1].splitlines()
    name = last[0].split(": ", 1)[1]
    required = next(ln for ln in last if ln.startswith("Required-by: "))
    kept = tool_round("pip show -v idna click certifi rich tenacity", run.stdout,
                      f"Which installed packages depend on {name}?")
    assert required in kept.splitlines()
