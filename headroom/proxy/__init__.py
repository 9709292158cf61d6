"""The headroom HTTP proxy: OpenAI Chat Completions, Responses and Anthropic Messages.

>>> from headroom.proxy import ProxyConfig, create_app
>>> app = create_app(ProxyConfig(port=8787))   # serve with uvicorn, or `headroom proxy`
"""

from .app import create_app, default_headroom_config
from .config import ProxyConfig
from .server import serve

__all__ = ["ProxyConfig", "create_app", "default_headroom_config", "serve"]
