"""Proxy settings (``headroom proxy`` flags map one to one onto these fields)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..modes import OPTIMIZE, ProxyMode

Mode = ProxyMode

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


class ProxyConfig(BaseModel):
    """How the proxy listens, where it forwards, and what it does to requests.

    Modes: ``optimize`` compresses and forwards the compressed body; ``audit`` compresses
    to measure (headers, /stats, metrics) but forwards the original; ``passthrough``
    forwards everything untouched.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    host: str = "127.0.0.1"
    port: int = Field(8787, ge=0, le=65535)
    openai_api_url: str = "https://api.openai.com"
    anthropic_api_url: str = "https://api.anthropic.com"
    gemini_api_url: str = "https://generativelanguage.googleapis.com"
    # Base URL per provider (an adapter's PROVIDER) for providers without a field above; a
    # provider named in neither goes to its adapter's UPSTREAM_URL.
    upstream_urls: dict[str, str] = Field(default_factory=dict)
    # Adapter modules (importable names) registered when the app is built, in every
    # worker: a provider that is not shipped is served with no edit to headroom.
    adapter_modules: tuple[str, ...] = ()
    mode: Mode = OPTIMIZE
    max_body_mb: float = Field(64.0, gt=0)
    # Anthropic cache_control breakpoints on the stable prefix (headroom.cache), as
    # HeadroomClient(cache_optimizer=True) does; sessions keyed by x-headroom-session-id.
    cache_optimizer: bool = False
    # Remote (non-loopback) clients may use admin routes only when this is set and sent.
    admin_token: str | None = None
    # Host header allowlist against DNS rebinding; the bind host is always allowed.
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    # Compression runs in a worker thread; past this deadline the original is forwarded.
    compression_timeout_s: float = Field(10.0, gt=0)
    upstream_connect_timeout_s: float = Field(10.0, gt=0)
    # LLM answers (and gaps between streamed chunks) can be slow.
    upstream_read_timeout_s: float = Field(600.0, gt=0)
    upstream_max_connections: int = Field(512, ge=1)
    # Request metrics rows (SQLite, or JSON Lines when the path ends in .jsonl); None = off.
    metrics_db: str | None = "headroom.db"
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    # Request bodies are never logged unless this is set (they hold user data).
    log_bodies: bool = False
    # Processes serving the port (headroom.proxy.workers); they share the CCR store,
    # TOIN, metrics DB and, through ``stats_dir``, the /stats and /metrics counters.
    workers: int = Field(1, ge=1)
    # Where each worker publishes its counters; None with one worker (nothing to share).
    stats_dir: str | None = None
    # On shutdown, in-flight requests and streams get this long to finish.
    drain_timeout_s: float = Field(30.0, gt=0)
    # After SIGTERM, keep serving this long with `Connection: close` and /health 503 before
    # shutting down, so a balancer's kept-alive connections are never closed under a request
    # (proxy/drain.py; docs/deploy.md). 0: shut down at once.
    drain_delay_s: float = Field(0.0, ge=0)

    @property
    def max_body_bytes(self) -> int:
        return int(self.max_body_mb * 1024 * 1024)

    def host_allowed(self, host: str) -> bool:
        return host in self.allowed_hosts or host == self.host or "*" in self.allowed_hosts

    def upstream_for(self, provider: str, default: str | None = None) -> str:
        """The base URL requests of ``provider`` are forwarded to."""
        if provider in self.upstream_urls:
            return self.upstream_urls[provider]
        if provider in _NAMED_URLS:
            return getattr(self, _NAMED_URLS[provider])
        if default:
            return default
        raise ValueError(f"no upstream URL for provider {provider!r}: set upstream_urls[{provider!r}]")


# The providers that had a URL field (and a CLI flag) before URLs came from the adapters.
_NAMED_URLS = {"openai": "openai_api_url", "anthropic": "anthropic_api_url", "google": "gemini_api_url"}
