"""headroom: context compression for AI agents.

>>> from headroom import compress
>>> result = compress(messages, model="gpt-4o")
>>> result.messages, result.tokens_saved, result.ccr_hashes
"""

from .api import (
    CompressResult,
    QueryResult,
    RetrievalNotFound,
    compress,
    default_pipeline,
    default_store,
    retrieve,
)
from .ccr import CompressionStore
from .config import (
    CCRConfig,
    ContextConfig,
    HeadroomConfig,
    ImageConfig,
    LLMLinguaConfig,
    RelevanceConfig,
    RouterConfig,
    SmartCrusherConfig,
)
from .pipeline import Pipeline
from .version import __version__

__all__ = [
    "CCRConfig",
    "CompressResult",
    "CompressionStore",
    "ContextConfig",
    "HeadroomConfig",
    "ImageConfig",
    "LLMLinguaConfig",
    "Pipeline",
    "QueryResult",
    "RelevanceConfig",
    "RetrievalNotFound",
    "RouterConfig",
    "SmartCrusherConfig",
    "__version__",
    "compress",
    "default_pipeline",
    "default_store",
    "retrieve",
]

# Imported on first use, so `import headroom` stays light (the SDK wrappers pull in more).
_LAZY = {
    "HeadroomClient": ".client",
    "OpenAIProvider": ".providers",
    "AnthropicProvider": ".providers",
    "GoogleProvider": ".providers",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
