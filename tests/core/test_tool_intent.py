"""A tool output is read for what the assistant said when it made the call.

Agents state a task once and then make dozens of calls; each call's own text ("let me read
GetStdHandle") says what its output is for. The router adds that text to the question for
that output only.
"""

from __future__ import annotations

import json
import pytest

from headroom import HeadroomConfig, Pipeline
from headroom.ccr.store import CompressionStore
from headroom.formats import parse
from headroom.query.anchors import extract_anchors

INTENT = "Let me read how GetStdHandle is implemented."
ARGS = {"command": "cat -n win32.py"}


def _bodies(output: str) -> dict[str, dict]:
    return {
        "openai_chat": {"model": "gpt-4o", "messages": [
            {"role": "user", "content": "investigate the console module"},
            {"role": "assistant", "content": INTENT, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": json.dumps(ARGS)}}]},
            {"role": "tool", "tool_call_id": "c1", "content": output}]},
        "anthropic": {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [
            {"role": "user", "content": "investigate the console module"},
            {"role": "assistant", "content": [{"type": "text", "text": INTENT},
                                              {"type": "tool_use", "id": "c1", "name": "bash", "input": ARGS}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": output}]}]},
        "openai_responses": {"model": "gpt-4o", "input": [
            {"role": "user", "content": "investigate the console module"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": INTENT}]},
            {"type": "function_call", "call_id": "c1", "name": "bash", "arguments": json.dumps(ARGS)},
            {"type": "function_call_output", "call_id": "c1", "output": output}]},
    }


@pytest.mark.parametrize("fmt", ["openai_chat", "anthropic", "openai_responses"])
def test_every_format_links_a_result_to_the_text_of_the_turn_that_called(fmt):
    conv = parse(_bodies("some output")[fmt], fmt)
    (_, _, result), = list(conv.tool_results())
    assert result.tool_intent == INTENT


def test_a_call_without_text_has_no_intent():
    body = _bodies("x")["openai_chat"]
    body["messages"][1]["content"] = None
    (_, _, result), = list(parse(body, "openai_chat").tool_results())
    assert result.tool_intent is None


def test_pascal_case_names_are_anchors_and_sentence_words_are_not():
    terms = extract_anchors("Then read GetStdHandle and JavaScript. The Big Dog barked.").terms
    assert {"getstdhandle", "javascript"} <= terms
    assert not {"then", "the", "big", "dog"} & terms


def _module(n: int = 40) -> str:
    """A source file of many similar functions; only one is named GetStdHandle."""
    out = ['"""Console helpers."""', ""]
    for k in range(n):
        name = "GetStdHandle" if k == 23 else f"helper_{k}"
        out += [f"def {name}(handle: int = {k}) -> int:",
                f'    """Return a handle for device {k}."""',
                *[f"    step_{k}_{j} = handle * {j} + {k}" for j in range(8)],
                f"    return step_{k}_7  # end of {name}", "", ""]
    return "\n".join(out)


@pytest.mark.parametrize("fmt", ["openai_chat", "anthropic", "openai_responses"])
def test_the_function_the_call_names_stays_whole_though_the_question_does_not_name_it(fmt):
    src = _module()
    body = _bodies(src)[fmt]
    result = Pipeline(HeadroomConfig(), store=CompressionStore()).compress_body(body, fmt)
    (_, _, block), = list(result.conversation.tool_results())
    assert block.text != src, "the module must be compressed for this test to mean anything"
    assert "return step_23_7  # end of GetStdHandle" in block.text
    assert "return step_5_7  # end of helper_5" not in block.text



def test_a_file_read_again_for_another_function_is_compressed_for_that_function():
    """The memo keys an output by what it was read for too: the second read of the same
    file, for helper_7, shows helper_7, while the first read keeps its bytes request after
    request (so the cached prefix holds)."""
    src = _module()
    pipeline = Pipeline(HeadroomConfig(), store=CompressionStore())
    first = [
        {"role": "user", "content": "investigate the console module"},
        {"role": "assistant", "content": INTENT, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": json.dumps(ARGS)}}]},
        {"role": "tool", "tool_call_id": "c1", "content": src}]
    one = pipeline.compress_body({"model": "gpt-4o", "messages": first}, "openai_chat")
    first_read = one.body["messages"][2]["content"]
    second = first + [
        {"role": "assistant", "content": "Now let me look at helper_7 in the same file.", "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "bash", "arguments": json.dumps(ARGS)}}]},
        {"role": "tool", "tool_call_id": "c2", "content": src}]
    two = pipeline.compress_body({"model": "gpt-4o", "messages": second}, "openai_chat")
    assert two.body["messages"][2]["content"] == first_read
    again = two.body["messages"][4]["content"]
    assert again != src
    assert "return step_7_7  # end of helper_7" in again
    assert "return step_7_7  # end of helper_7" not in first_read


@pytest.mark.parametrize("name", ["_is_binary_writer", "__init__", "_private2", "__slots__"])
def test_leading_underscores_belong_to_the_identifier(name):
    """A private helper's name is an anchor with its underscores ("read _is_binary_writer")."""
    assert name.lower() in extract_anchors(f"Now let me read {name} in that file.").terms


def test_a_private_function_the_call_names_stays_whole():
    src = _module().replace("GetStdHandle", "_get_std_handle")
    body = _bodies(src)["openai_chat"]
    body["messages"][1]["content"] = "Let me read _get_std_handle."
    result = Pipeline(HeadroomConfig(), store=CompressionStore()).compress_body(body, "openai_chat")
    (_, _, block), = list(result.conversation.tool_results())
    assert block.text != src
    assert "return step_23_7  # end of _get_std_handle" in block.text
