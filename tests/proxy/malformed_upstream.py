"""Hypothesis strategies for upstream answers of the wrong shape, for all three APIs.

An answer starts as a turn of the right shape that calls tools (``headroom_retrieve``
above all, so the proxy's CCR loop reads it), with call fields drawn from good and bad
values (missing or non-string ids and names, arguments that are not JSON or not an
object, a hash of the wrong type, duplicate ids); then a few random edits replace or
delete values anywhere in it (empty or non-list ``choices``/``output``/``content``,
unknown block types, a ``null`` where an object belongs). A streamed answer is the same
turn as SSE events, whose data may be edited the same way, interleaved with lines that
are not JSON, and cut at any byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.proxy.proxy_fakes import anthropic_stream, chat_stream, responses_stream

CHAT, RESPONSES, MESSAGES = "/v1/chat/completions", "/v1/responses", "/v1/messages"
APIS = (CHAT, RESPONSES, MESSAGES)

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=6),
                    st.sampled_from(["", "tool_use", "function_call", "message", "text", "image", "server_tool_use"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["type", "id", "name", "text", "content", "x"]),
                                                 inner, max_size=3)), max_leaves=6)


ABSENT = "<absent>"  # a call field left out altogether (the key is dropped, not set to null)


def _drop_absent(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _drop_absent(v) for k, v in obj.items() if v != ABSENT}
    if isinstance(obj, list):
        return [_drop_absent(v) for v in obj]
    return obj


def call_strategy(hash_: str) -> st.SearchStrategy[tuple[Any, Any, Any]]:
    """(id, name, arguments) of one tool call; arguments are the wire string (or not a string)."""
    ids = st.one_of(st.sampled_from(["call_1", "call_2", "dup", "dup", "", ABSENT]), st.none(), st.integers(0, 3))
    names = st.one_of(st.just("headroom_retrieve"), st.just("headroom_retrieve"), st.just("get_weather"),
                      st.just(""), st.just(ABSENT), st.none(), st.integers(0, 3))
    hashes = st.one_of(st.just(hash_), st.just("0" * 24), st.integers(), st.none(), st.lists(st.just(hash_), max_size=2),
                       st.text(max_size=8), st.dictionaries(st.just("h"), st.just(hash_)))
    args = st.one_of(
        hashes.map(lambda h: json.dumps({"hash": h})),
        st.tuples(hashes, st.one_of(st.none(), st.text(max_size=5), st.integers())).map(
            lambda hq: json.dumps({"hash": hq[0], "query": hq[1]})),
        st.sampled_from(["", "{", "not json", "[1, 2]", "7", "null", '"hash"', '{"hash": ']),
        json_values.map(json.dumps),
        json_values,  # not even a string
    )
    return st.tuples(ids, names, args)


def _as_input(arguments: Any) -> Any:
    """Anthropic sends arguments as a parsed ``input`` object (or, malformed, anything)."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def turn(api: str, text: str | None, calls: list[tuple[Any, Any, Any]]) -> dict[str, Any]:
    """A non-streaming answer of the right overall shape holding ``calls`` as they are."""
    return _drop_absent(_turn(api, text, calls))


def _turn(api: str, text: str | None, calls: list[tuple[Any, Any, Any]]) -> dict[str, Any]:
    if api == CHAT:
        msg: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            msg["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]
        return {"id": "c", "object": "chat.completion", "model": "m",
                "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 2}}
    if api == RESPONSES:
        output: list[Any] = []
        if text is not None:
            output.append({"type": "message", "id": "m", "role": "assistant", "content": [{"type": "output_text", "text": text}]})
        output += [{"type": "function_call", "id": f"fc_{k}", "call_id": i, "name": n, "arguments": a}
                   for k, (i, n, a) in enumerate(calls)]
        return {"id": "r", "object": "response", "status": "completed", "model": "m", "output": output,
                "usage": {"input_tokens": 3, "output_tokens": 2}}
    content: list[Any] = [{"type": "text", "text": text}] if text is not None else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": _as_input(a)} for i, n, a in calls]
    return {"id": "msg", "type": "message", "role": "assistant", "model": "m", "content": content,
            "stop_reason": "tool_use" if calls else "end_turn", "usage": {"input_tokens": 3, "output_tokens": 2}}


def events(api: str, text: str | None, calls: list[tuple[Any, Any, Any]]) -> list[bytes]:
    """The same turn as SSE events (the fakes' builders; arguments forced to strings there)."""
    wire = [(i, n, a if isinstance(a, str) else json.dumps(a)) for i, n, a in calls]
    build = {CHAT: chat_stream, RESPONSES: responses_stream, MESSAGES: anthropic_stream}[api]
    out = build("m", [text] if text else [], wire)
    return [e if ABSENT.encode() not in e else _reencode(e, _drop_absent(json.loads(_data(e)))) for e in out]


def _data(event: bytes) -> bytes:
    return next((ln for ln in event.split(b"\n") if ln.startswith(b"data: ")), b"data: ")[6:]


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for k, v in enumerate(obj):
            out += _paths(v, (*prefix, k))
    return out


@st.composite
def edited(draw: st.DrawFn, obj: Any, max_edits: int = 3) -> Any:
    """``obj`` with up to ``max_edits`` values replaced by random JSON, or deleted."""
    obj = json.loads(json.dumps(obj))
    # Most answers keep their shape, so what the loop does with bad call fields is reached.
    for _ in range(draw(st.sampled_from([0, 0, 0, *range(1, max_edits + 1)]))):
        paths = _paths(obj)
        path = draw(st.sampled_from(paths))
        if not path:
            obj = draw(json_values)
            continue
        parent = obj
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(st.one_of(json_values, st.just([]), st.just({}), st.just("")))
    return obj


@dataclass
class Answer:
    """One scripted upstream answer: a status, bytes, and whether it is an event stream."""

    status: int
    body: bytes
    sse: bool
    abort: bool = False  # the connection breaks after the body (a read error, not a clean end)


def _reencode(event: bytes, data: Any) -> bytes:
    head = b"".join(line + b"\n" for line in event.split(b"\n") if line.startswith(b"event:"))
    return head + b"data: " + json.dumps(data).encode() + b"\n\n"


@st.composite
def answers(draw: st.DrawFn, api: str, stream: bool, hash_: str) -> Answer:
    calls = draw(st.lists(call_strategy(hash_), max_size=3))
    text = draw(st.one_of(st.none(), st.just("hello")))
    # No 500 among them: any 500 the client sees is then the proxy's own.
    status = draw(st.sampled_from([200] * 12 + [400, 429, 503]))
    if not stream:
        body = json.dumps(draw(edited(turn(api, text, calls)))).encode()
        kind = draw(st.sampled_from(["json"] * 12 + ["truncated", "not json", "empty"]))
        if kind == "truncated":
            body = body[: draw(st.integers(0, max(0, len(body) - 1)))]
        elif kind == "not json":
            body = b"<html>bad gateway</html>"
        elif kind == "empty":
            body = b""
        return Answer(status, body, sse=False)
    out: list[bytes] = []
    for event in events(api, text, calls):
        if draw(st.integers(0, 9)) == 0:
            data_line = _data(event)
            try:
                parsed = json.loads(data_line)
            except ValueError:
                parsed = data_line.decode()
            event = _reencode(event, draw(edited(parsed, 2)))
        out.append(event)
        if draw(st.integers(0, 19)) == 0:
            out.append(draw(st.sampled_from([b"data: {not json\n\n", b"data: 7\n\n", b": comment\n\n",
                                             b"event: mystery\ndata: {}\n\n", b"data: [DONE]\n\n", b"\n\n"])))
    body = b"".join(out)
    if draw(st.integers(0, 3)) == 0:  # a connection that ends mid-event
        body = body[: draw(st.integers(0, len(body)))]
    return Answer(status, body, sse=True, abort=draw(st.integers(0, 7)) == 0)
