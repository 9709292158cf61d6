"""Merge conflicts: ``git merge`` of a release branch into main (its report: ``Auto-merging``,
``CONFLICT (content)``, ``CONFLICT (modify/delete)`` lines), then ``git diff`` (the combined
``diff --cc`` of the unmerged files, with diff3-style markers carrying the common base), the
conflicted ``gateway.ini`` itself (~300 settings, one conflict in the middle) and GNU ``diff3 -m``
of three versions of a ~400-line environment file (changes from either side merged, one
conflict in the middle).

Both sides change settings of a deployment's configuration the capture writes (32 service
files): main and the release branch set six of the same settings differently, change one file
in two different places (it merges cleanly), and one side deletes a file the other edits. Facts
come from the capture's record of what each side changed (a setting's value on main, on the
release branch, at the base; the file both changed without conflict), never from git's or
diff3's text; a fact is kept only where its text stands once in the output. Held out (issue 33,
thirteenth round): dev's diffs compare two trees (``diff -r``, ``-y``) and its patch reports
apply one; no dev source holds a three-way merge or its conflict markers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "merge_conflicts"
SERVICES = ("ledger", "quote", "basket", "coupon", "parcel", "refund", "invoice", "shelf", "carrier", "rating",
            "session", "profile", "notify", "export", "importer", "report", "pricing", "taxes", "stock", "media",
            "audit", "cache", "search", "routing", "billing", "label", "webhook", "payout", "returns", "vendor",
            "queue", "wallet")
KEYS = ("timeout_ms", "pool_size", "max_body_kb", "retry_limit", "cache_ttl_s", "port", "workers", "batch_size",
        "queue_depth", "idle_timeout_s", "rate_limit", "backoff_ms", "shard_count", "keepalive_s", "log_level_id",
        "gc_interval_s", "buffer_kb", "max_conns", "heartbeat_ms", "drain_s")
CONFLICT_AT = (9, 12, 14, 17, 19, 22)  # services both sides change the same setting of
CLEAN_AT, DELETED_AT = 15, 20  # changed by both in two places; deleted on release, edited on main
ENV = git_env()
COMMANDS = {
    "merge": "git merge release",
    "diff": "git diff",
    "gateway": "cat conf/gateway.ini",
    "diff3": "diff3 -m env/ours.env env/base.env env/theirs.env",
}


@dataclass
class Record:
    """Each side's value of the settings both changed: (file, key) -> (base, main, release)."""

    conflicts: dict[tuple[str, str], tuple[str, str, str]] = field(default_factory=dict)
    merged: dict[str, tuple[str, str]] = field(default_factory=dict)  # diff3: side -> (key, value it set)
    clean: str = ""


def settings(rnd: random.Random, numbers, keys: tuple[str, ...]) -> dict[str, str]:
    return {k: str(next(numbers)) for k in rnd.sample(keys, len(keys))}


def write(path: Path, values: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k} = {v}\n" for k, v in values.items()))


def make_repo(work: Path, rnd: random.Random, numbers) -> Record:
    """Base, then the release branch's changes, then main's; the merge is left to the command."""
    rec, repo = Record(), work / "repo"
    git = lambda *args: run(["git", *args], cwd=repo, env=ENV)
    base = {s: settings(rnd, numbers, KEYS) for s in SERVICES}
    gateway = {f"route_{n:03d}_{k}": str(next(numbers)) for n in range(60) for k in KEYS[:5]}
    repo.mkdir()
    git("init", "-q", "-b", "main")
    git("config", "merge.conflictStyle", "diff3")
    sides = {"release": ({s: dict(v) for s, v in base.items()}, dict(gateway)),
             "main": ({s: dict(v) for s, v in base.items()}, dict(gateway))}
    for i, s in enumerate(SERVICES):
        keys = list(base[s])
        for side, first in (("release", 2), ("main", 12)):
            sides[side][0][s][keys[first]] = str(next(numbers))  # changes of their own, apart: no conflict
        if i in CONFLICT_AT:
            values = (base[s][keys[7]], str(next(numbers)), str(next(numbers)))
            sides["main"][0][s][keys[7]], sides["release"][0][s][keys[7]] = values[1], values[2]
            rec.conflicts[(s, keys[7])] = values
    middle = list(gateway)[len(gateway) // 2]
    rec.conflicts[("gateway", middle)] = (gateway[middle], str(next(numbers)), str(next(numbers)))
    sides["main"][1][middle], sides["release"][1][middle] = rec.conflicts[("gateway", middle)][1:]
    rec.clean = f"conf/{SERVICES[CLEAN_AT]}.ini"
    for side in ("base", "release", "main"):
        services, gw = (base, gateway) if side == "base" else sides[side]
        if side == "release":
            git("checkout", "-q", "-b", "release")
        elif side == "main":
            git("checkout", "-q", "main")
        for n, s in enumerate(SERVICES):
            if side == "base" or n in (*CONFLICT_AT, CLEAN_AT, DELETED_AT) or side == "release" and n % 4 == 0:
                write(repo / "conf" / f"{s}.ini", services[s])
        write(repo / "conf" / "gateway.ini", gw)
        if side == "release":
            (repo / "conf" / f"{SERVICES[DELETED_AT]}.ini").unlink()
        git("add", "-A")
        git("commit", "-q", "-m", f"{side}: configuration")
    return rec


def make_env_files(work: Path, rnd: random.Random, numbers, rec: Record) -> None:
    """Three versions of a 400-line environment file: each side changes settings of its own
    (merged by diff3) and both change one setting in the middle (the conflict)."""
    base = {f"SHOP_{k.upper()}_{n:02d}": str(next(numbers)) for n in range(80) for k in KEYS[5:10]}
    ours, theirs = dict(base), dict(base)
    keys = list(base)
    for k in keys[40:360:40]:
        ours[k] = str(next(numbers))
    for k in keys[60:380:40]:
        theirs[k] = str(next(numbers))
    rec.merged = {"ours": (keys[80], ours[keys[80]]), "theirs": (keys[220], theirs[keys[220]])}
    middle = keys[197]
    ours[middle], theirs[middle] = str(next(numbers)), str(next(numbers))
    rec.conflicts[("env", middle)] = (base[middle], ours[middle], theirs[middle])
    for name, values in (("base", base), ("ours", ours), ("theirs", theirs)):
        (work / "repo" / "env").mkdir(exist_ok=True)
        (work / "repo" / "env" / f"{name}.env").write_text("".join(f"{k}={v}\n" for k, v in values.items()))


def _asks(rec: Record) -> list[Ask]:
    note = "the capture's record of what each side changed"
    asks = [Ask("clean", "named", "named_item", (rec.clean,), note,
                ("Which file did both branches change but git merged without a conflict?",), ("merge",))]
    for n, ((where, key), (base, ours, theirs)) in enumerate(rec.conflicts.items()):
        label = {"env": "the .env file", "gateway": "gateway.ini"}.get(where, f"{where}.ini")
        only = {"env": ("diff3",), "gateway": ("gateway",)}.get(where, ("diff",))
        whole = where in ("env", "gateway")  # the long files: every side asked
        if whole or n % 2 == 0:
            asks.append(Ask(f"theirs_{where}", "named", "named_item", (theirs,), note,
                            (f"What does the release side want {key} in {label} to be?",
                             f"In the conflict over {key} in {label}, which value comes from the incoming side?"),
                            only))
        if whole or n % 2 == 1:
            asks.append(Ask(f"ours_{where}", "named", "named_item", (ours,), note,
                            (f"What value of {key} does our side have in {label}?",), only))
        if whole or n % 3 == 0:
            asks.append(Ask(f"base_{where}", "named", "named_item", (base,), note,
                            (f"What was {key} in {label} before either side touched it?",), only))
    for side, (key, value) in rec.merged.items():
        asks.append(Ask(f"merged_{side}", "named", "named_item", (value,), note,
                        (f"What does {key} come out as in the merged environment file?",), ("diff3",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1304)
    numbers = iter(rnd.sample(range(10007, 99991), 2000))
    rec = make_repo(work, rnd, numbers)
    make_env_files(work, rnd, numbers, rec)
    return shell_cases(SOURCE, COMMANDS, _asks(rec), cwd=work / "repo", env=ENV, check=False)
