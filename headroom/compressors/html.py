"""HTMLCompressor: an HTML page to readable text, then TextCrusher if still long.

Uses the stdlib ``html.parser`` (tolerant of broken markup, no dependency). Boilerplate
containers (script, style, nav, footer, aside, forms, svg, …) are dropped with their
content; headings become ``#`` lines, list items ``- `` lines, table rows ``a | b | c``
lines, links keep their text, ``<pre>`` keeps its whitespace. Removing the markup is
itself lossy (attributes, link targets), so the result is always ``lossy=True`` and the
router stores the original page.
"""

from __future__ import annotations

from dataclasses import replace
from html.parser import HTMLParser

from .base import Compressed, CompressInput
from .text import TextCrusher

_DROP = frozenset({
    "script", "style", "noscript", "nav", "footer", "aside", "form", "svg", "template",
    "iframe", "canvas", "button", "select", "object", "dialog",
})
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr"})
_BLOCK = frozenset({
    "p", "div", "section", "article", "main", "header", "blockquote", "figure", "figcaption",
    "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "details", "summary",
    "address", "body", "html", "center",
})
# Markup text longer than this (in tokens) after extraction also goes through TextCrusher.
_CRUSH_ABOVE_TOKENS = 400


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._buf: list[str] = []
        self._prefix = ""
        self._drop_depth = 0
        self._drop_stack: list[str] = []
        self._pre = 0
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.title = ""
        self._in_title = False
        self.elements = 0

    # -- helpers -------------------------------------------------------------------------
    def _flush(self) -> None:
        text = "".join(self._buf)
        self._buf.clear()
        if self._pre:
            for ln in text.split("\n"):
                if ln.strip():
                    self.lines.append(ln.rstrip())
        else:
            text = " ".join(text.split())
            if text:
                self.lines.append(self._prefix + text)
        self._prefix = ""

    # -- parser callbacks ----------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs) -> None:
        self.elements += 1
        if self._drop_depth:
            if tag == self._drop_stack[-1] and tag not in _VOID:
                self._drop_depth += 1
            return
        if tag == "title":
            self._in_title = True
            return
        if tag in _DROP and tag not in _VOID:
            self._drop_stack.append(tag)
            self._drop_depth = 1
            return
        if self._cell is not None and tag not in ("td", "th", "tr"):
            if tag == "br":
                self._cell.append(" ")
            return  # inline content of a cell stays in the cell
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._flush()
            self._prefix = "#" * int(tag[1]) + " "
        elif tag == "li":
            self._flush()
            self._prefix = "- "
        elif tag == "tr":
            self._flush()
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "pre":
            self._flush()
            self._pre += 1
        elif tag in ("br", "hr") or tag in _BLOCK:
            self._flush()
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self._buf.append(f" [image: {alt}] ")

    def handle_endtag(self, tag: str) -> None:
        if self._drop_depth:
            if tag == self._drop_stack[-1]:
                self._drop_depth -= 1
                if not self._drop_depth:
                    self._drop_stack.pop()
            return
        if tag == "title":
            self._in_title = False
            return
        if tag in ("td", "th") and self._cell is not None:
            if self._row is not None:
                self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._cell is not None:  # unclosed cell
                self._row.append(" ".join("".join(self._cell).split()))
                self._cell = None
            if any(self._row):
                self.lines.append("| " + " | ".join(self._row) + " |")
            self._row = None
        elif tag == "pre":
            self._flush()
            self._pre = max(0, self._pre - 1)
        elif tag in _BLOCK or tag in ("h1", "h2", "h3", "h4", "h5", "h6", "li", "table"):
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._drop_depth:
            return
        if self._in_title:
            self.title += data
        elif self._cell is not None:
            self._cell.append(data)
        else:
            self._buf.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def html_to_text(html: str) -> tuple[str, int]:
    """Readable text of ``html`` and the number of elements it had."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    lines = parser.lines
    title = " ".join(parser.title.split())
    if title and (not lines or title not in lines[0]):
        lines = [f"Title: {title}", *lines]
    # Consecutive identical lines (repeated banners, empty cells) say nothing new.
    deduped = [ln for k, ln in enumerate(lines) if k == 0 or ln != lines[k - 1]]
    # Paragraphs are separated by a blank line, consecutive list items and table rows by
    # a newline, so the TextCrusher sees the same structure a reader does.
    parts: list[str] = []
    for k, ln in enumerate(deduped):
        if k:
            tight = ln.startswith(("- ", "| ")) and deduped[k - 1].startswith(("- ", "| "))
            parts.append("\n" if tight else "\n\n")
        parts.append(ln)
    return "".join(parts), parser.elements


class HTMLCompressor:
    name = "html"

    def __init__(self, text_crusher: TextCrusher | None = None):
        self.text_crusher = text_crusher or TextCrusher()

    def compress(self, inp: CompressInput) -> Compressed | None:
        try:
            text, elements = html_to_text(inp.text)
        # html.parser is tolerant, but some malformed declarations still raise
        # ("<![ x ]>" gives AssertionError: expected name token); keep the page then.
        except Exception:  # noqa: BLE001
            return None
        if not text.strip():
            return None
        lines = text.count("\n") + 1
        tokens = inp.counter.count(text)
        if tokens > _CRUSH_ABOVE_TOKENS:
            crushed = self.text_crusher.compress(replace(inp, text=text))
            if crushed is not None:
                return Compressed(
                    text=crushed.text,
                    items_before=max(elements, crushed.items_before),
                    items_after=crushed.items_after,
                    strategy="html_to_text+" + crushed.strategy,
                    lossy=True,
                    summary=f"page as text, {crushed.summary}",
                )
        return Compressed(
            text=text,
            items_before=max(elements, lines),
            items_after=lines,
            strategy="html_to_text",
            lossy=True,
            summary="page as text",
        )
