"""headroom: context compression for AI agents.

>>> from headroom import compress
>>> result = compress(messages, model="gpt-4o")
>>> result.messages, result.tokens_saved, result.ccr_hashes
"""

from .api import CompressResult, compress, default_pipeline, default_store, retrieve
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

__version__ = "0.1.0"

__all__ = [
    "CCRConfig",
    "CompressResult",
    "CompressionStore",
    "ContextConfig",
    "HeadroomConfig",
    "ImageConfig",
    "LLMLinguaConfig",
    "Pipeline",
    "RelevanceConfig",
    "RouterConfig",
    "SmartCrusherConfig",
    "__version__",
    "compress",
    "default_pipeline",
    "default_store",
    "retrieve",
]
