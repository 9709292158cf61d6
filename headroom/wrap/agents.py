"""How each coding agent is pointed at the proxy: its own environment variables and
command-line flags only, never an edit to the user's files.

Every setting here was checked against the agent itself (docs/agents.md says where and
how): Claude Code 2.1.328's and Codex 0.169.0's binaries, OpenCode's documented
``OPENCODE_CONFIG_CONTENT``, Aider's documented environment variables.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

# Claude Code clamps ``bashOutputMaxChars`` (the characters of a command's output it sends
# inline; past it the model gets a 2 KB preview and a file path) to 4 000-128 000, and caps
# BASH_MAX_OUTPUT_LENGTH (the read-back window when the setting is absent) at 150 000.
CLAUDE_BASH_INLINE_MAX = 128_000
CLAUDE_BASH_READBACK_MAX = 150_000
# MCP tool results and Read tool results are limited in tokens; no upper clamp was found,
# so they are raised to a size no single tool output of a real session reaches.
CLAUDE_TOOL_TOKENS = 1_000_000
# Codex cuts a command's output to a head and tail past ``tool_output_token_limit``.
CODEX_TOOL_OUTPUT_TOKENS = 1_000_000

# OpenCode's own cut (2 000 lines / 50 KB by default), raised through its `tool_output` config.
OPENCODE_TOOL_OUTPUT = {"max_lines": 1_000_000, "max_bytes": 64 * 1024 * 1024}

KNOWN_AGENTS = ("claude", "codex", "aider", "opencode")


@dataclass(frozen=True)
class Launch:
    """What to run: the command line, the environment variables added to the caller's, and
    one line per setting for the user (``headroom wrap --dry-run`` prints them)."""

    argv: list[str]
    env: dict[str, str]
    notes: list[str] = field(default_factory=list)


def openai_base(proxy_url: str) -> str:
    return proxy_url.rstrip("/") + "/v1"


def configure(agent: str | None, args: list[str], proxy_url: str, *, no_agent_truncation: bool = False,
              environ: Mapping[str, str] | None = None) -> Launch:
    """The launch of ``agent`` (or of the command ``args`` when ``agent`` is None) through
    the proxy at ``proxy_url``."""
    environ = environ if environ is not None else {}
    if agent is None:
        return _generic(args, proxy_url, no_agent_truncation)
    try:
        build = _BUILDERS[agent]
    except KeyError:
        raise ValueError(f"unknown agent {agent!r}: wrap one of {', '.join(KNOWN_AGENTS)}, "
                         "or any command with `headroom wrap -- CMD ...`") from None
    return build(args, proxy_url, no_agent_truncation, environ)


def _generic(args: list[str], url: str, no_trunc: bool) -> Launch:
    if not args:
        raise ValueError("nothing to run: give an agent (claude, codex, aider, opencode) or `-- CMD ...`")
    env = {"OPENAI_BASE_URL": openai_base(url), "ANTHROPIC_BASE_URL": url}
    notes = [f"{k}={v}" for k, v in env.items()]
    if no_trunc:
        notes.append("--no-agent-truncation: a generic command has no known output limits; nothing raised")
    return Launch(list(args), env, notes)


def _claude(args: list[str], url: str, no_trunc: bool, environ: Mapping[str, str]) -> Launch:
    env = {"ANTHROPIC_BASE_URL": url}
    argv = ["claude"]
    notes = [f"ANTHROPIC_BASE_URL={url}"]
    if no_trunc:
        limits = {"BASH_MAX_OUTPUT_LENGTH": str(CLAUDE_BASH_READBACK_MAX),
                  "MAX_MCP_OUTPUT_TOKENS": str(CLAUDE_TOOL_TOKENS),
                  "CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS": str(CLAUDE_TOOL_TOKENS)}
        env.update(limits)
        notes += [f"{k}={v}" for k, v in limits.items()]
        # The inline size is a setting, not an environment variable; --settings adds a
        # layer over the user's settings files without touching them.
        settings = json.dumps({"bashOutputMaxChars": CLAUDE_BASH_INLINE_MAX}, separators=(",", ":"))
        argv += ["--settings", settings]
        notes.append(f"--settings {settings} (Claude Code's ceiling: outputs above "
                     f"{CLAUDE_BASH_INLINE_MAX} characters still become a preview and a file path)")
    return Launch(argv + list(args), env, notes)


def _codex(args: list[str], url: str, no_trunc: bool, environ: Mapping[str, str]) -> Launch:
    # Codex ignores OPENAI_BASE_URL for its built-in provider and first tries a WebSocket:
    # a provider of our own, selected by -c overrides (they layer over config.toml).
    overrides = [
        'model_provider="headroom"',
        'model_providers.headroom.name="headroom"',
        f'model_providers.headroom.base_url="{openai_base(url)}"',
        'model_providers.headroom.env_key="OPENAI_API_KEY"',
        'model_providers.headroom.wire_api="responses"',
        "model_providers.headroom.supports_websockets=false",
    ]
    if no_trunc:
        overrides.append(f"tool_output_token_limit={CODEX_TOOL_OUTPUT_TOKENS}")
    argv = ["codex"]
    for o in overrides:
        argv += ["-c", o]
    notes = [f"-c {o}" for o in overrides]
    if "OPENAI_API_KEY" not in environ:
        notes.append("OPENAI_API_KEY is not set: Codex's provider through headroom authenticates with it")
    return Launch(argv + list(args), {}, notes)


def _aider(args: list[str], url: str, no_trunc: bool, environ: Mapping[str, str]) -> Launch:
    # AIDER_OPENAI_API_BASE is --openai-api-base; Anthropic models go through LiteLLM, which
    # reads ANTHROPIC_API_BASE (ANTHROPIC_BASE_URL for the Anthropic SDK itself).
    env = {"AIDER_OPENAI_API_BASE": openai_base(url), "OPENAI_API_BASE": openai_base(url),
           "ANTHROPIC_API_BASE": url, "ANTHROPIC_BASE_URL": url}
    notes = [f"{k}={v}" for k, v in env.items()]
    if no_trunc:
        notes.append("--no-agent-truncation: aider has no setting for the size of a command's output; nothing raised")
    return Launch(["aider", *args], env, notes)


def _opencode(args: list[str], url: str, no_trunc: bool, environ: Mapping[str, str]) -> Launch:
    # OPENCODE_CONFIG_CONTENT is OpenCode's inline configuration, merged over its files;
    # a value the user already set is kept and only the providers' baseURL is added.
    try:
        config = json.loads(environ.get("OPENCODE_CONFIG_CONTENT") or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"OPENCODE_CONFIG_CONTENT is not JSON ({exc}); fix or unset it") from None
    if not isinstance(config, dict):
        raise ValueError("OPENCODE_CONFIG_CONTENT is not a JSON object; fix or unset it")  # noqa: TRY004 - the CLI reports ValueError as a user error
    providers = config.setdefault("provider", {})
    for name in ("anthropic", "openai"):
        providers.setdefault(name, {}).setdefault("options", {})["baseURL"] = openai_base(url)
    if no_trunc:
        # OpenCode cuts tool output at 2 000 lines / 50 KB unless its `tool_output` config
        # (added in April 2026, opencode PR 23770) says otherwise.
        config.setdefault("tool_output", {}).update(OPENCODE_TOOL_OUTPUT)
    content = json.dumps(config, separators=(",", ":"))
    notes = [f"OPENCODE_CONFIG_CONTENT={content}"]
    return Launch(["opencode", *args], {"OPENCODE_CONFIG_CONTENT": content}, notes)


_BUILDERS = {"claude": _claude, "codex": _codex, "aider": _aider, "opencode": _opencode}
