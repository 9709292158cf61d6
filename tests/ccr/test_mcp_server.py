"""`headroom mcp serve` end to end: a real subprocess spoken to with the mcp stdio client."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from headroom.ccr import CompressionStore, SQLiteBackend
from headroom.ccr.store import query_digest
from headroom.cli import build_parser
from headroom.config import CCRConfig
from headroom.toin import SQLiteToinBackend

REPO = Path(__file__).resolve().parents[2]
ORIGINAL = json.dumps(
    [{"id": i, "host": f"web-{i}.prod", "status": "down" if i == 17 else "up"} for i in range(60)]
)


def server_params(*args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "headroom", "mcp", "serve", *args], cwd=str(REPO)
    )


def text_of(result) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def call_session(params: StdioServerParameters, calls: list[tuple[str, dict]]):
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        results = [await session.call_tool(name, args) for name, args in calls]
    return tools, results


async def test_mcp_serve_retrieves_from_the_proxys_sqlite_store(tmp_path):
    db = tmp_path / "ccr.sqlite3"
    store = CompressionStore(SQLiteBackend(db))
    h = store.store(ORIGINAL, tool_name="list_hosts", compressed="[…]")
    store.close()

    tools, (full, matches, unknown, invalid) = await call_session(
        server_params("--ccr-db", str(db)),
        [
            ("headroom_retrieve", {"hash": h}),
            ("headroom_retrieve", {"hash": h, "query": "web-17.prod"}),
            ("headroom_retrieve", {"hash": "0123456789abcdef01234567"}),
            ("headroom_retrieve", {"hash": "not-a-hash"}),
        ],
    )

    (tool,) = tools.tools
    assert tool.name == "headroom_retrieve"
    schema = tool.input_schema if hasattr(tool, "input_schema") else tool.inputSchema
    assert schema["required"] == ["hash"] and set(schema["properties"]) == {"hash", "query"}

    assert not _is_error(full) and text_of(full) == ORIGINAL  # byte for byte
    assert not _is_error(matches)
    assert text_of(matches) == json.dumps({"id": 17, "host": "web-17.prod", "status": "down"})
    assert _is_error(unknown) and "unknown or expired hash=0123456789abcdef01234567" in text_of(
        unknown
    )
    assert _is_error(invalid) and "invalid hash" in text_of(invalid)

    # The retrievals count on the shared store's entry, and TOIN's file next to it counts
    # them for the proxy's per-tool retrieval feedback.
    reopened = CompressionStore(SQLiteBackend(db))
    assert reopened.get(h).retrieval_count == 2
    reopened.close()
    toin = SQLiteToinBackend(tmp_path / "ccr.toin.sqlite3")
    assert toin.tool_counts(0) == {"list_hosts": {"events": 2, "retrieved": 1}}
    assert set(toin.tool_recent()["list_hosts"]) == {"", query_digest("web-17.prod")}
    toin.close()


@pytest.mark.redis
async def test_mcp_serve_reads_a_shared_redis_store(redis_url):
    store = CompressionStore.from_config(CCRConfig(backend="redis", redis_url=redis_url))
    h = store.store(ORIGINAL, tool_name="list_hosts")
    _, (full,) = await call_session(
        server_params("--ccr-backend", "redis", "--redis-url", redis_url),
        [("headroom_retrieve", {"hash": h})],
    )
    assert text_of(full) == ORIGINAL
    assert store.get(h).retrieval_count == 1


def _is_error(result) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


def test_cli_flags_map_onto_the_store_config(tmp_path):
    from headroom.cli.cmd_mcp import store_config

    args = build_parser().parse_args(["mcp", "serve", "--ccr-db", str(tmp_path / "x.db")])
    cfg = store_config(args)
    assert cfg.backend == "sqlite" and cfg.sqlite_path == str(tmp_path / "x.db")
    args = build_parser().parse_args(
        ["mcp", "serve", "--ccr-backend", "redis", "--redis-url", "redis://h:1/2"]
    )
    cfg = store_config(args)
    assert cfg.backend == "redis" and cfg.redis_url == "redis://h:1/2"


def test_retrieve_text_library_function():
    from headroom.mcp_server import RetrieveError, retrieve_text

    store = CompressionStore()
    h = store.store("a\nb\nneedle_7 here\nc")
    assert retrieve_text(store, h) == "a\nb\nneedle_7 here\nc"
    assert retrieve_text(store, h.upper(), "needle_7") == "needle_7 here"
    with pytest.raises(RetrieveError, match="unknown or expired"):
        retrieve_text(store, "f" * 24)
