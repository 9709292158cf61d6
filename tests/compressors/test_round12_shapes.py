"""Round 12's misses, read by class (issue 33, thirteenth session), on outputs of real tools
over inputs this test makes; the facts are the test's own record of what it made.

- A text whose key lines go back to an indent no open block has is no YAML, however its
  lines look (right-aligned offsets, ``    2: ...`` then ``   11: ...``): it is not claimed
  as YAML, and the detector never calls YAML what YAML's parser refuses for its indents.
- Records that open with the same phrase before a last word (``patch``'s "checking file
  src/x.py" over each file's hunks): a record the question names brings its body.
- A name assigned on many lines whose values mostly repeat (``bash -x``'s ``+ state=ok``):
  a rare value stays.
- A past-tense question word finds its root as a whole word ("the amended commit" is git
  reflog's "commit (amend)"), and a hyphenated word no line holds finds its parts
  ("hard-reset" is git's "reset:").
"""

from __future__ import annotations

import json
import os
import pickle
import random
import shutil
import subprocess
import sys

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.structured import claim
from headroom.compressors.structured.detect import detect_format
from headroom.compressors.structured.select import rare_assigned_values, rare_marks
from headroom.query.said_numbers import rows_holding, said_numbers

from .tool_rounds import tool_round

_FILES = ["audit", "basket", "billing", "cache", "carrier", "coupon", "export", "fraud", "gift",
          "importer", "invoice", "label", "ledger", "loyalty", "media", "notify", "parcel", "payout",
          "pricing", "profile", "promo", "queue", "quote", "rating", "refund", "report", "returns",
          "review", "routing", "search", "session", "shelf", "slots", "stock", "tariff", "taxes",
          "vendor", "wallet", "webhook", "zones"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=8), min_size=12, max_size=40))
def test_yaml_is_claimed_only_where_the_indents_parse(indents):
    # Keys with empty values: YAML then refuses a text only for its indents.
    text = "\n".join(f"{' ' * ind}k{n}:" for n, ind in enumerate(indents)) + "\n"
    if detect_format(text, text.splitlines()) == "yaml":
        yaml.safe_load(text)  # raises when the detector claimed what YAML refuses


def test_right_aligned_offsets_are_no_yaml(tmp_path):
    record = {"orders": [{"id": f"ORD-{k:05d}", "total": k * 1.5, "status": "paid"} for k in range(300)]}
    (tmp_path / "orders.pkl").write_bytes(pickle.dumps(record, protocol=4))
    text = subprocess.run([sys.executable, "-m", "pickletools", str(tmp_path / "orders.pkl")],
                          capture_output=True, text=True, check=True).stdout
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)
    assert claim(text) is None or claim(text).hint != "yaml"


@pytest.mark.skipif(shutil.which("patch") is None or shutil.which("diff") is None, reason="needs patch and diff")
def test_a_record_the_question_names_brings_its_body(tmp_path):
    rng = random.Random(12)
    old, new, moved = tmp_path / "old", tmp_path / "new", tmp_path / "moved"
    offsets = dict(zip(_FILES, rng.sample(range(20, 400), len(_FILES))))
    for d in (old, new, moved):
        (d / "src").mkdir(parents=True)
    for name in _FILES:
        body = [f"line {k} of {name}" for k in range(60)]
        changed = list(body)
        changed[10] = f"changed line 10 of {name}"
        changed[50] = f"changed line 50 of {name}"
        (old / "src" / f"{name}.py").write_text("\n".join(body) + "\n")
        (new / "src" / f"{name}.py").write_text("\n".join(changed) + "\n")
        pad = offsets[name]
        (moved / "src" / f"{name}.py").write_text("\n".join([f"pad {k}" for k in range(pad)] + body) + "\n")
    diff = subprocess.run(["diff", "-ru", "old", "new"], check=False, cwd=tmp_path, capture_output=True, text=True).stdout
    (tmp_path / "change.patch").write_text(diff.replace("old/src/", "a/src/").replace("new/src/", "b/src/"))
    text = subprocess.run(["patch", "-p1", "--dry-run", "-i", "../change.patch"], check=True, cwd=moved,
                          capture_output=True, text=True).stdout
    assert text.count("checking file") == len(_FILES)
    for name in ("importer", "pricing", "rating"):
        out = tool_round("patch -p1 --dry-run -i ../change.patch", text,
                         f"By how many lines had the change in {name}.py moved?")
        assert f"(offset {offsets[name]} lines)" in out, name
        assert len(out) < len(text)


def test_rare_assigned_values_are_the_rare_values_of_names_assigned_often():
    lines = []
    for k in range(30):
        lines += [f"+ check_service svc-{k}", f"++ port={8000 + k}", f"+ state={'ok' if k != 17 else 'E_TIMEOUT'}"]
    kept = rare_assigned_values(lines)
    assert kept == {lines.index("+ state=E_TIMEOUT")}  # ports are all distinct: none is rare


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_rare_value_in_a_shell_trace_stays(tmp_path):
    services = [f"{w}-{k}" for k, w in enumerate(["invoice", "session", "carrier", "stock", "import"] * 8)]
    (tmp_path / "status").mkdir()
    for k, name in enumerate(services):
        (tmp_path / "status" / name).write_text("E_UPSTREAM_TIMEOUT_4417\n" if k == 23 else "ok\n")
    (tmp_path / "services.txt").write_text("".join(f"{s} {9000 + k} {k % 7}\n" for k, s in enumerate(services)))
    (tmp_path / "check.sh").write_text(
        "check_service() {\n  port=$(awk -v n=$1 '$1 == n {print $2}' services.txt)\n"
        "  replicas=$(awk -v n=$1 '$1 == n {print $3}' services.txt)\n"
        "  digest=$(printf %s \"$1\" | sha1sum | cut -c1-12)\n"
        "  state=$(cat status/$1)\n  (( replicas > 0 )) && total=$((total + replicas))\n}\n"
        "total=0\n"
        "while read -r name _; do check_service \"$name\"; done < services.txt\n")
    text = subprocess.run(["bash", "-x", "check.sh"], check=True, cwd=tmp_path, capture_output=True, text=True).stderr
    assert text.count("+ state=ok") == len(services) - 1
    out = tool_round("bash -x check.sh", text, "Did any service report a bad status? What did it say?")
    assert "E_UPSTREAM_TIMEOUT_4417" in out
    assert len(out) < len(text)


def _git(repo, *args, env=None):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env).stdout


def _new_repo(tmp_path, first_commit: bool = False):
    """A fresh repository on ``main`` and the environment its commits are made in (one
    author, no user configuration); with ``first_commit``, an initial commit on main."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    repo = tmp_path / "r"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main", env=env)
    if first_commit:
        (repo / "README").write_text("shop\n")
        _git(repo, "add", ".", env=env)
        _git(repo, "commit", "-q", "-m", "initial import", env=env)
    return repo, env


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_past_tense_and_hyphenated_words_find_their_reflog_entries(tmp_path):
    repo, env = _new_repo(tmp_path)
    rng = random.Random(5)
    verbs = ["tidy", "split", "guard", "rename", "document", "speed up", "fix", "add"]

    def commit(k, message=None):
        (repo / "f.txt").write_text(f"{k} {rng.random()}\n")
        _git(repo, "add", "f.txt", env=env)
        area = rng.choice(_FILES)
        _git(repo, "commit", "-q", "-m", message or f"{area}: {rng.choice(verbs)} the {area} rules "
             f"(T-{rng.randint(1000, 9999)})", env=env)

    for k in range(90):  # feature branches merged back, as a team's reflog reads
        if k % 9 == 3:
            _git(repo, "checkout", "-q", "-b", f"feature/{rng.choice(_FILES)}-{k}", env=env)
        commit(k)
        if k % 9 == 8:
            branch = _git(repo, "branch", "--show-current", env=env).strip()
            _git(repo, "checkout", "-q", "main", env=env)
            _git(repo, "merge", "-q", "--no-ff", "--no-edit", branch, env=env)
        if k == 40:
            commit(k, "pricing: round totals half-even (T-5190)")
            _git(repo, "commit", "-q", "--amend", "--no-edit", env=env)
        if k == 60:
            target = _git(repo, "rev-parse", "HEAD~3", env=env).strip()
            _git(repo, "reset", "-q", "--hard", target, env=env)
    text = _git(repo, "reflog", env=env)
    out = tool_round("git reflog", text, "What was the amended commit's ticket?")
    assert "T-5190" in out
    dated = _git(repo, "reflog", "--date=iso", "--no-abbrev", env=env)
    out = tool_round("git reflog --date=iso --no-abbrev", dated, "Which commit was HEAD hard-reset to?")
    assert f"reset: moving to {target}" in out
    assert len(out) < len(dated)


def _services(rng: random.Random) -> tuple[dict, dict]:
    # Names that hold no index: a name's digits would match its records' paths by themselves.
    names = [f"{a}-{b}" for a in ("cart", "quote", "label", "ledger", "media", "session", "stock", "rating")
             for b in ("worker", "gateway", "sync", "api", "cron", "relay", "proxy", "feed")]
    rng.shuffle(names)
    services = [{"name": names[k],
                 "port": 7000 + k * 7 + rng.randint(0, 6), "replicas": rng.randint(1, 9),
                 "image": f"registry.corp.example/app/b{rng.randint(1000, 9999)}:{rng.randint(1, 30)}",
                 "limits": {"cpu_millis": rng.randint(1, 8) * 250}} for k in range(60)]
    services[12]["replicas"] = 0  # the one scaled down
    return {"cluster": "prod-east", "services": services}, services[37]


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq")
@pytest.mark.parametrize("names", [("path", "value"), ("k", "v")])
def test_path_value_pairs_in_json_bring_the_named_record(tmp_path, names):
    # jq's own paths as a JSON array of two-field objects, whatever the two fields are called.
    doc, asked = _services(random.Random(9))
    (tmp_path / "inv.json").write_text(json.dumps(doc))
    program = (f'[paths(scalars) as $p | {{{names[0]}: ($p | map(tostring) | join(".")), '
               f'{names[1]}: getpath($p)}}]')
    text = subprocess.run(["jq", program, "inv.json"], cwd=tmp_path, check=True, capture_output=True,
                          text=True).stdout
    out = tool_round(f"jq '{program}' inv.json", text, f"Which image does {asked['name']} run?")
    assert asked["image"] in out
    out = tool_round(f"jq '{program}' inv.json", text, f"Which port does {asked['name']} listen on?")
    assert f"{asked['port']}" in out
    idle = doc["services"][12]["name"]
    out = tool_round(f"jq '{program}' inv.json", text, "Which service is scaled down to zero replicas?")
    assert idle in out
    assert len(out) < len(text) / 4


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("xz") is None, reason="needs cmake and xz")
@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_a_two_letter_word_names_a_key_and_not_found_finds_notfound(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    rng = random.Random(3)
    settings_ = "".join(f'set(SHOP_{name.upper()}_{kind} "{rng.randint(1, 900)}" CACHE STRING "{name} {kind.lower()}")\n'
                        for name in _FILES for kind in ("LIMIT", "SHARDS"))
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(shop C)\n" + settings_
        + "".join(f"find_program(SHOP_{tool.upper()}_PROGRAM {tool})\n"
                  for tool in ("sh", "cat", "ls", "grep", "sed", "tar", "gzip", "sort", "head", "tail"))
        + "find_program(SHOP_XZ_PROGRAM xz)\nfind_program(SHOP_PROTOC_PROGRAM protoc-shop-none)\n")
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(src), "-B", str(build)], check=True, capture_output=True)
    text = subprocess.run(["cmake", "-LA", "-N", str(build)], check=True, capture_output=True, text=True).stdout
    assert "SHOP_PROTOC_PROGRAM:FILEPATH=SHOP_PROTOC_PROGRAM-NOTFOUND" in text
    xz = shutil.which("xz")
    out = tool_round("cmake -LA -N build", text, "Which xz binary did the configure step pick up?")
    assert f"SHOP_XZ_PROGRAM:FILEPATH={xz}" in out
    out = tool_round("cmake -LA -N build", text, "Which tool could the configure step not find?")
    assert "SHOP_PROTOC_PROGRAM-NOTFOUND" in out
    assert len(out) < len(text)


def test_numbers_said_in_words_are_found_where_they_are_rare():
    assert said_numbers("is there a zero-byte file?") == [0.0]
    assert said_numbers("which client made just a single request?") == [1.0]
    assert said_numbers("which file is the largest?") == []
    assert rows_holding([5.0, 0.0, 7.0, None, 0.0], [0.0], limit=4) == [1, 4]
    assert rows_holding([0.0] * 10, [0.0], limit=4) == []  # a column of zeros: none is rare


@pytest.mark.skipif(shutil.which("stat") is None, reason="needs stat")
def test_the_empty_file_stays_in_a_stat_listing(tmp_path):
    rng = random.Random(7)
    spool = tmp_path / "spool"
    spool.mkdir()
    names = [f"job-{k:04d}.dat" for k in rng.sample(range(10000), 60)]
    for name in names:
        (spool / name).write_bytes(b"x" * rng.randint(900, 9000))
    (spool / "job-5000-empty.dat").write_bytes(b"")
    os.mkfifo(spool / "job-0000-control")  # a size of 0 too, listed first: the size column's minimum
    files = sorted(p.name for p in spool.iterdir())
    text = subprocess.run(["stat", "-t", *files], cwd=spool, check=True, capture_output=True, text=True).stdout
    out = tool_round("stat -t *", text, "Is there a zero-byte file in the spool? Which one?")
    assert "job-5000-empty.dat" in out
    assert len(out) < len(text) / 2


@pytest.mark.skipif(shutil.which("sort") is None or shutil.which("uniq") is None, reason="needs sort and uniq")
def test_the_count_of_one_stays_in_a_frequency_table(tmp_path):
    rng = random.Random(8)
    clients = [f"10.{rng.randint(20, 29)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}" for _ in range(200)]
    hits = [c for c in clients[1:] for _ in range(rng.randint(2, 300))] + [clients[0]]
    rng.shuffle(hits)
    (tmp_path / "access.txt").write_text("\n".join(hits) + "\n")
    text = subprocess.run("sort access.txt | uniq -c", shell=True, cwd=tmp_path, check=True, capture_output=True,
                          text=True).stdout
    assert sum(1 for ln in text.splitlines() if ln.split()[0] == "1") == 1
    out = tool_round("sort access.txt | uniq -c", text, "Which client made just a single request?")
    assert f"1 {clients[0]}\n" in out
    assert len(out) < len(text) / 2


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs ssh")
def test_a_noun_in_ion_names_its_verb_inside_a_key(tmp_path):
    (tmp_path / "config").write_text("Host nas-legacy\n  HostName 198.51.100.240\n  User backup\n"
                                     "  ConnectTimeout 7\n  ServerAliveInterval 45\n")
    text = subprocess.run(["ssh", "-G", "-F", str(tmp_path / "config"), "nas-legacy"], check=True,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    out = tool_round("ssh -G nas-legacy", text, "How long will ssh wait for the connection to open?")
    assert "connecttimeout 7" in out
    assert len(out) < len(text)


@pytest.mark.skipif(shutil.which("column") is None, reason="needs column")
def test_what_stands_out_in_a_small_series_stays_whatever_the_room(tmp_path):
    rng = random.Random(11)
    rows = ["r b swpd free in cs us sy id wa UTC"]
    for k in range(24):
        storm = k in (14, 15)
        rows.append(f"{rng.randint(1, 4)} 0 0 {12783524 - k} {rng.randint(50, 600)} "
                    f"{305910 + k if storm else rng.randint(50, 520)} {rng.randint(0, 100)} {rng.randint(0, 9)} "
                    f"{rng.randint(0, 100)} 0 2026-11-29 21:24:{k:02d}")
    (tmp_path / "samples.txt").write_text("\n".join(rows) + "\n")
    text = subprocess.run(["column", "-t", "samples.txt"], cwd=tmp_path, check=True, capture_output=True,
                          text=True).stdout
    out = tool_round("column -t samples.txt", text, "At what times was the system switching tasks far more than usual?")
    assert "21:24:14" in out and "21:24:15" in out


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_named_author_brings_every_line_of_their_commit_in_porcelain_blame(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    base = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def as_(name):
        mail = f"{name.split()[0].lower()}@example.org"
        return {**base, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": mail, "GIT_COMMITTER_NAME": name,
                "GIT_COMMITTER_EMAIL": mail}

    rng = random.Random(13)
    lines = [f"    value_{k} = compute_{k}(item)  # step {k}" for k in range(400)]
    _git(repo, "init", "-q", "-b", "main", env=base)
    priya_picks = rng.sample(range(400), 5)
    others = [k for k in range(400) if k not in priya_picks]
    tags = ["checked: bounds", "perf: hot path", "tidy", "docs: wording"]  # every author's, alike
    for author, picks in (("Ana Costa", range(400)), ("Lena Fischer", rng.sample(range(400), 60)),
                          ("Priya Nair", priya_picks), ("Tomas Novak", rng.sample(others, 40))):
        for k in picks:
            # A new random note on every edit: each edit changes its line, and no author's
            # lines read unlike the others'.
            lines[k] = f"    value_{k} = compute_{k}(item)  # {rng.choice(tags)} {k} v{rng.randint(10000, 99999)}"
        (repo / "core.py").write_text("\n".join(lines) + "\n")
        _git(repo, "add", "core.py", env=base)
        _git(repo, "commit", "-q", "-m", f"core.py: review pass by {author.split()[0]}", env=as_(author))
    text = _git(repo, "blame", "--porcelain", "core.py", env=base)
    priya = [lines[k] for k in priya_picks]
    assert len(priya) == 5
    out = tool_round("git blame --porcelain core.py", text, "Which lines did Priya Nair change last in core.py?")
    assert all(ln in out for ln in priya), [ln for ln in priya if ln not in out]
    assert len(out) < len(text) / 2


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="needs the sqlite3 shell")
def test_a_group_whose_title_the_question_names_stays_whole(tmp_path):
    import sqlite3

    names = [f"{a}_{b}" for a in ("stock", "order", "refund", "parcel", "ledger", "coupon")
             for b in ("levels", "lines", "events", "notes")]
    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as con:
        for k, name in enumerate(names):
            con.execute(f"CREATE TABLE {name} (id INTEGER PRIMARY KEY, code TEXT, qty INTEGER)")
            con.executemany(f"INSERT INTO {name} (code, qty) VALUES (?, ?)", [(f"c{j % 7}", j) for j in range(40 + k)])
        roots = dict(con.execute("SELECT name, rootpage FROM sqlite_master WHERE type = 'table'"))
    script = ".echo on\n" + "".join(
        f"EXPLAIN SELECT code, count(*) FROM {name} WHERE id BETWEEN ?1 AND ?2 GROUP BY code ORDER BY 2 DESC LIMIT 5;\n"
        for name in names)
    text = subprocess.run(["sqlite3", "-header", "-column", str(db)], input=script, check=True, capture_output=True,
                          text=True).stdout
    asked = names[13]
    out = tool_round("sqlite3 shop.db < explain.sql", text, f"At which root page does the program open the {asked} table?")
    open_read = [ln for ln in out.splitlines() if "OpenRead" in ln]
    assert any(ln.split()[3] == str(roots[asked]) for ln in open_read), open_read
    assert len(out) < len(text) / 4


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_named_merge_brings_the_head_of_the_lane_it_merges(tmp_path):
    repo, env = _new_repo(tmp_path, first_commit=True)
    rng = random.Random(21)
    tips = {}
    branches = [f"feature/{_FILES[b]}-{b}" for b in range(14)]
    for branch in branches:
        _git(repo, "branch", branch, env=env)
    # Commits spread over the branches in turn (interleaved lanes), then merged in a shuffled
    # order with a commit on main between merges.
    for k in range(70):
        branch = branches[rng.randrange(len(branches))]
        _git(repo, "checkout", "-q", branch, env=env)
        (repo / f"{k}.txt").write_text(f"{k}\n")
        _git(repo, "add", ".", env=env)
        ticket = f"T-{rng.randint(1000, 9999)}"
        _git(repo, "commit", "-q", "-m", f"{rng.choice(_FILES)}: tidy the rules ({ticket})", env=env)
        tips[branch] = ticket
    _git(repo, "checkout", "-q", "main", env=env)
    order = [b for b in branches if b in tips]
    rng.shuffle(order)
    for n, branch in enumerate(order):
        (repo / f"main-{n}.txt").write_text(f"{n}\n")
        _git(repo, "add", ".", env=env)
        _git(repo, "commit", "-q", "-m", f"main: step {n} (T-{rng.randint(1000, 9999)})", env=env)
        _git(repo, "merge", "-q", "--no-ff", "--no-edit", branch, env=env)
    text = _git(repo, "log", "--graph", "--all", "--format=%h %an %s", env=env)
    missing = [b for b in order if tips[b] not in tool_round("git log --graph --all --format='%h %an %s'", text,
                                                             f"Which ticket is at the tip of {b}?")]
    assert not missing
    assert len(tool_round("git log --graph", text, f"Which ticket is at the tip of {order[0]}?")) < len(text)


def _conf(limit: int) -> str:
    # A dozen fixed settings around the one that changes: a reworked commit stays paired
    # with its old self ("!"), not listed as dropped and added.
    fixed = [f"setting_{j} = {j * 3}" for j in range(12)]
    return "\n".join(fixed[:6] + [f"limit = {limit}"] + fixed[6:]) + "\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_rare_mark_among_common_ones_stays_in_a_range_diff(tmp_path):
    repo, env = _new_repo(tmp_path, first_commit=True)
    rng = random.Random(31)
    _git(repo, "checkout", "-q", "-b", "v1", env=env)
    tickets = rng.sample(range(1000, 9999), 42)
    for k, ticket in enumerate(tickets[:40]):
        (repo / f"{_FILES[k]}.conf").write_text(_conf(rng.randint(1, 99)))
        _git(repo, "add", ".", env=env)
        _git(repo, "commit", "-q", "-m", f"{_FILES[k]}: set the limit (T-{ticket})", env=env)
    shas = _git(repo, "rev-list", "--reverse", "main..v1", env=env).split()
    _git(repo, "checkout", "-q", "-b", "v2", "main", env=env)
    messages = _git(repo, "log", "--reverse", "--format=%s", "main..v1", env=env).splitlines()
    for k, sha in enumerate(shas):
        if k in (5, 12, 30, 33):  # reworked: another value, the same subject (an inner diff)
            (repo / f"{_FILES[k]}.conf").write_text(_conf(rng.randint(100, 199)))
            _git(repo, "add", ".", env=env)
            _git(repo, "commit", "-q", "-m", messages[k], env=env)
        elif k != 17:  # the one v2 drops
            _git(repo, "cherry-pick", sha, env=env)
        if k == 25:  # the one v2 adds
            (repo / "extra.conf").write_text("drain_s = 30\n")
            _git(repo, "add", ".", env=env)
            _git(repo, "commit", "-q", "-m", f"pricing: set drain_s (T-{tickets[41]})", env=env)
    text = _git(repo, "range-diff", "main..v1", "main..v2", env=env)
    lines = text.split("\n")
    marked = {lines[i] for i in rare_marks(lines)}
    assert any(f"T-{tickets[41]}" in ln and " > " in ln for ln in marked), marked
    assert any(f"T-{tickets[17]}" in ln and " < " in ln for ln in marked), marked
    assert not any(" = " in ln.split("T-")[0] for ln in marked)  # the common mark is no rare one
    out = tool_round("git range-diff main..v1 main..v2", text, "Which commit is new in v2? Give its ticket.")
    assert f"T-{tickets[41]}" in out
    out = tool_round("git range-diff main..v1 main..v2", text, "What ticket's commit is gone from the new series?")
    assert f"T-{tickets[17]}" in out
    assert len(out) < len(text)
