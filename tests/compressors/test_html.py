"""HTMLCompressor: boilerplate gone, structure kept as text, long pages crushed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.config import HeadroomConfig
from headroom.tokens import count_tokens, counter_for
from headroom.query.anchors import extract_anchors
from headroom.compressors.base import CompressInput
from headroom.compressors.html import HTMLCompressor, html_to_text

RATE_LIMIT = "The Payments API lets you create charges. Rate limit is 450 requests per minute per key."


def page(topics: int = 40) -> str:
    nav = "<nav><ul>" + "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(30)) + "</ul></nav>"
    script = "<script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}" + "var x=1;" * 200 + "</script>"
    style = "<style>" + "body{margin:0;padding:0}" * 100 + "</style>"
    body = ["<h1>Payments API reference</h1>",
            "<p>The Payments API lets you create charges. Rate limit is <b>450 requests per minute</b> per key.</p>"]
    for i in range(topics):
        body.append(
            f"<h2>Topic {i}</h2><p>This section explains behaviour number {i} of the system in general terms. "
            "It is mostly descriptive text about how clients interact with the service over time. "
            "Readers usually skim this part because it repeats the overview in different words.</p>"
        )
    body.append("<table><tr><th>Code</th><th>Meaning</th></tr>"
                "<tr><td>E_CARD_DECLINED</td><td>The issuer declined the card</td></tr></table>")
    body.append('<p>To rotate keys, call <a href="/keys">the rotate endpoint</a> with the header X-Rotate-Token.</p>')
    footer = "<footer>Copyright 2026 Example Corp. All rights reserved. Privacy | Terms</footer>"
    return (f"<!DOCTYPE html><html><head><title>Payments API</title>{style}{script}</head>"
            f"<body>{nav}<main>{''.join(body)}</main>{footer}</body></html>")


def compress(text: str, query: str = ""):
    return HTMLCompressor().compress(
        CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"),
                      query=query, anchors=extract_anchors(query))
    )


def test_html_to_text_structure() -> None:
    html = """<html><head><title>Release notes</title><style>p{color:red}</style></head><body>
    <nav><a href="/">Home</a></nav>
    <h1>Release 2.4</h1>
    <p>We fixed the <a href="/bug/1">retry bug</a> &amp; made startup faster.</p>
    <ul><li>Faster startup</li><li>New <code>--dry-run</code> flag</li></ul>
    <table><tr><th>Version</th><th>Date</th></tr><tr><td>2.4</td><td>2026-11-01</td></tr></table>
    <pre>line one
    indented line two</pre>
    <script>alert("x")</script><footer>Copyright</footer></body></html>"""
    text, elements = html_to_text(html)
    lines = text.splitlines()
    assert lines[0] == "Title: Release notes"
    assert "# Release 2.4" in lines
    assert "We fixed the retry bug & made startup faster." in lines
    assert "- Faster startup\n- New --dry-run flag" in text
    assert "| Version | Date |\n| 2.4 | 2026-11-01 |" in text
    assert "    indented line two" in lines
    for gone in ("Home", "alert", "color:red", "Copyright", "<", "href"):
        assert gone not in text
    assert elements > 15


def test_long_page_is_crushed_and_keeps_planted_facts() -> None:
    html = page()
    out = compress(html, query="What does E_CARD_DECLINED mean?")
    assert out is not None and out.lossy
    assert out.strategy == "html_to_text+text_extract"
    assert "E_CARD_DECLINED | The issuer declined the card" in out.text
    assert RATE_LIMIT in out.text
    assert "# Payments API reference" in out.text
    assert "dataLayer" not in out.text and "Section 7" not in out.text
    assert count_tokens(out.text) < count_tokens(html) * 0.2


def test_short_page_is_converted_only() -> None:
    out = compress("<html><body><h1>Hi</h1><p>Short page with one fact: port 8443.</p><script>x()</script></body></html>")
    assert out is not None and out.lossy and out.strategy == "html_to_text"
    assert out.text == "# Hi\n\nShort page with one fact: port 8443."


def test_broken_markup_still_yields_text() -> None:
    text, _ = html_to_text("<div><p>unclosed <b>bold <i>italic</div><li>stray item<td>cell</td><p>end")
    assert "unclosed bold italic" in text and "stray item" in text and "end" in text


def test_declaration_that_breaks_html_parser_returns_none() -> None:
    assert compress("<html><body><p>text</p><![ x ]></body></html>" + "<p>more</p>" * 50) is None


def test_page_of_only_scripts_returns_none() -> None:
    assert compress("<html><head><script>var a=1;</script><style>a{}</style></head><body></body></html>") is None


def test_deterministic() -> None:
    assert compress(page(), query="rotate keys").text == compress(page(), query="rotate keys").text


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=2000))
def test_odd_input_never_raises(text: str) -> None:
    out = compress(text)
    assert out is None or isinstance(out.text, str)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["<p>", "</p>", "<td>", "<tr>", "</tr>", "<pre>", "</pre>", "<script>", "</script>",
                                 "<li>", "<h2>", "</h2>", "text &amp; more", "&#x27;", "<br>", "<nav>", "</div>", "x"]),
                max_size=200))
def test_tag_soup_never_raises(parts: list[str]) -> None:
    out = compress("".join(parts))
    assert out is None or isinstance(out.text, str)


def test_end_to_end_marker_retrieves_exact_original() -> None:
    html = page(topics=30)
    messages = [
        {"role": "user", "content": "What does E_CARD_DECLINED mean?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_h", "type": "function", "function": {"name": "fetch_url", "arguments": '{"url": "https://x/docs"}'}}]},
        {"role": "tool", "tool_call_id": "call_h", "content": html},
    ]
    result = headroom.compress(messages, model="gpt-4o")
    compressed = result.messages[2]["content"]
    assert "E_CARD_DECLINED | The issuer declined the card" in compressed
    m = MARKER_RE.search(compressed)
    assert m
    got = headroom.retrieve(m.group("hash"))
    assert got is not None and got.content == html
