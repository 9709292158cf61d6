"""``--drain-delay S``: after SIGTERM a replica keeps serving for S seconds, closing each
connection after its answer and telling /health callers it is draining; then it shuts
down as before (proxy/drain.py). Without it, a balancer's kept-alive connection could be
closed under a POST it had just sent: a 502 nginx does not resend (tests/deploy saw one).
"""

from __future__ import annotations

import signal
import time

import httpx

from tests.servers import ProxyProcess


def _chat(client: httpx.Client, url: str, text: str) -> httpx.Response:
    return client.post(f"{url}/v1/chat/completions", timeout=30,
                       json={"model": "gpt-4o", "messages": [{"role": "user", "content": text}]})


def test_after_sigterm_a_kept_connection_is_answered_then_closed(fake):
    # Two workers: the deploy's way (--workers auto), where uvicorn's supervisor passes the
    # signal to each worker; one process runs the same Server and handler.
    workers = 2
    delay = 2.0
    with ProxyProcess({"openai_api_url": fake.url, "anthropic_api_url": fake.url, "workers": workers,
                       "drain_delay_s": delay}) as proxy:
        with httpx.Client() as kept:  # one kept-alive connection, opened before the signal
            first = _chat(kept, proxy.url, "before")
            assert first.status_code == 200 and first.headers.get("connection") != "close"
            proxy.proc.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            time.sleep(0.5)
            # The same connection: answered (not reset under the request), and closed after.
            during = _chat(kept, proxy.url, "during")
            assert during.status_code == 200, during.text
            assert during.headers["connection"] == "close"
            health = httpx.get(f"{proxy.url}/health", timeout=5)
            assert health.status_code == 503 and health.json()["status"] == "draining"
            assert health.headers["connection"] == "close"
        assert proxy.proc.poll() is None  # still serving inside the delay
        proxy.proc.wait(timeout=30)
        assert time.monotonic() - signalled >= delay - 0.5  # it did wait
        # uvicorn re-raises the signal it caught once it has shut down: a single process
        # ends "killed by SIGTERM", a supervisor of workers exits 0.
        assert proxy.proc.returncode in (0, -signal.SIGTERM)


def test_a_second_sigterm_stops_at_once(fake):
    with ProxyProcess({"openai_api_url": fake.url, "anthropic_api_url": fake.url, "drain_delay_s": 60}) as proxy:
        proxy.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        assert httpx.get(f"{proxy.url}/health", timeout=5).json()["status"] == "draining"
        proxy.proc.send_signal(signal.SIGTERM)
        proxy.proc.wait(timeout=15)  # not the 60 s delay
