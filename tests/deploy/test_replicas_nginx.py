"""deploy/ for real, without containers: one redis-server, three `headroom proxy` replicas
started from the Dockerfile's command line, Debian's nginx on deploy/nginx.conf in front,
a scripted fake provider behind. (issue 34)

What it proves: the balancer spreads requests over the replicas; an original stored
through one replica is handed back by another; what TOIN learns on one the others see;
and when a replica is killed (SIGKILL) under load, no request that starts after the kill
fails (nginx retries a refused connection on the next replica and marks the dead one
down after `max_fails`), and every marker the provider saw is still retrievable.

Locally a missing nginx or redis-server binary skips; in CI (``CI`` set) it fails.
Figures of the run go to stdout (``pytest -s``) and docs/deploy.md quotes one.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import Counter

import httpx
import pytest

from headroom.ccr.markers import find_hashes
from tests.ccr.conftest import redis_server  # noqa: F401  (session fixture: a private redis-server)
from tests.deploy.cluster import ROOT, Nginx, Replica, free_port, nginx_binary, replica_argv
from tests.proxy.proxy_fakes import make_fake_upstream
from tests.servers import ServerThread

pytestmark = [pytest.mark.slow, pytest.mark.redis]

TENANT = {"authorization": "Bearer sk-replica-test"}
REPLICAS = 3
LOAD_REQUESTS = 200
LOAD_CLIENTS = 8
LOAD_SECONDS = 10.0
KILL_AFTER = 60  # requests answered before one replica is killed
# The provider takes this long to answer each load request (a real model takes seconds),
# so some requests are in flight on the replica when it dies.
PROVIDER_S = "0.4"


def service_log(run: int, lines: int = 300) -> str:
    """A service log, distinct per ``run``: the log compressor keeps errors and a sample
    (lossy, so the original goes to the shared store and a marker goes upstream)."""
    return "\n".join(
        f"2026-11-22 05:{i // 60:02d}:{i % 60:02d} INFO svc-{i % 7} run {run} request req-{i:04d} served in "
        f"{20 + (i * 37 + run) % 400} ms"
        if i % 97
        else f"2026-11-22 05:{i // 60:02d}:{i % 60:02d} ERROR svc-{i % 7} run {run} request req-{i:04d} failed: timeout"
        for i in range(1, lines + 1)
    )


def chat(question: str, tool_output: str) -> dict:
    return {"model": "gpt-4o", "messages": [
        {"role": "user", "content": question},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "query_latency", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": tool_output}]}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def seen_hashes(rec) -> set[str]:
    """Every marker hash the provider received, in any tool result."""
    out: set[str] = set()
    for body in rec.bodies("/v1/chat/completions"):
        for m in body.get("messages", []):
            if m.get("role") == "tool" and isinstance(m.get("content"), str):
                out.update(find_hashes(m["content"]))
    return out


@pytest.fixture(scope="module")
def cluster(redis_server, tmp_path_factory):  # noqa: F811  (the imported fixture)
    binary = nginx_binary()
    if binary is None:
        msg = "nginx binary not found (apt-get install -y nginx-light; make system-deps)"
        if os.environ.get("CI"):
            pytest.fail(f"{msg}; CI must run the replica test", pytrace=False)
        pytest.skip(msg)
    import redis

    client = redis.Redis.from_url(redis_server)
    client.flushall()
    client.close()
    tmp = tmp_path_factory.mktemp("replicas")
    fake_app, rec = make_fake_upstream()
    # The compose file's environment: one tenant key shared by every replica.
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "HEADROOM_CCR_TENANT_KEY": "replica-test-tenant-key-" + "0" * 40, "HEADROOM_ADMIN_TOKEN": ""}
    with ServerThread(fake_app) as fake:
        # One worker each: this runs three replicas on one small machine (the image says
        # `--workers auto`; several workers per replica are tested in tests/proxy/test_workers.py).
        replicas = [Replica(replica_argv(port=free_port(), redis_url=redis_server, metrics_db=str(tmp / f"metrics-{k}.db"),
                                         upstream=fake.url, workers=1), env, tmp / f"replica-{k}.log")
                    for k in range(REPLICAS)]
        try:
            for r in replicas:
                r.start()
            deadline = time.monotonic() + 180
            for r in replicas:
                r.wait_ready(deadline)
            with Nginx(binary, tmp / "nginx", [r.port for r in replicas]) as lb:
                yield {"lb": lb, "replicas": replicas, "rec": rec}
        finally:
            for r in replicas:
                r.stop()


def test_a_marker_stored_through_one_replica_is_returned_by_the_others_and_toin_is_shared(cluster):
    a, *others = cluster["replicas"]
    rec = cluster["rec"]
    original = service_log(run=-1)
    r = httpx.post(f"{a.url}/v1/chat/completions", json=chat("Which services are slow?", original),
                   headers=TENANT, timeout=60)
    assert r.status_code == 200, r.text
    sent = rec.bodies("/v1/chat/completions")[-1]["messages"][2]["content"]
    assert len(sent) < len(original) / 2  # replica A compressed it
    (h,) = find_hashes(sent)
    assert h == digest(original)
    for b in others:
        got = httpx.get(f"{b.url}/v1/retrieve/{h}", headers=TENANT, timeout=10)
        assert got.status_code == 200, got.text
        assert got.json()["original_content"] == original
        assert httpx.get(f"{b.url}/v1/retrieve/{h}", timeout=10).status_code == 404  # another tenant

    # What A learned (it flushes TOIN's counts every second) steers B and C.
    def patterns(url: str) -> dict[str, int]:
        got = httpx.get(f"{url}/v1/toin/patterns", timeout=10).json()["patterns"]
        return {p["signature"]: p["compressed"] for p in got}

    deadline = time.monotonic() + 15
    while not (learned := {s for s, n in patterns(a.url).items() if n >= 1}):
        assert time.monotonic() < deadline, "A never recorded its compression in TOIN"
        time.sleep(0.2)
    for b in others:
        while not learned <= {s for s, n in patterns(b.url).items() if n >= 1}:
            assert time.monotonic() < deadline, f"{b.url} never saw what A learned"
            time.sleep(0.2)


def test_the_balancer_spreads_requests_over_the_replicas(cluster):
    lb, replicas = cluster["lb"], cluster["replicas"]
    before = [r.requests_served() for r in replicas]
    n = 30
    with httpx.Client(timeout=30) as client:  # one keep-alive connection: nginx still balances per request
        for k in range(n):
            r = client.post(f"{lb.url}/v1/chat/completions", headers=TENANT,
                            json={"model": "gpt-4o", "messages": [{"role": "user", "content": f"hello {k}"}]})
            assert r.status_code == 200, r.text
            assert r.json()["choices"][0]["message"]["content"].startswith(f"echo: hello {k}")
    served = [r.requests_served() - b for r, b in zip(replicas, before)]
    print(f"\nspread: {n} requests through nginx -> per replica {served}")
    assert sum(served) == n and all(s > 0 for s in served), served


def run_load(cluster, victim: Replica, stop) -> dict:
    """LOAD_REQUESTS chat requests (each with a distinct service log to compress) from
    LOAD_CLIENTS clients through nginx, paced over about LOAD_SECONDS; after KILL_AFTER
    answers, ``stop(victim)``. Returns what happened, with the balancer's view of it."""
    lb, rec = cluster["lb"], cluster["rec"]
    results: list[dict] = []
    lock = threading.Lock()
    next_index = iter(range(LOAD_REQUESTS))
    t0 = time.time()
    answered = threading.Semaphore(0)
    base = len(rec.requests)
    log_from = lb.error_log.stat().st_size if lb.error_log.exists() else 0

    def client_loop() -> None:
        with httpx.Client(timeout=60) as client:
            while True:
                with lock:
                    i = next(next_index, None)
                if i is None:
                    return
                time.sleep(max(0.0, t0 + i * LOAD_SECONDS / LOAD_REQUESTS - time.time()))  # paced
                start = time.time()
                try:
                    resp = client.post(f"{lb.url}/v1/chat/completions", headers={**TENANT, "x-fake-hang-s": PROVIDER_S},
                                       json=chat(f"run {i}: which services are slow?", service_log(i)))
                    outcome = resp.status_code
                except httpx.HTTPError as exc:
                    outcome = type(exc).__name__
                with lock:
                    results.append({"i": i, "start": start, "end": time.time(), "outcome": outcome})
                answered.release()

    threads = [threading.Thread(target=client_loop) for _ in range(LOAD_CLIENTS)]
    for t in threads:
        t.start()
    for _ in range(KILL_AFTER):
        assert answered.acquire(timeout=60), "the load stalled before the cue"
    cue = time.time()
    stop(victim)
    gone = time.time()  # the victim's process has exited
    for t in threads:
        t.join(timeout=180)
    assert not any(t.is_alive() for t in threads)
    assert len(results) == LOAD_REQUESTS

    victim_addr = f"127.0.0.1:{victim.port}"
    access = [row for row in lb.access() if row["method"] == "POST" and row["t"] >= cue - 1]
    errors = lb.error_log.read_bytes()[log_from:].decode(errors="replace")
    with rec.lock:
        provider = [r["json"] for r in rec.requests[base:] if r["path"] == "/v1/chat/completions"]
    runs = Counter(m["content"].split(":")[0] for body in provider for m in body["messages"] if m["role"] == "user")
    return {
        "victim": victim_addr, "results": results, "cue": cue, "gone": gone,
        "seconds": max(r["end"] for r in results) - t0,
        # Requests the victim may have held when it went: begun before its process was gone.
        "held": [r for r in results if r["start"] < gone and r["end"] > cue],
        "after": [r for r in results if r["start"] >= gone],
        "failed": [r for r in results if r["outcome"] != 200],
        "retried": [row for row in access if len(row["upstreams"]) > 1 and row["status"] == 200],
        # Answers nginx gave for a request the victim had taken when it died.
        "victim_failed": sum(1 for row in access if row["status"] != 200 and row["upstreams"][-1] == victim_addr),
        "marked_down": errors.count("upstream server temporarily disabled"),
        "answered_by": Counter(row["upstreams"][-1] for row in access if row["t"] > gone + 0.5 and row["status"] == 200),
        "provider_twice": sum(1 for n in runs.values() if n > 1),
    }


def check_originals(cluster) -> tuple[int, list]:
    """Every marker the provider saw, fetched through the balancer as the storing tenant."""
    lb, rec = cluster["lb"], cluster["rec"]
    hashes = seen_hashes(rec)
    # Every load request's marker went up, or its original did: on a loaded machine a
    # compression past the proxy's deadline forwards the original (never worse), and then
    # there is nothing to retrieve. Most must have been compressed for the check to mean much.
    sent = {m["content"] for body in rec.bodies("/v1/chat/completions") for m in body.get("messages", [])
            if m.get("role") == "tool" and isinstance(m.get("content"), str)}
    uncompressed = [i for i in range(LOAD_REQUESTS) if digest(service_log(i)) not in hashes]
    assert all(service_log(i) in sent for i in uncompressed), uncompressed
    assert len(uncompressed) <= LOAD_REQUESTS // 10, uncompressed
    missing = []
    with httpx.Client(timeout=30) as client:
        for h in sorted(hashes):
            got = client.get(f"{lb.url}/v1/retrieve/{h}", headers=TENANT)
            if got.status_code != 200 or digest(got.json()["original_content"]) != h:
                missing.append((h, got.status_code))
    return len(hashes), missing


def report(what: str, run: dict, checked: int, missing: list) -> str:
    failed = run["failed"]
    return (f"\n{what}: {len(run['results'])} requests, {LOAD_CLIENTS} clients, {run['seconds']:.1f} s; "
            f"stopped {run['victim']} after {KILL_AFTER} answers ({run['gone'] - run['cue']:.2f} s to exit); "
            f"in flight then (any replica): {len(run['held'])}; "
            f"failed: {len(failed)} {sorted(r['outcome'] for r in failed)}, "
            f"{run['victim_failed']} of them on the stopped replica by nginx's log; "
            f"started after it was gone: {len(run['after'])}, failed among them: "
            f"{sum(r['outcome'] != 200 for r in run['after'])}; "
            f"nginx retried {len(run['retried'])} on another replica, "
            f"marked a replica down {run['marked_down']}x (again after each fail_timeout); "
            f"answered after: {dict(run['answered_by'])}; provider got a run twice: {run['provider_twice']}; "
            f"markers retrieved {checked - len(missing)} of {checked}")


def alive(cluster) -> list[Replica]:
    return [r for r in cluster["replicas"] if r.proc is not None and r.proc.poll() is None]


def test_a_replica_stopped_under_load_drains_without_a_failed_request(cluster):
    """A redeploy (compose sends SIGTERM): the replica finishes what it holds and nginx
    moves new requests to the others; no client sees an error."""
    live = alive(cluster)
    assert len(live) >= 2
    run = run_load(cluster, live[-1], Replica.stop)
    assert run["failed"] == [], run["failed"]  # first: a failed request also reaches no provider
    checked, missing = check_originals(cluster)
    print(report("drain", run, checked, missing))
    assert missing == [], missing


def test_a_replica_killed_under_load_fails_only_what_it_held_and_loses_no_original(cluster):
    """A crash (SIGKILL): requests the dead replica held fail with 502 (nginx does not resend
    a POST that reached a replica: it may have reached the provider too; docs/deploy.md);
    every request begun after it is gone succeeds, and no original is lost."""
    live = alive(cluster)
    assert len(live) >= 2
    run = run_load(cluster, live[0], Replica.kill)
    checked, missing = check_originals(cluster)
    print(report("kill", run, checked, missing))
    assert [r for r in run["after"] if r["outcome"] != 200] == []
    assert all(r in run["held"] for r in run["failed"]), run["failed"]
    assert all(r["outcome"] == 502 for r in run["failed"])  # an answer, never a hang or a reset
    assert run["victim_failed"] == len(run["failed"])  # each one was on the replica that died
    assert missing == [], missing
    assert run["marked_down"] >= 1  # nginx did mark the dead replica down
    assert run["answered_by"].get(run["victim"], 0) == 0
