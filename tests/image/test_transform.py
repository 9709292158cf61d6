"""ImageTransform through the Pipeline and the three adapters (scripted router, real pixels)."""

import copy
import json

import pytest
from tests.image.conftest import RULES, ScriptedRouter, b64, document, photo, quadrants, unb64

from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.formats import BlockKind, parse
from headroom.image.ocr import OcrLine, OcrResult
from headroom.image.transform import ImageTransform
from headroom.pipeline import Pipeline
from headroom.transforms.router import CompressionMemo


def good_ocr(img):
    return OcrResult([OcrLine("Error: connection refused on port 5432", 0.98, (0, 0, 1, 1))])


def _pipeline(router=None, ocr=good_ocr, config=None):
    config = config or HeadroomConfig()
    t = ImageTransform(config, router=router or ScriptedRouter(dict(RULES)), ocr=ocr)
    return Pipeline(config, store=CompressionStore(), memo=CompressionMemo(), transforms=[t])


def chat_body(question, img, detail=None, fmt="PNG"):
    iu = {"url": f"data:image/{fmt.lower()};base64,{b64(img, fmt)}"}
    if detail:
        iu["detail"] = detail
    return {"model": "gpt-4o", "messages": [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": [{"type": "text", "text": question}, {"type": "image_url", "image_url": iu}]},
    ]}


def responses_body(question, img):
    return {"model": "gpt-4o", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": question},
        {"type": "input_image", "image_url": f"data:image/png;base64,{b64(img)}", "detail": "auto"}]}]}


def anthropic_body(question, img):
    return {"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(img)},
         "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": question}]}]}


def _image_decisions(result):
    return [d for d in result.decisions if d.transform == "image"]


def test_chat_full_low_sets_detail_low_and_stores_the_original():
    p = _pipeline()
    body = chat_body("What animal is this?", photo())
    original_url = body["messages"][1]["content"][1]["image_url"]["url"]
    snapshot = copy.deepcopy(body)
    r = p.compress_body(body, "openai_chat")
    assert body == snapshot  # the caller's body is not mutated
    part = r.body["messages"][1]["content"][1]
    assert part == {"type": "image_url", "image_url": {"url": original_url, "detail": "low"}}
    (d,) = _image_decisions(r)
    assert d.action == "compressed" and d.strategy == "low_detail"
    assert (d.tokens_before, d.tokens_after) == (765, 85)
    assert p.store.retrieve(d.ccr_hash).content == original_url
    assert r.body["messages"][0] == snapshot["messages"][0]


def test_chat_transcode_renders_a_valid_text_part_with_marker():
    p = _pipeline()
    r = p.compress_body(chat_body("Read the error", document(800, 400, 22, 6)), "openai_chat")
    content = r.body["messages"][1]["content"]
    assert [c["type"] for c in content] == ["text", "text"]
    assert "connection refused on port 5432" in content[1]["text"]
    (d,) = _image_decisions(r)
    assert d.strategy == "transcode" and f"hash={d.ccr_hash}" in content[1]["text"]
    reparsed = parse(json.loads(json.dumps(r.body)), "openai_chat")
    assert [b.kind for b in reparsed.messages[1].blocks] == [BlockKind.TEXT, BlockKind.TEXT]


def test_responses_transcode_uses_input_text_and_crop_keeps_input_image():
    p = _pipeline()
    r = p.compress_body(responses_body("Read the sign", document(800, 400, 22, 6)), "openai_responses")
    part = r.body["input"][0]["content"][1]
    assert part["type"] == "input_text" and "5432" in part["text"]
    r = p.compress_body(responses_body("what is in the top-left corner?", quadrants(1024, 768)), "openai_responses")
    part = r.body["input"][0]["content"][1]
    assert part["type"] == "input_image" and part["detail"] == "auto"
    assert part["image_url"].startswith("data:image/png;base64,")
    img = unb64(part["image_url"].split(",", 1)[1]).convert("RGB")
    assert img.size == (512, 384) and set(img.getdata()) == {(255, 0, 0)}


def test_anthropic_downscale_payload_and_cache_control_survive():
    p = _pipeline()
    r = p.compress_body(anthropic_body("What animal is this?", photo(2000, 1500)), "anthropic")
    part = r.body["messages"][0]["content"][0]
    assert part["type"] == "image" and part["cache_control"] == {"type": "ephemeral"}
    assert part["source"]["type"] == "base64" and part["source"]["media_type"] == "image/png"
    assert max(unb64(part["source"]["data"]).size) == 512
    (d,) = _image_decisions(r)
    assert d.strategy == "downscale" and d.tokens_after < d.tokens_before


def test_anthropic_transcode_becomes_a_text_block_keeping_cache_control():
    p = _pipeline()
    r = p.compress_body(anthropic_body("Read the error", document(800, 400, 22, 6)), "anthropic")
    part = r.body["messages"][0]["content"][0]
    assert part["type"] == "text" and "5432" in part["text"]
    assert part["cache_control"] == {"type": "ephemeral"}
    assert "source" not in part


def test_preserve_leaves_the_body_byte_identical():
    p = _pipeline()
    body = anthropic_body("Count the whiskers", photo())
    r = p.compress_body(body, "anthropic")
    assert json.dumps(r.body, sort_keys=True) == json.dumps(body, sort_keys=True)
    (d,) = _image_decisions(r)
    assert d.action == "kept" and "full resolution" in d.reason


def test_low_confidence_ocr_keeps_the_image():
    p = _pipeline(ocr=lambda img: OcrResult([OcrLine("3rr0r", 0.3, (0, 0, 1, 1))]))
    r = p.compress_body(chat_body("Read the error", document(800, 400, 22, 6)), "openai_chat")
    assert r.body["messages"][1]["content"][1]["type"] == "image_url"
    assert "confidence" in _image_decisions(r)[0].reason


def test_image_in_history_keeps_its_bytes_when_the_question_changes():
    """Invariant 4: the image is decided by its own message's question, memoised."""
    p = _pipeline()
    turn1 = anthropic_body("What's in the top-left corner?", quadrants(1600, 1200))
    r1 = p.compress_body(turn1, "anthropic")
    turn2 = copy.deepcopy(turn1)
    turn2["messages"] += [{"role": "assistant", "content": "A red square."},
                          {"role": "user", "content": "Now count the whiskers please"}]
    r2 = p.compress_body(turn2, "anthropic")
    assert r2.body["messages"][0] == r1.body["messages"][0]
    assert "memo hit" in _image_decisions(r2)[0].reason


def test_image_without_own_text_uses_the_latest_question():
    router = ScriptedRouter(dict(RULES))
    p = _pipeline(router=router)
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(photo())}"}}]},
        {"role": "user", "content": "what animal is this"}]}
    r = p.compress_body(body, "openai_chat")
    assert r.body["messages"][0]["content"][0]["image_url"]["detail"] == "low"
    assert router.calls == ["what animal is this"]


def test_remote_url_images_are_not_fetched_but_can_get_low_detail():
    p = _pipeline()
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "what animal is this?"},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]}
    r = p.compress_body(body, "openai_chat")
    assert r.body["messages"][0]["content"][1]["image_url"] == {"url": "https://example.com/cat.png", "detail": "low"}
    body["messages"][0]["content"][0]["text"] = "what is in the top left corner"
    r = p.compress_body(body, "openai_chat")
    assert "not fetched" in _image_decisions(r)[0].reason


def test_broken_image_data_is_skipped_with_a_reason():
    p = _pipeline()
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "what animal is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,bm90IGFuIGltYWdl"}}]}]}
    r = p.compress_body(body, "openai_chat")
    assert r.body == body
    assert "not decodable" in _image_decisions(r)[0].reason


def test_frozen_prefix_is_respected():
    config = HeadroomConfig(frozen_prefix_messages=2)
    p = _pipeline(config=config)
    body = chat_body("What animal is this?", photo())
    r = p.compress_body(body, "openai_chat")
    assert r.body == body
    assert _image_decisions(r)[0].reason == "frozen prefix"


@pytest.mark.parametrize("fmt", ["openai_chat", "anthropic"])
def test_image_transform_is_deterministic(fmt):
    make = chat_body if fmt == "openai_chat" else anthropic_body
    a = _pipeline().compress_body(make("What animal is this?", photo(1500, 1000)), fmt).body
    b = _pipeline().compress_body(make("What animal is this?", photo(1500, 1000)), fmt).body
    assert json.dumps(a) == json.dumps(b)


def test_slow_ocr_hits_the_deadline_and_keeps_the_image():
    import time

    from headroom.config import ImageConfig

    def slow_ocr(img):
        time.sleep(3.0)
        return good_ocr(img)

    config = HeadroomConfig(image=ImageConfig(timeout_ms=100))
    p = _pipeline(ocr=slow_ocr, config=config)
    t0 = time.perf_counter()
    r = p.compress_body(chat_body("Read the error", document(800, 400, 22, 6)), "openai_chat")
    assert time.perf_counter() - t0 < 2.0  # well before the 3 s OCR would finish
    assert r.body["messages"][1]["content"][1]["type"] == "image_url"
    assert "timed out after 100 ms" in _image_decisions(r)[0].reason


def test_a_failing_image_does_not_stop_the_others():
    def broken_ocr(img):
        raise RuntimeError("onnx exploded")

    p = _pipeline(ocr=broken_ocr)
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Read the error"},
                                     {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(document(800, 400, 22, 6))}"}}]},
        {"role": "assistant", "content": "It says nothing."},
        {"role": "user", "content": [{"type": "text", "text": "What animal is this?"},
                                     {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(photo())}"}}]}]}
    r = p.compress_body(body, "openai_chat")
    first, second = _image_decisions(r)
    assert first.action == "kept" and "onnx exploded" in first.reason
    assert second.strategy == "low_detail"
    assert r.body["messages"][2]["content"][1]["image_url"]["detail"] == "low"


def _image_payloads(body, fmt):
    """(media_type, base64) of every inline image in a rendered body."""
    out = []
    items = body["input"] if fmt == "openai_responses" else body["messages"]
    for m in items:
        for part in m["content"] if isinstance(m.get("content"), list) else []:
            url = None
            if part["type"] == "image_url":
                url = part["image_url"]["url"]
            elif part["type"] == "input_image":
                url = part["image_url"]
            elif part["type"] == "image":
                out.append((part["source"]["media_type"], part["source"]["data"]))
            if url:
                header, data = url.split(",", 1)
                out.append((header[5:].split(";")[0], data))
    return out


@pytest.mark.parametrize("fmt", ["openai_chat", "openai_responses", "anthropic"])
@pytest.mark.parametrize("question", ["What animal is this?", "what is in the bottom right corner",
                                      "Read the error", "Count the whiskers"])
@pytest.mark.parametrize("size,jpeg", [((2400, 900), False), ((700, 1900), True)])
def test_every_outcome_is_a_valid_payload_in_the_same_format(fmt, question, size, jpeg):
    make = {"openai_chat": chat_body, "openai_responses": responses_body, "anthropic": anthropic_body}[fmt]
    img = photo(*size) if "Read" not in question else document(*size, size=24, lines=12)
    body = make(question, img)
    if jpeg:  # senders' JPEGs must come back as JPEGs with a matching media type
        data = b64(img, "JPEG")
        if fmt == "anthropic":
            body["messages"][0]["content"][0]["source"].update(media_type="image/jpeg", data=data)
        elif fmt == "openai_chat":
            body["messages"][1]["content"][1]["image_url"]["url"] = f"data:image/jpeg;base64,{data}"
        else:
            body["input"][0]["content"][1]["image_url"] = f"data:image/jpeg;base64,{data}"
    r = _pipeline().compress_body(body, fmt)
    wire = json.loads(json.dumps(r.body))
    conv = parse(wire, fmt)
    assert len(conv.messages) == len(parse(body, fmt).messages)
    for media_type, data in _image_payloads(wire, fmt):
        decoded = unb64(data)
        assert {"PNG": "image/png", "JPEG": "image/jpeg"}[decoded.format] == media_type
        assert max(decoded.size) <= max(size)
    (d,) = _image_decisions(r)
    assert d.tokens_after <= d.tokens_before


def anthropic_screenshot_session(question, img, *, tool="computer"):
    """A computer-use turn: the screenshot comes back inside a tool_result."""
    return {"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [
        {"role": "user", "content": "Open the dashboard."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": tool,
                                           "input": {"action": "screenshot"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu_1", "content": [
                {"type": "text", "text": "screenshot taken"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(img)}},
            ]},
            {"type": "text", "text": question}]}]}


def test_screenshot_inside_an_anthropic_tool_result_is_compressed_in_place():
    p = _pipeline()
    body = anthropic_screenshot_session("What animal is on the screen?", photo(2000, 1500))
    snapshot = copy.deepcopy(body)
    r = p.compress_body(body, "anthropic")
    assert body == snapshot
    result = r.body["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "tu_1"
    text_part, image_part = result["content"]
    assert text_part == {"type": "text", "text": "screenshot taken"}  # the tool's text untouched
    assert image_part["type"] == "image" and max(unb64(image_part["source"]["data"]).size) == 512
    assert r.body["messages"][:2] == snapshot["messages"][:2]
    assert r.body["messages"][2]["content"][1] == snapshot["messages"][2]["content"][1]
    (d,) = _image_decisions(r)
    assert d.strategy == "downscale" and d.tool_name == "computer" and d.extra == {"in_tool_output": True}
    assert p.store.retrieve(d.ccr_hash) is not None
    # The rendered body parses back to the same shape.
    again = parse(json.loads(json.dumps(r.body)), "anthropic")
    assert [b.kind for b in again.messages[2].blocks[0].parts] == [BlockKind.IMAGE]


def test_screenshot_transcribed_to_text_inside_a_tool_result():
    p = _pipeline()
    r = p.compress_body(anthropic_screenshot_session("Read the error on screen", document(800, 400, 22, 6)),
                        "anthropic")
    content = r.body["messages"][2]["content"][0]["content"]
    assert [c["type"] for c in content] == ["text", "text"]
    assert "connection refused on port 5432" in content[1]["text"]


def test_screenshots_of_protected_tools_stay_as_they_are():
    config = HeadroomConfig(router={"exclude_tools": ["computer"]})
    body = anthropic_screenshot_session("What animal is on the screen?", photo(2000, 1500))
    r = _pipeline(config=config).compress_body(body, "anthropic")
    assert json.dumps(r.body, sort_keys=True) == json.dumps(body, sort_keys=True)
    (d,) = _image_decisions(r)
    assert d.action == "skipped" and d.reason == "excluded tool computer"


def test_image_inside_a_responses_function_call_output():
    p = _pipeline()
    body = {"model": "gpt-4o", "input": [
        {"role": "user", "content": "Take a screenshot."},
        {"type": "function_call", "call_id": "c1", "name": "screenshot", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_image", "image_url": f"data:image/png;base64,{b64(photo())}", "detail": "auto"}]},
        {"role": "user", "content": "What animal is in it?"}]}
    r = p.compress_body(body, "openai_responses")
    (part,) = r.body["input"][2]["output"]
    assert part["type"] == "input_image" and part["detail"] == "low"
    assert r.body["input"][3] == body["input"][3]


def test_tool_result_with_images_round_trips_unchanged_without_transforms():
    body = anthropic_screenshot_session("Count the whiskers", photo())
    p = Pipeline(HeadroomConfig(), store=CompressionStore(), memo=CompressionMemo(), transforms=[])
    assert p.compress_body(body, "anthropic").body == body
