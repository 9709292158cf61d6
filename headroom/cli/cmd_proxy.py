"""`headroom proxy`: run the compression proxy (a thin layer over headroom.proxy.serve)."""

from __future__ import annotations

import argparse
import os

from ..modes import OPTIMIZE, PROXY_MODES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "proxy", help="run the compression proxy for OpenAI and Anthropic clients",
        description="Run an HTTP proxy that compresses what agents send to OpenAI (Chat Completions, "
                    "Responses) and Anthropic (Messages). Point OPENAI_BASE_URL at http://HOST:PORT/v1 and "
                    "ANTHROPIC_BASE_URL at http://HOST:PORT.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8787, help="port to listen on (default: 8787)")
    p.add_argument("--openai-api-url", default="https://api.openai.com", help="OpenAI upstream base URL")
    p.add_argument("--anthropic-api-url", default="https://api.anthropic.com", help="Anthropic upstream base URL")
    p.add_argument("--gemini-api-url", default="https://generativelanguage.googleapis.com",
                   help="Google Gemini upstream base URL (routes /v1beta/models/...)")
    p.add_argument("--adapter", action="append", default=[], metavar="MODULE",
                   help="register a wire-format adapter module (importable name; repeatable): its PROXY_ROUTES "
                        "are served like the shipped providers' (docs/architecture.md, formats/)")
    p.add_argument("--upstream", action="append", default=[], metavar="PROVIDER=URL",
                   help="upstream base URL of a provider (repeatable); default: its adapter's UPSTREAM_URL")
    p.add_argument("--mode", choices=PROXY_MODES, default=OPTIMIZE,
                   help="optimize: forward compressed; audit: measure only, forward the original; "
                        "passthrough: touch nothing (default: optimize)")
    p.add_argument("--no-ccr-inject-tool", action="store_true",
                   help="do not add the headroom_retrieve tool (nor answer its calls) when requests carry markers")
    p.add_argument("--ccr-backend", choices=["memory", "sqlite", "redis"], default="sqlite",
                   help="where originals are kept for retrieval (default: sqlite, survives restarts)")
    p.add_argument("--ccr-path", default="headroom_ccr.sqlite3", help="SQLite file for --ccr-backend sqlite")
    p.add_argument("--redis-url", default="redis://127.0.0.1:6379/0", help="Redis URL for --ccr-backend redis")
    p.add_argument("--max-body-mb", type=float, default=64.0, help="largest request body accepted, in MB (default: 64)")
    p.add_argument("--llmlingua", action="store_true", help="compress prose with LLMLingua-2 (needs the ml extra)")
    p.add_argument("--llmlingua-device", choices=["auto", "cpu", "cuda", "mps"], default="auto",
                   help="device for LLMLingua-2 (default: auto)")
    p.add_argument("--llmlingua-model-path", default=None, help="local LLMLingua-2 checkpoint directory")
    p.add_argument("--admin-token", default=os.environ.get("HEADROOM_ADMIN_TOKEN"),
                   help="let non-loopback clients use /stats, /metrics, /v1/retrieve*, /v1/feedback* when they send "
                        "it (Authorization: Bearer or x-headroom-admin-token); default: $HEADROOM_ADMIN_TOKEN")
    p.add_argument("--allowed-host", action="append", default=[], metavar="HOST",
                   help="extra Host header value to accept (repeatable; loopback names and --host always are)")
    p.add_argument("--metrics-db", default="headroom.db",
                   help="per-request metrics file (SQLite; .jsonl for JSON Lines; default: headroom.db)")
    p.add_argument("--no-metrics", action="store_true", help="do not write per-request metrics rows")
    p.add_argument("--compression-timeout", type=float, default=10.0,
                   help="seconds before a request is forwarded uncompressed (default: 10)")
    p.add_argument("--upstream-timeout", type=float, default=600.0, metavar="S",
                   help="seconds to wait for the upstream's answer, and between streamed chunks; past it: 504 "
                        "(default: 600)")
    p.add_argument("--upstream-connect-timeout", type=float, default=10.0, metavar="S",
                   help="seconds to wait for a connection to the upstream (default: 10)")
    p.add_argument("--log-level", choices=["debug", "info", "warning", "error"], default="info")
    p.add_argument("--cache-optimizer", action="store_true",
                   help="add Anthropic cache_control breakpoints on the stable prefix (sessions by "
                        "x-headroom-session-id, else by prefix), as HeadroomClient(cache_optimizer=True)")
    p.add_argument("--log-bodies", action="store_true", help="log request bodies at debug level (they hold user data)")
    p.add_argument("--no-toin", action="store_true",
                   help="do not learn tool-output patterns (TOIN) nor steer compression with them")
    p.add_argument("--workers", default="1", metavar="N|auto",
                   help="processes serving the port; auto: one per usable core (default: 1). They share the CCR "
                        "store, TOIN, metrics and /stats")
    p.add_argument("--drain-timeout", type=float, default=30.0, metavar="S",
                   help="on shutdown, seconds in-flight requests and streams get to finish (default: 30)")
    p.add_argument("--drain-delay", type=float, default=0.0, metavar="S",
                   help="after SIGTERM, keep serving S seconds with 'Connection: close' and /health 503 before "
                        "shutting down, for replicas behind a balancer (more than its keep-alive timeout; "
                        "default: 0)")
    p.set_defaults(func=run)


def parse_workers(value: str) -> int:
    from ..proxy.workers import usable_cores

    if value.strip().lower() == "auto":
        return usable_cores()
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"--workers takes a number or 'auto', got {value!r}") from None
    if n < 1:
        raise ValueError(f"--workers must be at least 1, got {n}")
    return n


def _provider_url(value: str) -> tuple[str, str]:
    provider, sep, url = value.partition("=")
    if not sep or not provider.strip() or not url.strip():
        raise ValueError(f"--upstream takes PROVIDER=URL, got {value!r}")
    return provider.strip(), url.strip()


def build_configs(args: argparse.Namespace):
    """(ProxyConfig, HeadroomConfig) for the parsed flags."""
    from ..config import CCRConfig, HeadroomConfig, LLMLinguaConfig, ToinConfig
    from ..proxy.config import LOOPBACK_HOSTS, ProxyConfig

    proxy = ProxyConfig(
        host=args.host, port=args.port, openai_api_url=args.openai_api_url, anthropic_api_url=args.anthropic_api_url,
        gemini_api_url=args.gemini_api_url, adapter_modules=tuple(args.adapter),
        upstream_urls=dict(_provider_url(u) for u in args.upstream),
        mode=args.mode, max_body_mb=args.max_body_mb,
        admin_token=args.admin_token or None, allowed_hosts=(*LOOPBACK_HOSTS, *args.allowed_host),
        compression_timeout_s=args.compression_timeout, upstream_read_timeout_s=args.upstream_timeout,
        upstream_connect_timeout_s=args.upstream_connect_timeout, metrics_db=None if args.no_metrics else args.metrics_db,
        log_level=args.log_level, log_bodies=args.log_bodies, cache_optimizer=args.cache_optimizer,
        workers=parse_workers(args.workers), drain_timeout_s=args.drain_timeout,
        drain_delay_s=args.drain_delay,
    )
    ccr = CCRConfig(backend=args.ccr_backend, sqlite_path=args.ccr_path, redis_url=args.redis_url,
                    inject_tool=not args.no_ccr_inject_tool)
    llmlingua = LLMLinguaConfig(enabled=args.llmlingua, device=args.llmlingua_device,
                                model_path=args.llmlingua_model_path)
    return proxy, HeadroomConfig(ccr=ccr, llmlingua=llmlingua, toin=ToinConfig(enabled=not args.no_toin))


def run(args: argparse.Namespace) -> int:
    from ..proxy import serve
    from ..proxy.startup import StartupError, banner, preflight, settings_error

    try:
        proxy, headroom = build_configs(args)
    except ValueError as exc:  # pydantic's errors are several lines: one, naming the setting
        raise ValueError(settings_error(exc)) from None
    try:
        preflight(proxy, headroom)
    except StartupError as exc:
        raise ValueError(str(exc)) from None
    print(banner(proxy, headroom), flush=True)
    serve(proxy, headroom)
    return 0
