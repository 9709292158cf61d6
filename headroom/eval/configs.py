"""The configurations the harness compares.

Each is a named :class:`HeadroomConfig` recipe. Optional parts (an LLMLingua-2
checkpoint, the embedding model, a transform another module provides) are checked up
front by building the pipeline once; a configuration that cannot run is reported as
skipped with the reason, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..config import CCRConfig, ContextConfig, HeadroomConfig, LLMLinguaConfig, RelevanceConfig


@dataclass(frozen=True)
class EvalOptions:
    device: str = "cpu"
    llmlingua_model: str | None = None


@dataclass(frozen=True)
class EvalConfig:
    name: str
    description: str
    build: Callable[[EvalOptions], HeadroomConfig]
    # Why this config cannot run with these options (checked before building), or None.
    precondition: Callable[[EvalOptions], str | None] = field(default=lambda o: None)
    # (config, store) -> Pipeline when this configuration is not the default pipeline
    # (negative controls); None uses the runner's factory.
    pipeline: Callable[..., Any] | None = None
    # A qualifier shown next to the status (e.g. "untrained"), or None.
    label: Callable[[EvalOptions], str | None] = field(default=lambda o: None)


def _deterministic(o: EvalOptions) -> HeadroomConfig:
    return HeadroomConfig()


def _llmlingua(o: EvalOptions) -> HeadroomConfig:
    return HeadroomConfig(llmlingua=LLMLinguaConfig(enabled=True, model_path=o.llmlingua_model, device=o.device))


def _relevance(o: EvalOptions) -> HeadroomConfig:
    return HeadroomConfig(relevance=RelevanceConfig(mode="hybrid", device=o.device))


def _intelligent(o: EvalOptions) -> HeadroomConfig:
    return HeadroomConfig(context=ContextConfig(strategy="intelligent"))


def _no_ccr(o: EvalOptions) -> HeadroomConfig:
    return HeadroomConfig(ccr=CCRConfig(enabled=False))


def _llmlingua_label(o: EvalOptions) -> str | None:
    """"untrained" for the random test checkpoints headroom.ml.testing builds: their
    numbers prove the path runs, not what LLMLingua-2 keeps."""
    import json
    from pathlib import Path

    try:
        config = json.loads((Path(o.llmlingua_model or "") / "config.json").read_text())
    except (OSError, ValueError):
        return None
    return "untrained" if config.get("headroom_untrained") else None


def _control(name: str) -> Callable[..., Any]:
    def factory(config: HeadroomConfig, store: Any) -> Any:
        from . import controls  # imports the pipeline; only when a control runs

        return controls.control_factory(getattr(controls, name))(config, store)

    return factory


def _needs_llmlingua_model(o: EvalOptions) -> str | None:
    return None if o.llmlingua_model else "no LLMLingua-2 checkpoint given (--llmlingua-model DIR)"


CONFIGS: dict[str, EvalConfig] = {c.name: c for c in (
    EvalConfig("deterministic", "default pipeline: router + deterministic compressors, BM25, RollingWindow",
               _deterministic),
    EvalConfig("llmlingua2", "deterministic + LLMLingua-2 for prose", _llmlingua, _needs_llmlingua_model,
               label=_llmlingua_label),
    EvalConfig("relevance_hybrid", "deterministic + hybrid BM25/embedding relevance (MiniLM)", _relevance),
    EvalConfig("intelligent_context", "deterministic + IntelligentContext instead of RollingWindow", _intelligent),
    # Not a default: it shows what CCR buys (lossy results are discarded without a store).
    EvalConfig("no_ccr", "deterministic with CCR off: only lossless compression applies", _no_ccr),
    # Negative controls: the gate must fail them (see headroom/eval/controls.py).
    EvalConfig("bare_marker", "NEGATIVE CONTROL: every tool output replaced by its marker (original stored)",
               _deterministic, pipeline=_control("BareMarker")),
    EvalConfig("drop_rare", "NEGATIVE CONTROL: keeps a sample of the most frequent rows/lines, drops rare ones "
               "(original stored)", _deterministic, pipeline=_control("DropRare")),
)}
CONTROLS = ("bare_marker", "drop_rare")

DEFAULT_CONFIGS = ("deterministic", "llmlingua2", "relevance_hybrid", "intelligent_context")


def resolve_device(device: str) -> str:
    """``auto`` becomes ``cuda`` when torch sees a GPU, else ``cpu`` (torch imported lazily)."""
    if device != "auto":
        return device
    try:
        import torch
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


def with_context_budget(config: HeadroomConfig, budget: int | None) -> HeadroomConfig:
    """The same config with an explicit context budget (long-session scenarios)."""
    if budget is None:
        return config
    return config.model_copy(update={"context": config.context.model_copy(update={"max_tokens": budget})})
