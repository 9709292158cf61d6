"""Several workers' counters summed when read (headroom.proxy.shared_stats, issue 34):
live from every running worker, from the file of one that exited, and with the lag said
when a running worker does not answer."""

from __future__ import annotations

import json
import re
import socket
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.proxy import shared_stats
from headroom.proxy.shared_stats import StatsPublisher, whole_proxy
from headroom.proxy.stats import ProxyStats


def served(stats: ProxyStats, n: int, status: int = 200) -> None:
    for _ in range(n):
        stats.record(api="openai_chat", mode="optimize", status=status, latency_ms=3.0, tokens_before=10, tokens_after=4,
                     forwarded_compressed=True)


def test_a_worker_reads_the_others_counters_as_of_now(tmp_path):
    a, b = ProxyStats(), ProxyStats()
    pa = StatsPublisher(a, str(tmp_path), name="a")
    pb = StatsPublisher(b, str(tmp_path), name="b")
    try:
        served(a, 2)
        served(b, 5)  # after b's last file: only a live answer has them
        merged, _, workers = whole_proxy(pa)
        snap = merged.snapshot()
        assert workers == 2 and snap["requests"]["total"] == 7 and snap["lag_s"] == 0.0
        assert snap["tokens"]["saved"] == 7 * 6
        assert json.loads((tmp_path / "worker-b.json").read_text())["requests"] == []  # the file trails
    finally:
        pa.close()
        pb.close()


def test_an_exited_workers_final_counts_stay_in_the_sum(tmp_path):
    a, b = ProxyStats(), ProxyStats()
    pa = StatsPublisher(a, str(tmp_path), name="a")
    pb = StatsPublisher(b, str(tmp_path), name="b")
    served(b, 3)
    pb.close()
    assert not pb.socket_path.exists()
    try:
        merged, _, workers = whole_proxy(pa)
        assert workers == 2 and merged.snapshot()["requests"]["total"] == 3 and merged.lag_s == 0.0
    finally:
        pa.close()


def test_a_killed_worker_counts_as_its_last_file_without_lag(tmp_path):
    """SIGKILL leaves the socket file with nobody listening: the connection is refused,
    the file is all that is left of that worker (not a late copy of a running one)."""
    pa = StatsPublisher(ProxyStats(), str(tmp_path), name="a")
    dead = ProxyStats()
    served(dead, 4)
    (tmp_path / "worker-dead.json").write_text(json.dumps({**dead.raw(), "extra": {}, "published_at": time.time() - 9}))
    orphan = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    orphan.bind(str(tmp_path / "worker-dead.sock"))
    orphan.close()  # the path stays, nothing listens
    try:
        merged, _, workers = whole_proxy(pa)
        assert workers == 2 and merged.snapshot()["requests"]["total"] == 4 and merged.lag_s == 0.0
    finally:
        pa.close()


def test_a_worker_that_does_not_answer_is_read_from_its_file_and_the_lag_is_said(tmp_path):
    pa = StatsPublisher(ProxyStats(), str(tmp_path), name="a")
    stuck = ProxyStats()
    served(stuck, 6)
    (tmp_path / "worker-stuck.json").write_text(
        json.dumps({**stuck.raw(), "extra": {}, "published_at": time.time() - 2.5, "final": False}))
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(tmp_path / "worker-stuck.sock"))
    silent.listen(4)  # accepts in the kernel, never answers
    try:
        t = time.monotonic()
        merged, _, workers = whole_proxy(pa)
        assert time.monotonic() - t < shared_stats.ASK_TIMEOUT_S + 0.5  # bounded wait
        snap = merged.snapshot()
        assert workers == 2 and snap["requests"]["total"] == 6
        assert 2.5 <= snap["lag_s"] < 2.5 + shared_stats.ASK_TIMEOUT_S + 1
        gauge = re.search(r"^headroom_stats_lag_seconds (\S+)$", merged.prometheus(), re.MULTILINE)
        assert float(gauge.group(1)) == snap["lag_s"]
    finally:
        silent.close()
        pa.close()


def test_a_stats_dir_too_long_for_a_socket_falls_back_to_files(tmp_path):
    deep = tmp_path / ("d" * 120)
    pa = StatsPublisher(ProxyStats(), str(deep), name="a")
    b = ProxyStats()
    pb = StatsPublisher(b, str(deep), name="b")
    try:
        assert not pb.socket_path.exists()
        served(b, 2)
        pb.publish()
        merged, _, _ = whole_proxy(pa)
        assert merged.snapshot()["requests"]["total"] == 2
        assert 0.0 <= merged.lag_s < 5
    finally:
        pa.close()
        pb.close()


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=4))
def test_the_sum_read_from_any_worker_is_every_request_each_worker_counted(tmp_path_factory, counts):
    directory = tmp_path_factory.mktemp("stats")
    workers = [ProxyStats() for _ in counts]
    pubs = [StatsPublisher(s, str(directory), name=str(k)) for k, s in enumerate(workers)]
    try:
        for s, n in zip(workers, counts):
            served(s, n)
        for p in pubs:  # whichever worker answers /stats
            merged, _, seen = whole_proxy(p)
            assert seen == len(counts) and merged.snapshot()["requests"]["total"] == sum(counts)
            assert merged.latency.n == sum(counts) and merged.lag_s == 0.0
    finally:
        for p in pubs:
            p.close()
