"""Structured text stays structured (issue 33): config, build and query files, templates
and Markdown are detected from their content alone and line-selected, never rewritten.

Real files: the corpus sources ``config_files`` (YAML, TOML, INI, properties, XML read
from packages installed on the machine that built it) and ``markdown_docs``; SQL,
Makefiles and Jinja templates installed on this machine where present (skipped
elsewhere). Synthetic snippets only for detection of renamed and paraphrased files.
"""

from __future__ import annotations

import glob
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import headroom
from headroom.ccr.markers import MARKER_RE
from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType, detect
from headroom.compressors.structured import (
    StructuredCompressor,
    claim,
    detect_format,
    is_prose,
    refine,
    sample_lines,
)
from headroom.compressors.structured.formats import FORMATS, comment_line
from headroom.compressors.structured.markdown import MARKDOWN, blocks, fences_balanced
from headroom.config import HeadroomConfig
from headroom.eval.corpus import load_cases
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

CONFIG = HeadroomConfig()
PROBE = "[0 items compressed to 0. Retrieve more: hash=000000000000000000000000. Expires in 30m.]"
ELISION_TEXT = re.compile(r"… \d+ lines elided \(lines \d+-\d+\) …")


def _unique(cases):
    seen, out = set(), []
    for c in cases:
        if c.content not in seen:
            seen.add(c.content)
            out.append(c)
    return out


CONFIG_CASES = load_cases(sources=["config_files"])
MARKDOWN_CASES = load_cases(sources=["markdown_docs"])
CONFIG_TEXTS = [c.content for c in _unique(CONFIG_CASES)]
MARKDOWN_TEXTS = [c.content for c in _unique(MARKDOWN_CASES)]


def _machine_files(patterns: tuple[str, ...], limit: int = 8) -> list[str]:
    out = []
    for pat in patterns:
        for p in sorted(glob.glob(pat, recursive=True)):
            path = Path(p)
            if path.is_file() and 1500 <= path.stat().st_size <= 40_000:
                try:
                    out.append(path.read_text(encoding="utf-8"))
                except (UnicodeDecodeError, OSError):
                    continue
            if len(out) >= limit:
                return out
    return out


SQL_TEXTS = _machine_files(("/usr/share/postgresql/*/extension/*.sql",))
MAKE_TEXTS = _machine_files(("/usr/share/doc/git/contrib/*/Makefile", "/usr/share/groff/*/font/devps/generate/Makefile",
                             "/usr/lib/google-cloud-sdk/platform/gsutil/third_party/*/docs/Makefile"))
JINJA_TEXTS = _machine_files(("/usr/lib/google-cloud-sdk/platform/google_appengine/**/admin/templates/*.html",))
MACHINE_TEXTS = SQL_TEXTS + MAKE_TEXTS + JINJA_TEXTS


def _compress(text: str, query: str, aggressiveness: float = 0.5, hint=None):
    fmt = hint or detect_format(text, sample_lines(text))
    inp = CompressInput(text=text, config=CONFIG, counter=counter_for("gpt-4o"), query=query,
                        anchors=extract_anchors(query), hint=fmt, aggressiveness=aggressiveness)
    return fmt, StructuredCompressor().compress(inp)


def _format_of(name: str):
    return MARKDOWN if name == "markdown" else FORMATS[name]


def _is_elision(line: str, fmt) -> bool:
    body = line.strip()
    if fmt.comment:
        if not body.startswith(fmt.comment):
            return False
        body = body[len(fmt.comment):]
        if fmt.comment_end:
            if not body.endswith(fmt.comment_end):
                return False
            body = body[: -len(fmt.comment_end)]
    return bool(ELISION_TEXT.fullmatch(body.strip()))


def _question_words(text: str) -> st.SearchStrategy[str]:
    words = sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_-]{2,}", text[:20_000])))[:400] or ["value"]
    return st.lists(st.sampled_from(words), min_size=0, max_size=3).map(lambda ws: "What is " + " under ".join(ws))


# -- properties over real files -------------------------------------------------------------------

@pytest.mark.parametrize("k", range(len(CONFIG_TEXTS + MACHINE_TEXTS)))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_output_parses_and_keeps_whole_lines(k: int, data) -> None:
    text = (CONFIG_TEXTS + MACHINE_TEXTS)[k]
    query = data.draw(_question_words(text))
    aggressiveness = data.draw(st.floats(0, 1))
    name, result = _compress(text, query, aggressiveness)
    assert name is not None and name != "markdown"
    if result is None or isinstance(result, str):
        return  # passed through (nothing to elide, or the output would not parse)
    fmt = _format_of(name)
    with_marker = result.text + "\n" + comment_line(fmt, "", PROBE)
    if fmt.check(text):
        assert fmt.check(with_marker), f"{name} output stopped parsing"
    originals = set(text.split("\n"))
    for line in result.text.split("\n"):
        assert line in originals or _is_elision(line, fmt), line


@pytest.mark.parametrize("k", range(len(MARKDOWN_TEXTS)))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_markdown_fences_balanced_and_code_blocks_identical(k: int, data) -> None:
    text = MARKDOWN_TEXTS[k]
    query = data.draw(_question_words(text))
    _, result = _compress(text, query, data.draw(st.floats(0, 1)), hint="markdown")
    if result is None or isinstance(result, str):
        return
    out = result.text
    assert fences_balanced(out + "\n" + comment_line(MARKDOWN, "", PROBE))
    originals = set(text.split("\n"))
    assert all(line in originals or _is_elision(line, MARKDOWN) for line in out.split("\n"))
    out_lines = out.split("\n")
    for b in blocks(out_lines):
        if b.kind == "code":
            block = "\n".join(out_lines[b.start:b.end])
            assert block in text, "a kept code block differs from the original"


def _fresh_pipeline():
    """A pipeline with its own store and memo: the same file asked about another key
    must not be answered by the memo of an earlier question (cache stability)."""
    from headroom import Pipeline
    from headroom.ccr.store import CompressionStore
    from headroom.transforms.router import CompressionMemo

    pipeline = Pipeline(CONFIG, store=CompressionStore(max_entries=100))
    pipeline.memo = CompressionMemo(read_store=False)
    return pipeline


@pytest.mark.parametrize("case", CONFIG_CASES + MARKDOWN_CASES, ids=lambda c: c.id)
def test_asked_key_or_command_in_view_through_the_router(case) -> None:
    messages = [{"role": "user", "content": case.question},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": case.tool_name,
                                                                  "arguments": '{"command": "cat it"}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": case.content}]
    r = headroom.compress(messages, model="gpt-4o", pipeline=_fresh_pipeline())
    out = r.messages[-1]["content"]
    for f in case.facts:
        assert f.text in out, f.text
    d = next(d for d in r.decisions if d.transform == "content_router")
    if d.action == "compressed":
        assert d.content_type == "structured", d.content_type
        assert MARKER_RE.search(out)


# -- detection from content alone ----------------------------------------------------------------

def _fmt(text: str) -> str | None:
    return detect_format(text, sample_lines(text))


YAML_SNIPPET = """\
# opaque service settings
qz7:
  wq_k1: 9
  tt_pp:
    - alpha
    - beta
  hh:
    zz_depth: 4
    yy_mode: fast
ee_r2:
  script: |
    echo one
    echo two
  ff: true
"""

TOML_SNIPPET = """\
# generated
[aa]
bb_c = "x"
dd = 3

[aa.ee]
ff = [
  "one",
  "two",
]
gg = true
"""

INI_SNIPPET = """\
[alpha]
beta = some words here
gamma = 12
delta =
    one
    two

[epsilon]
zeta = off
"""

ENV_SNIPPET = "\n".join(["# local", "QQ_HOST=db.internal", "QQ_PORT=5432", "export RR_TOKEN=abc", "ZZ_MODE=slow",
                         "YY=1", ""])

XML_SNIPPET = """\
<?xml version="1.0"?>
<qq xmlns="urn:x">
  <rr>
    <ss>1</ss>
    <tt>two</tt>
  </rr>
  <uu a="b"/>
</qq>
"""

DOCKER_SNIPPET = """\
ARG BASE=debian:12
FROM ${BASE} AS build
RUN apt-get update \\
    && apt-get install -y make
COPY . /src
WORKDIR /src
RUN make
FROM scratch
COPY --from=build /src/out /out
ENTRYPOINT ["/out"]
"""

MAKE_SNIPPET = "\n".join(["CC ?= cc", "OBJS = a.o b.o", "", "all: prog", "", "prog: $(OBJS)",
                          "\t$(CC) -o $@ $^", "", "%.o: %.c", "\t$(CC) -c $<", "", "clean:", "\trm -f prog *.o", ""])

SQL_SNIPPET = """\
-- schema
CREATE TABLE qq (
    id integer PRIMARY KEY,
    nm text NOT NULL
);
INSERT INTO qq VALUES (1, 'a;b');
CREATE FUNCTION ff() RETURNS int AS $$
BEGIN
  RETURN 1;
END;
$$ LANGUAGE plpgsql;
SELECT * FROM qq;
"""

JINJA_SNIPPET = """\
<ul>
{% for item in items %}
  <li>{{ item.name }}</li>
  {% if item.flag %}
  <b>{{ item.flag }}</b>
  {% endif %}
{% endfor %}
</ul>
"""

GO_SNIPPET = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Values.name }}
data:
{{- range $k, $v := .Values.data }}
  {{ $k }}: {{ $v | quote }}
{{- end }}
"""

JSONC_SNIPPET = """\
{
  // editor settings
  "qq": 1,
  "rr": {
    "ss": true
  },
  /* block */
  "tt": [1, 2]
}
"""

MD_SNIPPET = """\
# Title

Some words about the tool, written as sentences.

## Install

```bash
pip install thing
```

!!! note
    Indented admonition body.

| a | b |
|---|---|
| 1 | 2 |
"""


@pytest.mark.parametrize(("text", "expected"), [
    (YAML_SNIPPET, "yaml"), (TOML_SNIPPET, "toml"), (INI_SNIPPET, "ini"), (ENV_SNIPPET, "properties"),
    (XML_SNIPPET, "xml"), (DOCKER_SNIPPET, "dockerfile"), (MAKE_SNIPPET, "makefile"), (SQL_SNIPPET, "sql"),
    (JINJA_SNIPPET, "jinja"), (GO_SNIPPET, "gotemplate"), (JSONC_SNIPPET, "jsonc"), (MD_SNIPPET, "markdown"),
])
def test_formats_detected_without_a_path_or_known_names(text: str, expected: str) -> None:
    assert _fmt(text) == expected
    claimed = claim(text)
    assert claimed is not None and claimed.type is ContentType.STRUCTURED and claimed.hint == expected


def test_renaming_every_key_keeps_the_format_and_the_asked_path() -> None:
    """Shape, not names: the same YAML with every key renamed to an opaque name is still
    YAML, and the key the question asks (under its parent) stays in view."""
    text = next(t for t in CONFIG_TEXTS if _fmt(t) == "yaml" and len(t) > 3000)
    keys = sorted(set(re.findall(r"^\s*-?\s*([A-Za-z_][\w-]*):", text, re.MULTILINE)))
    mapping = {k: f"k{i:03d}x" for i, k in enumerate(keys)}
    renamed = re.sub(r"^(\s*-?\s*)([A-Za-z_][\w-]*):", lambda m: m.group(1) + mapping.get(m.group(2), m.group(2)) + ":",
                     text, flags=re.MULTILINE)
    assert _fmt(renamed) == "yaml"
    lines = renamed.split("\n")
    target = next(i for i, ln in enumerate(lines) if re.match(r"^\s{4,}k\d{3}x: \S", ln))
    leaf = lines[target].strip().split(":")[0]
    parent = next(lines[j].strip().split(":")[0] for j in range(target - 1, -1, -1)
                  if 0 < len(lines[j]) - len(lines[j].lstrip()) < len(lines[target]) - len(lines[target].lstrip())
                  and lines[j].strip().endswith(":"))
    _, result = _compress(renamed, f"What is {leaf} under {parent}?", hint="yaml")
    out = renamed if result is None else result.text
    assert lines[target] in out.split("\n")


@pytest.mark.parametrize("text", [
    "\n".join(f"INFO: worker {i} finished step {i * 3}" for i in range(40)),  # a log, repeated keys
    "\n".join(["const a = require('x');", "let b = 2;", "function f(x) {", "  return x + 1;", "}",
               "module.exports = { a, b, f };"] * 4),  # code, not properties
    "\n".join(f"{i},{i * 2},name{i}" for i in range(40)),  # CSV
])
def test_look_alikes_are_not_claimed(text: str) -> None:
    assert _fmt(text) is None


def test_plain_text_that_is_not_prose_is_line_selected() -> None:
    """openssl's certificate report (a real output): plain text, no sentences, so its
    lines are selected whole instead of going to the prose compressor."""
    report = load_cases(sources=["x509_text"])[0].content
    assert detect(report).type is ContentType.TEXT
    d = refine(report, detect(report))
    assert d.type is ContentType.STRUCTURED and d.hint == "lines"
    prose = ("The store keeps every original. A model that needs more asks for it by hash, and the answer comes "
             "from the store without another provider call.\n\n") * 20
    assert refine(prose, detect(prose)).type is ContentType.TEXT


def test_prose_is_prose_and_a_listing_is_not() -> None:
    prose = ("The proxy keeps every original it shortens in a local store. A model that needs more can ask for it "
             "by the hash in the marker, and the proxy answers from the store without calling the provider again.\n\n"
             "Savings depend on the shape of the output. Logs with many repeated lines shrink the most, while short "
             "answers are passed through as they are, because a marker would cost more than it saves.\n")
    assert is_prose(sample_lines(prose * 3))
    listing = "\n".join(f"/usr/lib/pkg{i}/file{i}.so  {i * 1024}" for i in range(50))
    assert not is_prose(sample_lines(listing))


def test_a_yaml_config_read_with_cat_is_never_joined() -> None:
    """Through compress(), no path argument: a YAML file compresses as structured lines
    that parse, its marker is a YAML comment, and no line is joined to another."""
    text = next(t for t in CONFIG_TEXTS if _fmt(t) == "yaml" and len(t) > 4000)
    messages = [{"role": "user", "content": "Which steps run in this workflow?"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "cat f"}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": text}]
    r = headroom.compress(messages, model="gpt-4o", pipeline=_fresh_pipeline())
    out = r.messages[-1]["content"]
    d = next(d for d in r.decisions if d.transform == "content_router")
    if d.action != "compressed":
        pytest.skip(f"not compressed: {d.reason}")
    assert d.strategy.startswith("structured:yaml")
    assert FORMATS["yaml"].check(out)
    originals = set(text.split("\n"))
    for line in out.split("\n"):
        assert line in originals or line.lstrip().startswith("# "), line


def test_unbalanced_output_passes_through() -> None:
    """When the selected lines would not parse but the input does, the input is kept."""
    from headroom.compressors.structured.formats import Format

    strict = Format("yaml", "#", "", "indent", lambda t: "# …" not in t)  # any elision "breaks" it
    text = next(t for t in CONFIG_TEXTS if _fmt(t) == "yaml" and len(t) > 4000)
    from headroom.compressors import structured

    original = structured.FORMATS["yaml"]
    structured.FORMATS["yaml"] = strict
    try:
        _, result = _compress(text, "what runs", hint="yaml")
    finally:
        structured.FORMATS["yaml"] = original
    assert isinstance(result, str) and "passed through" in result


def test_non_prose_text_keeps_whole_original_lines_through_the_router() -> None:
    """The certificate report (plain text, not prose) is compressed line by line: every
    line of the output is an original line or an elision line, and the marker follows."""
    case = load_cases(sources=["x509_text"])[0]
    messages = [{"role": "user", "content": case.question},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": case.tool_name, "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": case.content}]
    r = headroom.compress(messages, model="gpt-4o", pipeline=_fresh_pipeline())
    out = r.messages[-1]["content"]
    d = next(d for d in r.decisions if d.transform == "content_router")
    assert d.action == "compressed" and d.strategy == "structured:lines"
    originals = set(case.content.split("\n"))
    body = MARKER_RE.sub("", out).rstrip("\n")
    for line in body.split("\n"):
        assert line in originals or ELISION_TEXT.fullmatch(line.strip()), line
    assert all(f.text in out for f in case.facts)


@given(asked=st.integers(0, 7), member=st.integers(0, 7), trailing=st.booleans())
@settings(max_examples=20, deadline=None)
def test_json_with_comments_stays_json_without_trailing_commas(asked: int, member: int, trailing: bool) -> None:
    """No real JSONC file is installed here, so a settings-shaped one is built: eliding a
    run up to a closing bracket keeps the object's last member (JSON allows no trailing
    comma); the output parses once comments are removed and the asked key stays."""
    import json

    from headroom.compressors.structured.formats import strip_json_comments

    parts = ["{", "  // editor settings"]
    for s in range(8):
        parts += [f'  "group{s}": {{', f"    // group {s}"]
        parts += [f'    "item{s}_{k}": {k},' for k in range(8)]
        parts += [f'    "tail{s}": true', "  }," if s < 7 else "  }"]
    parts.append("}")
    text = "\n".join(parts) + ("\n" if trailing else "")
    name, result = _compress(text, f"What is item{asked}_{member} under group{asked}?")
    assert name == "jsonc"
    assert result is not None and not isinstance(result, str), result
    json.loads(strip_json_comments(result.text + "\n" + comment_line(FORMATS["jsonc"], "", PROBE)))
    assert f'    "item{asked}_{member}": {member},' in result.text.split("\n")


def test_a_git_log_whose_first_line_starts_with_a_keyword_is_not_sql():
    # "commit 1f3a…" starts like SQL's COMMIT; the Author:/Date: header lines say otherwise.
    import subprocess

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(["git", "log", "--stat", "-n", "40"], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0 or proc.stdout.count("\ncommit ") < 5:
        pytest.skip("no git history in this checkout")
    assert claim(proc.stdout) is None
