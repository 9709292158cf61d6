"""deploy/: the compose file, nginx config and Dockerfile agree with each other and with the CLI."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import yaml

from headroom.cli import build_parser
from headroom.cli.cmd_proxy import build_configs

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_compose_runs_redis_replicas_and_a_balancer():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    replicas = [n for n, s in services.items() if s.get("build")]
    assert "redis" in services and "lb" in services and len(replicas) >= 2
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert set(re.findall(r"server (\w+):8787", nginx)) == set(replicas)
    assert "proxy_buffering off" in nginx


def test_the_image_command_is_a_valid_proxy_command_line():
    text = (DEPLOY / "Dockerfile").read_text()
    cmd = json.loads(re.search(r"^CMD (\[.*?\])", text, re.DOTALL | re.MULTILINE).group(1).replace("\\\n", ""))  # exec form
    assert cmd[:2] == ["headroom", "proxy"]
    proxy, hc = build_configs(build_parser().parse_args(cmd[1:]))
    assert hc.ccr.backend == "redis" and hc.ccr.redis_url.startswith("redis://redis:")
    nginx_host = re.search(r"proxy_set_header Host (\S+);", (DEPLOY / "nginx.conf").read_text()).group(1)
    assert proxy.host_allowed(nginx_host) and proxy.host == "0.0.0.0"
    assert shlex.join(cmd)


def test_the_balancer_drops_idle_connections_before_a_replica_does():
    """nginx must not reuse an upstream connection the replica is about to close: a POST
    sent on it would fail with 502 and is not resent (deploy/nginx.conf). The replica's
    idle keep-alive is uvicorn's default, which headroom.proxy.server does not change."""
    import inspect

    import uvicorn

    from headroom.proxy import server

    nginx = (DEPLOY / "nginx.conf").read_text()
    upstream = re.search(r"upstream \w+ \{(.*?)\}", nginx, re.DOTALL).group(1)
    idle = float(re.search(r"keepalive_timeout (\d+)s;", upstream).group(1))
    assert "timeout_keep_alive" not in inspect.getsource(server.serve)
    assert idle < uvicorn.Config(app=None).timeout_keep_alive
