"""How each agent is pointed at the proxy (headroom/wrap/agents.py) and how the CLI reads
what follows its options."""

from __future__ import annotations

import json

import pytest

from headroom.cli.cmd_wrap import split_command

tomllib = pytest.importorskip("tomllib")  # Python 3.11+
from headroom.wrap import KNOWN_AGENTS, configure

URL = "http://127.0.0.1:41234"


def test_generic_command_gets_both_base_urls():
    launch = configure(None, ["python", "agent.py"], URL)
    assert launch.argv == ["python", "agent.py"]
    assert launch.env == {"OPENAI_BASE_URL": URL + "/v1", "ANTHROPIC_BASE_URL": URL}


def test_claude_is_pointed_by_environment_and_its_arguments_pass_through():
    launch = configure("claude", ["-p", "hi"], URL)
    assert launch.env == {"ANTHROPIC_BASE_URL": URL}
    assert launch.argv == ["claude", "-p", "hi"]


def test_claude_without_truncation_raises_its_limits_through_env_and_a_settings_layer():
    launch = configure("claude", ["-p", "hi"], URL, no_agent_truncation=True)
    assert int(launch.env["BASH_MAX_OUTPUT_LENGTH"]) == 150_000
    assert int(launch.env["MAX_MCP_OUTPUT_TOKENS"]) > 25_000
    i = launch.argv.index("--settings")
    assert json.loads(launch.argv[i + 1]) == {"bashOutputMaxChars": 128_000}
    assert launch.argv[-2:] == ["-p", "hi"]


@pytest.mark.parametrize("no_trunc", [False, True])
def test_codex_overrides_are_toml_and_select_a_responses_provider_without_websockets(no_trunc):
    launch = configure("codex", ["exec", "x"], URL, no_agent_truncation=no_trunc, environ={"OPENAI_API_KEY": "k"})
    assert launch.env == {}
    assert launch.argv[0] == "codex" and launch.argv[-2:] == ["exec", "x"]
    overrides = [launch.argv[i + 1] for i, a in enumerate(launch.argv) if a == "-c"]
    merged: dict = {}
    for o in overrides:  # each -c is one TOML assignment, as Codex parses it
        key, _, value = o.partition("=")
        merged[key] = tomllib.loads(f"v = {value}")["v"]
    assert merged["model_provider"] == "headroom"
    assert merged["model_providers.headroom.base_url"] == URL + "/v1"
    assert merged["model_providers.headroom.wire_api"] == "responses"
    assert merged["model_providers.headroom.supports_websockets"] is False
    assert merged["model_providers.headroom.env_key"] == "OPENAI_API_KEY"
    assert ("tool_output_token_limit" in merged) == no_trunc


def test_codex_says_when_its_key_is_missing():
    assert any("OPENAI_API_KEY" in n for n in configure("codex", [], URL, environ={}).notes)


def test_aider_gets_its_own_and_litellms_variables():
    env = configure("aider", [], URL).env
    assert env["AIDER_OPENAI_API_BASE"] == URL + "/v1"
    assert env["ANTHROPIC_API_BASE"] == URL


def test_opencode_config_by_env_keeps_what_the_user_set():
    user = {"model": "anthropic/claude-sonnet-4-5", "provider": {"anthropic": {"options": {"timeout": 5}}}}
    launch = configure("opencode", [], URL, environ={"OPENCODE_CONFIG_CONTENT": json.dumps(user)})
    config = json.loads(launch.env["OPENCODE_CONFIG_CONTENT"])
    assert config["model"] == user["model"]
    assert config["provider"]["anthropic"]["options"] == {"timeout": 5, "baseURL": URL + "/v1"}
    assert config["provider"]["openai"]["options"]["baseURL"] == URL + "/v1"
    with pytest.raises(ValueError, match="OPENCODE_CONFIG_CONTENT"):
        configure("opencode", [], URL, environ={"OPENCODE_CONFIG_CONTENT": "{not json"})


def test_opencode_without_truncation_raises_its_tool_output_limits():
    config = json.loads(configure("opencode", [], URL, no_agent_truncation=True).env["OPENCODE_CONFIG_CONTENT"])
    assert config["tool_output"]["max_bytes"] > 50 * 1024 and config["tool_output"]["max_lines"] > 2000
    assert "tool_output" not in json.loads(configure("opencode", [], URL).env["OPENCODE_CONFIG_CONTENT"])


@pytest.mark.parametrize("agent", ["aider", None])
def test_agents_without_output_limit_settings_say_so(agent):
    launch = configure(agent, ["x"], URL, no_agent_truncation=True)
    assert any("nothing raised" in n for n in launch.notes)


def test_unknown_agent_is_refused():
    with pytest.raises(ValueError, match="unknown agent"):
        configure("vim", [], URL)


@pytest.mark.parametrize("words,expected", [
    (["claude"], ("claude", [])),
    (["claude", "--", "-p", "hi"], ("claude", ["-p", "hi"])),
    (["claude", "-p", "hi"], ("claude", ["-p", "hi"])),
    (["codex", "--", "exec", "--", "x"], ("codex", ["exec", "--", "x"])),
    (["--", "python", "-m", "agent"], (None, ["python", "-m", "agent"])),
])
def test_split_command(words, expected):
    assert split_command(words) == expected


@pytest.mark.parametrize("words", [[], ["--"], ["vim"]])
def test_split_command_refuses(words):
    with pytest.raises(ValueError):
        split_command(words)


def test_every_known_agent_has_a_launch():
    for agent in KNOWN_AGENTS:
        assert configure(agent, [], URL).argv[0] == agent
