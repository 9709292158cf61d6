"""Running the app under uvicorn (what ``headroom proxy`` calls)."""

from __future__ import annotations

from ..config import HeadroomConfig
from .config import ProxyConfig
from .process import setup_process


def serve(proxy_config: ProxyConfig, headroom_config: HeadroomConfig | None = None) -> None:
    import uvicorn

    from ..image.ocr_service import for_proxy
    from .app import create_app, default_headroom_config

    setup_process(proxy_config)
    options = {"host": proxy_config.host, "port": proxy_config.port, "log_level": proxy_config.log_level,
               "access_log": proxy_config.log_level == "debug", "server_header": False,
               # In-flight requests and streams finish before the process exits.
               "timeout_graceful_shutdown": proxy_config.drain_timeout_s}
    headroom_config = headroom_config or default_headroom_config()
    ocr = for_proxy(headroom_config)  # one OCR process for the whole proxy (docs/proxy.md)
    try:
        if proxy_config.workers > 1:
            from .workers import serve_workers

            serve_workers(proxy_config, headroom_config, options)
            return
        uvicorn.run(create_app(proxy_config, headroom_config), **options)
    finally:
        if ocr is not None:
            ocr.stop()
