"""Round 11's misses, read by class (issue 33, twelfth session), on outputs of real tools
over inputs this test makes; the facts are the test's own record of what it made.

- A flattened document (``jq -c --stream``, ``paths(scalars)`` as ``a.b.3.c = v``): a named
  value brings the other lines of its record (the same path up to the array index), a
  record lacking a field every sibling has stays, and "the biggest memory limit" keeps the
  largest leaf whose path says "memory".
- Lines opening with rising integers (``cmp -l``'s byte offsets): each run's first and last
  line stay (a rewritten table, a lone flipped byte), and a text of records that open alike
  keeps every opening line (which images differ, which are identical).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from headroom.compressors.flat_paths import missing_field_records, path_mates
from headroom.compressors.text_records import run_ends

from .tool_rounds import tool_round


def _inventory(rng: random.Random) -> tuple[dict, dict]:
    teams = ["orders", "billing", "search", "media", "edge"]
    services = []
    for k in range(40):
        services.append({"name": f"{rng.choice(['cart', 'quote', 'label', 'ledger'])}-{k:02d}-svc",
                         "team": rng.choice(teams), "owner": f"oncall-{k}@corp.example",
                         "port": 7000 + rng.randint(0, 900) * 3 + k,
                         "limits": {"cpu_millis": rng.randint(1, 8) * 250, "memory_mib": rng.choice([256, 512, 1024])},
                         "image": f"registry.corp.example/app/b{rng.randint(1000, 9999)}:{rng.randint(1, 30)}"})
    facts = {"asked": services[17]["name"], "port": services[17]["port"]}
    del services[29]["owner"]
    facts["unowned"] = services[29]["name"]
    services[8]["limits"]["memory_mib"] = 16384
    facts["biggest"] = services[8]["name"]
    return {"cluster": "prod-east", "services": services}, facts


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq")
@pytest.mark.parametrize("program", ["stream", "dotted"])
def test_a_flattened_document_keeps_the_named_record_the_record_lacking_a_field_and_the_extreme(tmp_path, program):
    doc, facts = _inventory(random.Random(4))
    (tmp_path / "inv.json").write_text(json.dumps(doc))
    jq = (["jq", "-c", "--stream", "."] if program == "stream"
          else ["jq", "-r", 'paths(scalars) as $p | "\\($p | map(tostring) | join(".")) = \\(getpath($p))"'])
    text = subprocess.run([*jq, "inv.json"], cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    out = tool_round(" ".join(jq) + " inv.json", text, f"Which port is {facts['asked']} listening on?")
    assert str(facts["port"]) in out
    out = tool_round(" ".join(jq) + " inv.json", text, "Is there a service nobody owns?")
    assert facts["unowned"] in out
    out = tool_round(" ".join(jq) + " inv.json", text, "Which service has the biggest memory limit?")
    assert "16384" in out and facts["biggest"] in out
    assert len(out) < len(text) / 2


def test_path_records_need_an_array_index():
    lines = [f"services.{k}.{f} = v{k}" for k in range(12) for f in ("name", "port", "owner")]
    assert path_mates(lines, {3}) == {4, 5}  # services.1.*
    lines_without = [ln for ln in lines if ln != "services.4.owner = v4"]
    assert missing_field_records(lines_without) == {12}  # services.4 opens on its name line
    flat = [f"key_{k} = {k}" for k in range(20)]  # no paths: nothing
    assert path_mates(flat, {3}) == set() and missing_field_records(flat) == set()


@pytest.mark.skipif(shutil.which("cmp") is None, reason="needs cmp")
def test_byte_differences_keep_each_run_s_ends_and_every_image_named(tmp_path):
    rng = random.Random(8)
    base = bytearray(rng.randbytes(32768))
    patched = bytearray(base)
    table = range(9000, 9180)  # a rewritten table: one run
    for k in table:
        patched[k] ^= 0x5A
    patched[20111] ^= 0x01  # a lone flipped bit, away from the rest
    for k in rng.sample(range(1000, 8000), 40):  # scattered noise before them
        patched[k] ^= 0xFF
    (tmp_path / "a.bin").write_bytes(base)
    (tmp_path / "b.bin").write_bytes(patched)
    text = subprocess.run(["cmp", "-l", "a.bin", "b.bin"], cwd=tmp_path, check=False, capture_output=True,
                          text=True).stdout
    out = tool_round("cmp -l a.bin b.bin", text, "Where does the rewritten table end?")
    assert any(ln.split()[0] == str(table[-1] + 1) for ln in out.splitlines() if ln.strip()[:1].isdigit())
    out = tool_round("cmp -l a.bin b.bin", text, "Which byte changed on its own, far from the others?")
    assert any(ln.split()[0] == "20112" for ln in out.splitlines() if ln.strip()[:1].isdigit())  # cmp counts from 1
    lines = text.split("\n")
    ends = run_ends(lines)
    assert lines.index(next(ln for ln in lines if ln.split()[:1] == [str(table[0] + 1)])) in ends


def test_records_of_runs_keep_every_opening_line():
    rng = random.Random(3)
    lines = []
    for name in ("boot", "display", "modem", "radio", "sensor"):
        lines.append(f"== {name}.bin")
        if name == "display":
            continue  # identical: cmp prints nothing
        start = rng.randint(100, 9000)
        count = 1 if name == "modem" else rng.randint(30, 60)
        lines += [f"{start + k} {rng.randint(0, 377)} {rng.randint(0, 377)}" for k in range(count)]
    text = "\n".join(lines)
    out = tool_round("for f in *.bin; do echo == $f; cmp -l a/$f b/$f; done", text, "Which image is the same in both?")
    assert "== display.bin\n== modem.bin" in out


def test_a_syntax_tree_shows_the_named_function_whole(tmp_path):
    """``python -m ast`` reads as records nested in an outline (one per definition); the
    function the question names is shown whole, down to the exception it raises."""
    import sys

    rng = random.Random(6)
    errors = [f"Halt{k}Quota" for k in range(30)]
    src = ["import signals"]  # the dump names what is raised; nothing is resolved
    names = [f"{rng.choice(['load', 'check', 'price', 'ship'])}_{k}" for k in range(40)]
    for k, name in enumerate(names):
        src.append(f"def {name}(item, limit={k}):")
        src.append(f"    if item is None or item > limit * {k + 3}:")
        src.append(f"        raise signals.{errors[k % 30]}(item)")
        src.append(f"    return item * {k}")
    (tmp_path / "mod.py").write_text("\n".join(src) + "\n")
    text = subprocess.run([sys.executable, "-m", "ast", "mod.py"], cwd=tmp_path, check=True, capture_output=True,
                          text=True).stdout
    asked = names[23]
    out = tool_round("python3 -m ast mod.py", text, f"Which exception can {asked} raise?")
    assert errors[23 % 30] in out
    assert len(out) < len(text) / 2


@pytest.mark.skipif(shutil.which("diff") is None, reason="needs diffutils")
def test_a_recursive_normal_diff_keeps_the_named_file_s_hunks(tmp_path):
    """``diff -r`` (normal format) of two configuration trees: the header line the question
    names (the file) brings its record, the hunks that say what changed in it."""
    rng = random.Random(9)
    keys = ["timeout", "queue_name", "max_body", "region", "pool_size", "log_level", "cache_ttl", "retries"]
    changed = {}
    dirs = ("api", "db", "cdn", "dns", "edge", "jobs", "mail", "media", "ops", "web", "auth", "blob", "cron", "feed")
    for d in dirs:
        for f in ("auth", "billing", "ratelimit", "search", "archive", "ledger", "quota", "report", "tasks"):
            old = {k: f"{k[:3]}-{rng.randint(100, 999)}" for k in keys}
            new = dict(old)
            for k in rng.sample(keys, 3):
                new[k] = f"{k[:3]}-{rng.randint(100, 999)}"
            changed[(d, f)] = new
            for side, conf in (("old", old), ("new", new)):
                (tmp_path / side / d).mkdir(parents=True, exist_ok=True)
                (tmp_path / side / d / f"{f}.conf").write_text("".join(f"{k} = {v}\n" for k, v in conf.items()))
    new = changed[("edge", "ratelimit")]
    new["queue_name"] = "q-7331"
    (tmp_path / "new" / "edge" / "ratelimit.conf").write_text("".join(f"{k} = {v}\n" for k, v in new.items()))
    text = subprocess.run(["diff", "-r", "old", "new"], cwd=tmp_path, check=False, capture_output=True, text=True).stdout
    assert "q-7331" in text
    out = tool_round("diff -r old new", text, "What is the queue name for edge ratelimit now?")
    assert "q-7331" in out
    assert len(out) < 0.6 * len(text)
