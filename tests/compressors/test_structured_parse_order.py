"""The structured compressor parses its input only when no candidate output parsed (issue
34): the first candidate that parses is the output whatever the input does, so a kept
selection that parses needs no parse of the longer input."""

from __future__ import annotations

from dataclasses import replace

from headroom.compressors.base import CompressInput
from headroom.compressors.structured import StructuredCompressor
from headroom.compressors.structured.formats import FORMATS
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

# A pyproject-like file: the question names one entry deep inside a long array, so the
# named-lines candidate keeps that entry without the array's closing bracket (it does not
# parse) and the plain selection does.
_LINTS = "\n".join(f'    "rule-{i:03d}",' for i in range(120))
TEXT = (
    "[project]\nname = \"demo\"\nversion = \"1.0\"\n\n[tool.lint]\nmax-line-length = 120\n"
    f"disable = [\n{_LINTS}\n    \"unidiomatic-typecheck\",\n{_LINTS.replace('rule', 'more')}\n]\n\n"
    "[tool.other]\nflag = true\n"
)


def _compress(text: str, query: str, monkeypatch) -> tuple[object, list[str]]:
    parsed: list[str] = []
    toml = FORMATS["toml"]

    def spy(t: str) -> bool:
        parsed.append(t)
        return toml.check(t)

    monkeypatch.setitem(FORMATS, "toml", replace(toml, check=spy))
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=query,
                        anchors=extract_anchors(query), hint="toml")
    return StructuredCompressor().compress(inp), parsed


def test_a_selection_that_parses_is_the_output_without_parsing_the_input(monkeypatch) -> None:
    out, parsed = _compress(TEXT, "why is unidiomatic-typecheck disabled", monkeypatch)
    assert TEXT not in parsed  # the input was never parsed
    assert len(parsed) == 2 and not FORMATS["toml"].check(parsed[0]) and FORMATS["toml"].check(parsed[1])
    assert out is not None and not isinstance(out, str)
    assert out.text + "\n" in parsed[1]


def test_an_input_that_parses_passes_through_when_no_output_does(monkeypatch) -> None:
    toml = FORMATS["toml"]
    # Every output refused, the input accepted: passed through with a reason.
    monkeypatch.setitem(FORMATS, "toml", replace(toml, check=lambda t: t == TEXT))
    inp = CompressInput(text=TEXT, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query="rule-050",
                        anchors=extract_anchors("rule-050"), hint="toml")
    assert isinstance(StructuredCompressor().compress(inp), str)
