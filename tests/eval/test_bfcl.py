"""BFCL data loading and answer checking, on files in the package's own format."""

from __future__ import annotations

import json

import httpx
import pytest

from headroom.eval.bfcl import call_matches, find_data_dir, load_items, openai_tools
from headroom.eval.llm import LLMOptions, run_llm

QUESTION = {"id": "simple_python_0", "question": [[{"role": "user", "content": "Area of a triangle, base 10, height 5?"}]],
            "function": [{"name": "geometry.triangle_area", "description": "Area.", "parameters": {
                "type": "dict", "properties": {"base": {"type": "integer"}, "height": {"type": "float"},
                                               "unit": {"type": "string"}}, "required": ["base", "height"]}}]}
ANSWER = {"id": "simple_python_0", "ground_truth": [{"geometry.triangle_area": {"base": [10], "height": [5],
                                                                               "unit": ["units", ""]}}]}


@pytest.fixture
def data_dir(tmp_path):
    (tmp_path / "possible_answer").mkdir()
    (tmp_path / "BFCL_v4_simple_python.json").write_text(json.dumps(QUESTION) + "\n")
    (tmp_path / "possible_answer" / "BFCL_v4_simple_python.json").write_text(json.dumps(ANSWER) + "\n")
    return tmp_path


def _call(name, **args):
    return [{"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]


def test_loads_items_and_converts_schemas(data_dir):
    assert find_data_dir(data_dir) == data_dir
    assert find_data_dir(data_dir / "missing") is None
    [item] = load_items(data_dir)
    assert item.messages[-1]["content"].startswith("Area")
    [tool] = openai_tools(item.functions)
    assert tool["function"]["name"] == "geometry_triangle_area"
    params = tool["function"]["parameters"]
    assert params["type"] == "object" and params["properties"]["height"]["type"] == "number"
    with pytest.raises(FileNotFoundError):
        load_items(data_dir, "live_multiple")


def test_call_matches_follows_the_answer_format(data_dir):
    gt = ANSWER["ground_truth"]
    assert call_matches(_call("geometry_triangle_area", base=10, height=5), gt)
    assert call_matches(_call("geometry_triangle_area", base=10, height=5.0, unit="Units"), gt)
    assert not call_matches(_call("geometry_triangle_area", base=10), gt)  # required value missing
    assert not call_matches(_call("geometry_triangle_area", base=10, height=6), gt)
    assert not call_matches(_call("geometry_triangle_area", base=10, height=5, color="red"), gt)
    assert not call_matches(_call("other", base=10, height=5), gt)
    assert not call_matches([], gt)


def test_bfcl_arms_are_scored_through_the_runner(data_dir):
    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        assert body["tools"][0]["function"]["name"] == "geometry_triangle_area"
        msg = {"role": "assistant", "content": None, "tool_calls": _call("geometry_triangle_area", base=10, height=5)}
        return httpx.Response(200, json={"choices": [{"message": msg}], "usage": {"prompt_tokens": 50,
                                                                                   "completion_tokens": 9}})

    res = run_llm([], LLMOptions("http://llm.invalid/v1", "m"), transport=httpx.MockTransport(handler),
                  bfcl_items=load_items(data_dir), progress=False)
    arms = res["bfcl"]["arms"]
    assert arms["original"]["contains"] == 1.0 and arms["compressed"]["contains"] == 1.0
    assert arms["original"]["prompt_tokens"] == 50
