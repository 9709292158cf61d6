"""Optional ML models: registry, devices, lazy loading (no heavy imports at module top)."""

from .registry import (
    MODELS,
    DeviceUnavailable,
    ModelLocation,
    ModelNotFound,
    get_model,
    resolve,
    resolve_device,
    status,
    unload,
)

__all__ = [
    "MODELS",
    "DeviceUnavailable",
    "ModelLocation",
    "ModelNotFound",
    "get_model",
    "resolve",
    "resolve_device",
    "status",
    "unload",
]
