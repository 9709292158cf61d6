"""Round 21's misses, read by class (issue 33, nineteenth session), on outputs of real tools
over inputs this test makes, or on shapes written here with other words; the facts are the
test's own record of what it made.

- Records each opened by a ruled title and no blank line between them (a database client's
  expanded display: ``-[ RECORD 12 ]--+----`` over ``field | value`` lines) are a table
  on its side: "which statement ran 213 times?" brings the record, not the one line.
- A named item of a nested numbered list (a redis reply: ``1) "user"``, ``2) "bruno"``,
  ``3) "action"``, ...) brings the other items of its list.
- A ``git log`` keeps each commit's own lines (the whole hash as printed): tested in
  test_gitlog.py.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import time

import pytest

from headroom.compressors.detect import ContentType, detect_content_type
from headroom.compressors.tables.stanzas import infer

from .tool_rounds import tool_round


def _expanded_records() -> tuple[str, dict[int, str], str, str]:
    """Sixty records of a job scheduler's report in an expanded display: a ruled title per
    record, then ``field | value`` lines; the jobs by run count (each count held once), and
    the jobs run most and least."""
    rng = random.Random(21)
    verbs = ["prune", "rotate", "vacuum", "sync", "reindex", "archive", "compact", "scrub"]
    things = ["ledger", "uploads", "sessions", "thumbnails", "mailbox", "audit", "cache", "quotes"]
    jobs = [f"{v} {t}" for v in verbs for t in things]
    rng.shuffle(jobs)
    jobs = jobs[:60]
    runs = rng.sample(range(2, 400), 60)
    width = max(len(j) for j in jobs) + 12
    lines = []
    for k, (job, n) in enumerate(zip(jobs, runs), 1):
        title = f"-[ RECORD {k} ]"
        lines.append(title + "-" * (16 - len(title)) + "+" + "-" * width)
        lines += [f"job            | {job}", f"runs           | {n}", f"failures       | {rng.randrange(0, 3)}",
                  f"mean_seconds   | {rng.uniform(0.1, 90):.6f}", f"owner          | team-{rng.choice('abcde')}"]
    by_runs = dict(zip(runs, jobs))
    return "\n".join(lines) + "\n", by_runs, by_runs[max(runs)], by_runs[min(runs)]


def test_records_opened_by_ruled_titles_are_a_table_on_its_side():
    text, by_runs, most, least = _expanded_records()
    assert infer(text.split("\n")) is not None
    assert detect_content_type(text) == ContentType.TABLE
    rng = random.Random(5)
    for n in rng.sample(sorted(by_runs), 4):
        for question in (f"Which job ran {n} times?", f"What job has a run count of {n}?"):
            out = tool_round("psql -x -c 'select * from job_stats'", text, question)
            assert len(out) < 0.6 * len(text)
            assert by_runs[n] in out, question
    for question, job in (("Which job ran the most times?", most), ("Which job ran least often?", least)):
        assert job in tool_round("psql -x -c 'select * from job_stats'", text, question), question


def _redis_stream(tmp_path) -> tuple[str, dict[str, str]] | None:
    """``redis-cli --no-raw XINFO STREAM … FULL`` of a stream the test fills: 150 entries of an action, a
    zone, a shift, a team and a user; each user once, so a user names one entry. None
    without redis."""
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        return None
    sock = str(tmp_path / "r.sock")
    server = subprocess.Popen(["redis-server", "--port", "0", "--unixsocket", sock, "--save", "",
                               "--appendonly", "no", "--dir", str(tmp_path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            ping = subprocess.run(["redis-cli", "-s", sock, "ping"], check=False, capture_output=True, text=True)
            if ping.stdout.strip() == "PONG":
                break
            time.sleep(0.05)
        rng = random.Random(12)
        actions = {}
        script = []
        for k in range(150):
            user = f"{rng.choice(['bruno', 'chidi', 'dora', 'emil', 'farah'])}-{k:03d}"
            action = rng.choice(["login", "logout", "refresh", "export", "import", "delete"])
            actions[user] = action
            # The user last, as the tenth item: its number is two digits wide and stands one
            # column left of the first nine (``10) "bruno-017"`` under `` 2) "export"``).
            script.append(f"XADD audit * action {action} zone {rng.choice(['north', 'south'])} "
                          f"shift {rng.choice(['early', 'late'])} team {rng.choice(['red', 'blue'])} user {user}")
        subprocess.run(["redis-cli", "-s", sock], input="\n".join(script) + "\n", capture_output=True, text=True,
                       check=True)
        # The stream's full description: its entries nested one level deeper than XRANGE's.
        out = subprocess.run(["redis-cli", "-s", sock, "--no-raw", "XINFO", "STREAM", "audit", "FULL", "COUNT", "0"],
                             capture_output=True, text=True, check=True).stdout
        return out, actions
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_named_item_of_a_nested_reply_brings_the_other_items_of_its_list(tmp_path):
    got = _redis_stream(tmp_path)
    if got is None:
        pytest.skip("needs redis-server and redis-cli")
    text, actions = got
    rng = random.Random(8)
    for user in rng.sample(sorted(actions), 4):
        for question in (f"What did {user} do?", f"Which action is recorded for {user}?"):
            out = tool_round("redis-cli --no-raw XINFO STREAM audit FULL COUNT 0", text, question)
            assert len(out) < 0.5 * len(text)
            lines = out.splitlines()
            at = next(k for k, ln in enumerate(lines) if f'"{user}"' in ln)
            assert any(f'"{actions[user]}"' in ln for ln in lines[max(0, at - 9):at]), question


def test_numbered_mates_are_the_items_of_the_named_lines_list(tmp_path):
    from headroom.compressors.text_records import numbered_mates

    got = _redis_stream(tmp_path)
    if got is None:
        pytest.skip("needs redis-server and redis-cli")
    text, actions = got
    raw = text.splitlines()
    user = sorted(actions)[3]
    at = next(k for k, ln in enumerate(raw) if f'"{user}"' in ln)
    mates = numbered_mates(raw, {at})
    # The tenth item's list: its nine other items, from '1) "action"' on, and nothing else
    # (the entry's id, one level up, is another list's).
    assert mates == set(range(at - 9, at))
    assert '"action"' in raw[at - 9] and f'"{actions[user]}"' in raw[at - 8]
