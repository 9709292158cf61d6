"""Which structured format a text is in, from its content alone.

No path, no file name, no key names: each format is recognised by the grammar of its
lines on a bounded sample (the first 200 lines): the share of lines that are that
format's keys, sections, items, instructions, statements, tags or comments, plus one
structural property real files have and look-alikes lack (YAML's top-level keys are
distinct, a Dockerfile starts with FROM or ARG, a Makefile has tab-led recipe lines,
TOML values are typed where INI values are bare words). A format is claimed only when
nearly every sampled line fits it; anything else is left to the detector that ran
before (logs, code, tables) or to the prose test.

Prose is decided the same way, by measurable features: lines of many words that end
sentences, few structural characters.
"""

from __future__ import annotations

import re
from itertools import repeat

# Plain keys hold no colon: "path:12: text" is a grep hit, "file.py:3:1: E501" a report.
_YAML_KEY = re.compile(r"^( *)(?:- +)*(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s#'\"\[\]{},&*!|>%@`:-][^#:\n]*?|-[^\s#:][^#:\n]*?)"
                       r"\s*:(?:[ \t]|$)")
_YAML_ITEM = re.compile(r"^ *-(?:[ \t]|$)")
_YAML_BLOCK = re.compile(r"[:\-]\s*[|>][+-]?\d*\s*(?:#.*)?$")
_YAML_COMPLEX = re.compile(r"^ *[?:](?:[ \t]|$)")  # complex mapping keys and their values
_SECTION = re.compile(r"^\s*\[\[?\s*[^\[\]=]+?\s*\]\]?\s*(?:[#;].*)?$")
# A key is a run of bare and quoted parts: TOML's dotted keys quote a part that holds a
# dot (entry-points."console.scripts".name = …).
# Written as a bare run, then (quoted part, bare run)*: each line splits into parts one way
# only, so a line that is no assignment fails in linear time.
_ASSIGN = re.compile(r"^\s*(?:export\s+)?(?=[\w.\-/$@{}\"'])[\w.\-/$@{}]*(?:(?:\"[^\"\n]*\"|'[^'\n]*')[\w.\-/$@{}]*)*"
                     r"(?::[A-Z][A-Z_]*)?\s*=(?!=)")  # a typed key: CMake's NAME:BOOL=ON
# Statement ends of code: an assignment line ending like this is a program, not a config.
_CODE_END = re.compile(r"[;{(]\s*$")
_OPENS_VALUE = re.compile(r"=\s*[\[{]\s*(?:#.*)?$")
# Comments of settings dumps besides #, ; and !: "// help text" and "-- Cache values" over
# `cmake -LAH`'s entries.
_SLASH_DASH_COMMENTS = ("// ", "-- ")
_SETTINGS_COMMENTS = ("#", ";", "!", *_SLASH_DASH_COMMENTS)
# _CODE_END on a stripped line: its last character
_CODE_ENDS = (";", "{", "(")


def _opens_value(s: str) -> bool:
    return ("[" in s or "{" in s) and _OPENS_VALUE.search(s) is not None


_TOML_VALUE = re.compile(r"^\s*(?=[\w.\-\"'])[\w.\-]*(?:(?:\"[^\"\n]*\"|'[^'\n]*')[\w.\-]*)*\s*=\s*"
                         r"(?:[\"'\[{]|[+-]?\d|true\b|false\b|inf\b|nan\b)")
_ENV_LINE = re.compile(r"^(?:export\s+)?[A-Za-z_][\w.]*=\S?")
_DOCKER_FIRST = re.compile(r"^\s*(?:FROM|ARG)\s", re.IGNORECASE)
_DOCKER = re.compile(r"^\s*(?:FROM|RUN|CMD|LABEL|EXPOSE|ENV|ADD|COPY|ENTRYPOINT|VOLUME|USER|WORKDIR|ARG|ONBUILD|"
                     r"STOPSIGNAL|HEALTHCHECK|SHELL|MAINTAINER)\s", re.IGNORECASE)
_MAKE_TARGET = re.compile(r"^[^\s:=#][^:=#]*?::?(?!=)(?:\s|$)")
_MAKE_ASSIGN = re.compile(r"^\s*(?:override\s+|export\s+)?[\w.\-${}()]+\s*(?::{1,3}|\?|\+|!)?=")
_MAKE_DIRECTIVE = re.compile(r"^\s*-?(?:ifeq|ifneq|ifdef|ifndef|else|endif|include|sinclude|define|endef|export|"
                             r"unexport|vpath|override)\b")
_SQL_START = re.compile(r"^\s*(?:CREATE|INSERT|SELECT|UPDATE|DELETE|ALTER|DROP|BEGIN|COMMIT|ROLLBACK|GRANT|REVOKE|"
                        r"WITH|SET|PRAGMA|COMMENT|TRUNCATE|VALUES|USE|START|END|DECLARE|REPLACE|DO|CALL|ANALYZE|VACUUM|"
                        r"EXPLAIN|COPY|LOCK|NOTIFY|LISTEN|REFRESH|REINDEX|CLUSTER|IMPORT|MERGE|SHOW|RESET|PREPARE|"
                        r"EXECUTE|DEALLOCATE|SAVEPOINT|RELEASE)(?=[\s(;]|$)", re.IGNORECASE)
# A header field at the line start ("Author: Ann", "Content-Type: text/plain"): no SQL
# statement holds one.
_HEADER_FIELD = re.compile(r"^[A-Z][A-Za-z-]*: \S")
# Template tags; "${{ }}" is an expression inside a YAML value (CI workflows), not a template.
_TEMPLATE_TAG = re.compile(r"\{%-?|(?<!\$)\{\{-?|<%[=#-]?")
_GO_TAG = re.compile(r"\{\{-?\s*(?:\.|end\b|if\b|range\b|with\b|define\b|template\b|include\b|\$)")
_JINJA_TAG = re.compile(r"\{%-?\s*\w")
_EXPR_TAG = re.compile(r"(?<!\$)\{\{")
_ERB_TAG = re.compile(r"<%[=#-]?\s")
_MD_HEADING = re.compile(r"^#{1,6}\s+\S")
_MD_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
_MD_TABLE = re.compile(r"^\s*\|.*\|\s*$")
_MD_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\S")
_MD_ADMONITION = re.compile(r"^\s*(?:!!!|\?\?\?\+?|:::|>\s*\[!)")
_XML_START = re.compile(r"^\s*(?:<\?xml|<!--|<[A-Za-z_][\w:.-]*[\s>/]|<!DOCTYPE\s+(?!html)\w)", re.IGNORECASE)
_HTML_ROOT = re.compile(r"^\s*(?:<!doctype\s+html|<html\b|<head\b|<body\b)", re.IGNORECASE)
_WORDS = re.compile(r"[A-Za-z][a-z'’-]*")
_SENTENCE_END = re.compile(r"[.!?:][\"')\]*_]*$|[.!?]\s+[A-Z]")
# _SENTENCE_END in two parts, faster: the line's end past closing quotes and brackets,
# then a sentence end inside it (a lone alternation scans every character twice).
_CLOSING = "\"')]*_"
_SENTENCE_INSIDE = re.compile(r"[.!?]\s+[A-Z]")


def ends_sentence(s: str) -> bool:
    """``_SENTENCE_END.search(s)`` for a stripped line ``s``."""
    t = s.rstrip(_CLOSING)
    return bool(t) and t[-1] in ".!?:" or _SENTENCE_INSIDE.search(s) is not None
_STRUCTURAL = re.compile(r"[{}\[\]<>=;|\\$@#]")

_SHARE = 0.9  # sampled non-blank lines that must fit a format's grammar
_MIN_LINES = 5


def detect_format(text: str, sample: list[str]) -> str | None:
    """The format name (see ``formats.FORMATS``, or ``"markdown"``) or None."""
    nonblank = list(filter(str.strip, sample))
    n = len(nonblank)
    if n < _MIN_LINES:
        return None
    first = nonblank[0].lstrip()
    if first[:1] in "{[" and not _SECTION.match(nonblank[0]) and not _TEMPLATE_TAG.match(first):
        return "jsonc" if _has_json_comments(nonblank) else None
    if first.startswith(("//", "/*")):  # a leading comment, then an object or array: JSON with comments
        body = _first_statement(nonblank, ("//", "/*", "*"))
        if body is not None and body.lstrip()[:1] in "{[" and not _SECTION.match(body):
            return "jsonc"
    if first.startswith("<"):
        template = _template_kind(nonblank)
        if template is None and not _HTML_ROOT.match(first) and _is_markdown(nonblank):
            # A README that opens on HTML (a centred logo, badges) and goes on in Markdown
            # (headings, fenced code): Markdown, whose blocks are kept whole; read as an HTML
            # page its code fences were flattened into text (issue 33).
            return "markdown"
        if template is not None or _HTML_ROOT.match(first) or not _XML_START.match(first):
            return template  # plain HTML pages stay with the HTML compressor
        return "xml" if _xml_share(nonblank) >= 0.5 else None
    template = _template_kind(nonblank)
    if template is not None:
        return template
    # Each format's first statement line must already fit it: most texts leave every
    # grammar below after one line, so claiming costs next to nothing when nothing fits.
    lead = _first_statement(nonblank, ("#",))
    if lead is not None and _DOCKER_FIRST.match(lead) and _is_dockerfile(nonblank):
        return "dockerfile"
    if _is_makefile(nonblank):
        return "makefile"
    sql_lead = _first_statement(nonblank, ("--", "/*", "*", "\\"))  # and psql meta-commands
    if sql_lead is not None and _SQL_START.match(sql_lead) and _is_sql(sample):
        return "sql"
    yaml_lead = _first_statement(nonblank, ("#", "---", "%", "..."))
    if yaml_lead is not None and (_YAML_KEY.match(yaml_lead) or _YAML_ITEM.match(yaml_lead)) \
            and _is_yaml(sample, nonblank):
        return "yaml"
    ini_lead = _first_statement(nonblank, _SETTINGS_COMMENTS)
    if ini_lead is not None and (_SECTION.match(ini_lead) or _ASSIGN.match(ini_lead)):
        kind = _ini_family(nonblank)
        if kind is not None:
            return kind
    if ini_lead is not None and _COLON_ASSIGN.match(ini_lead) and _colon_properties(nonblank):
        return "properties"
    if _is_markdown(nonblank):
        return "markdown"
    return None


def _first_statement(nonblank: list[str], comments: tuple[str, ...]) -> str | None:
    """The first line that is not a comment in the given syntax."""
    for ln in nonblank:
        if not ln.lstrip().startswith(comments):
            return ln
    return None


def _share(lines: list[str], hit) -> float:
    return sum(1 for ln in lines if hit(ln)) / len(lines)


def _xml_share(nonblank: list[str]) -> float:
    """Share of lines that are markup: a tag's line, or a line inside a comment or inside a
    tag whose attributes run over several lines (a licence header in a comment, a root
    element's namespace declarations), which are text only to a line-by-line reading."""
    fit = 0
    in_comment = in_tag = False
    for ln in nonblank:
        s = ln.strip()
        if in_comment or in_tag or s[:1] == "<":
            fit += 1
        if in_comment:
            in_comment = "-->" not in s
        elif s.startswith("<!--"):
            in_comment = "-->" not in s[4:]
        elif in_tag or s[:1] == "<":
            in_tag = ">" not in s
    return fit / len(nonblank)


def _has_json_comments(nonblank: list[str]) -> bool:
    return any(ln.lstrip().startswith(("//", "/*")) for ln in nonblank)


def _template_kind(nonblank: list[str]) -> str | None:
    """Jinja, Go template or ERB: template tags on at least 3 lines and 5 % of the sample."""
    joined = "\n".join(nonblank)  # (no tag opener holds a newline)
    if "{%" not in joined and "{{" not in joined and "<%" not in joined:
        return None
    tagged = [ln for ln in nonblank if _TEMPLATE_TAG.search(ln)]
    if len(tagged) < max(3, 0.05 * len(nonblank)):
        return None
    go = sum(1 for ln in tagged if _GO_TAG.search(ln))
    erb = sum(1 for ln in tagged if _ERB_TAG.search(ln))
    # Jinja: its statements, or "{{ expr }}" lines Go's syntax does not explain.
    jinja = sum(1 for ln in tagged if _JINJA_TAG.search(ln) or (_EXPR_TAG.search(ln) and not _GO_TAG.search(ln)))
    best = max((jinja, "jinja"), (go, "gotemplate"), (erb, "erb"))
    return best[1] if best[0] >= 3 else None


def _is_dockerfile(nonblank: list[str]) -> bool:
    code = [ln for ln in nonblank if not ln.lstrip().startswith("#")]
    if len(code) < 3 or not re.match(r"^\s*(?:FROM|ARG)\s", code[0], re.IGNORECASE):
        return False
    heads, cont = 0, False
    for ln in code:
        if not cont and _DOCKER.match(ln):
            heads += 1
        cont = ln.rstrip().endswith("\\")
    # Continuation lines (long RUN commands) are not heads: count instructions against
    # lines that start a logical line.
    starts = sum(1 for k, ln in enumerate(code) if k == 0 or not code[k - 1].rstrip().endswith("\\"))
    return heads >= 3 and heads >= 0.9 * starts


def _is_makefile(nonblank: list[str]) -> bool:
    if sum(map(str.startswith, nonblank, repeat("\t"))) < 2:  # recipes: most texts have none
        return False
    if sum(1 for ln in nonblank if _MAKE_TARGET.match(ln)) < 2:  # targets
        return False
    fit, cont = 0, False
    for ln in nonblank:
        if cont or ln.startswith("\t") or ln.lstrip().startswith("#") or _MAKE_TARGET.match(ln) \
                or _MAKE_ASSIGN.match(ln) or _MAKE_DIRECTIVE.match(ln):
            fit += 1
        cont = ln.rstrip().endswith("\\")
    return fit >= _SHARE * len(nonblank)


def _is_sql(sample: list[str]) -> bool:
    from .formats import sql_statement_end

    statements = fit = total = 0
    i, n = 0, len(sample)
    while i < n:
        s = sample[i].strip()
        if not s:
            i += 1
            continue
        if s.startswith(("--", "\\")):  # comments, psql meta-commands
            fit += 1
            total += 1
            i += 1
            continue
        if s.startswith("/*"):  # a block comment, up to its closer
            j = i
            while j < n and "*/" not in sample[j]:
                j += 1
            span = sum(1 for ln in sample[i:j + 1] if ln.strip())
            fit += span
            total += span
            i = j + 1
            continue
        if not _SQL_START.match(s):
            total += 1
            i += 1
            continue
        end = sql_statement_end(sample, i)
        if end is None:  # the sample ends inside a statement
            end = n
        elif any(_HEADER_FIELD.match(ln) for ln in sample[i + 1:end]):
            # "Author: …" / "Date: …" at the line start: a commit or mail header that
            # happens to start with a keyword ("commit 1f3a…"), never an SQL statement.
            total += 1
            i += 1
            continue
        else:
            statements += 1
        span = sum(1 for ln in sample[i:end] if ln.strip())
        fit += span
        total += span
        i = end
    # Three statements, or fewer when nothing else is there (a script of one DO block).
    return (statements >= 3 and fit >= _SHARE * total) or (statements >= 1 and fit == total)


def _ini_family(nonblank: list[str]) -> str | None:
    """TOML, INI/cfg or properties/.env: sections and ``key = value`` lines (their
    continuations: indented lines for INI, a multi-line array or table for TOML, a
    trailing backslash). Keys are distinct within a section; no line ends like code."""
    sections = assigns = typed = env = fit = 0
    cont = False
    depth = 0
    keys: set[str] = set()
    repeats = typed_keys = 0  # typed_keys: CMake's NAME:TYPE=value
    for ln in nonblank:
        s = ln.strip()
        if depth > 0 or cont:
            fit += 1
            if depth > 0:
                depth = max(0, depth + s.count("[") + s.count("{") - s.count("]") - s.count("}"))
        elif s[0] in "#;!" or s.startswith(_SLASH_DASH_COMMENTS):
            fit += 1
        elif s[0] == "[" and _SECTION.match(ln):
            sections += 1
            fit += 1
            keys = set()
        elif (m := _ASSIGN.match(ln)) and not (s.endswith(_CODE_ENDS) and not _opens_value(s)):
            assigns += 1
            fit += 1
            key = m.group(0).split("=", 1)[0].strip()
            repeats += key in keys
            keys.add(key)
            typed_keys += ":" in key
            if _TOML_VALUE.match(ln):
                typed += 1
            if _ENV_LINE.match(ln):
                env += 1
            if _opens_value(s):
                depth = 1
        elif ln[:1] in " \t" and assigns and not s.endswith(_CODE_ENDS):
            fit += 1  # INI continuation line
        cont = s.endswith("\\")
    n = len(nonblank)
    if 0 < assigns < 3 and env == assigns and fit == n and repeats == 0:
        return "properties"  # a .env of a few variables among comments: every line fits
    if assigns < 3 or fit < _SHARE * n or repeats > 0.1 * assigns:
        return None
    if sections and typed >= 0.8 * assigns:
        return "toml"
    if sections:
        return "ini"
    if typed >= 0.8 * assigns and any(" = " in ln for ln in nonblank):
        return "toml"
    if env >= 0.8 * assigns or typed_keys >= 0.8 * assigns \
            or all(":" not in ln.split("=", 1)[0] for ln in nonblank if "=" in ln):
        return "properties"
    return None


# ``key:value`` with nothing but the value after the colon (``redis-cli INFO``'s
# ``used_memory:11351496``): YAML wants a blank after a key's colon, prose and logs put one.
_COLON_ASSIGN = re.compile(r"[A-Za-z_][\w.\-]*:(?:\S|$)")


def _colon_properties(nonblank: list[str]) -> bool:
    """Nearly every line a ``#`` comment or a ``key:value`` (no blank after the colon),
    at least five of them, keys distinct (a log's "INFO:root:..." repeats its key)."""
    keys: set[str] = set()
    assigns = fit = repeats = 0
    for ln in nonblank:
        if ln[0] == "#":
            fit += 1
        elif _COLON_ASSIGN.match(ln):
            key = ln.split(":", 1)[0]
            repeats += key in keys
            keys.add(key)
            assigns += 1
            fit += 1
    return assigns >= 5 and fit >= _SHARE * len(nonblank) and repeats <= 0.1 * assigns


def _is_yaml(sample: list[str], nonblank: list[str]) -> bool:
    """Nearly every line a key, an item, a comment, a document marker or inside a block
    scalar / flow collection; top-level keys distinct; no tab indentation."""
    keys = fit = 0
    roots: set[str] = set()
    repeats = top = spaced_numbers = 0
    scalar_indent = -1  # inside a block scalar deeper than this
    flow = 0
    misses, allowed = 0, (1 - _SHARE) * len(nonblank)
    open_indents: list[int] = []  # the block indents open at this line (_dedents_to_open)
    left = len(nonblank)  # nonblank lines not read yet: each can add one top-level key at most
    for ln in sample:
        s = ln.strip()
        if not s:
            continue
        if misses > allowed:
            return False
        misses += 1  # taken back below when the line fits
        left -= 1
        ind = len(ln) - len(ln.lstrip(" "))
        if ln[:1] == "\t":
            return False
        if scalar_indent >= 0:
            if ind > scalar_indent:
                fit += 1
                misses -= 1
                continue
            scalar_indent = -1
        if flow > 0:
            fit += 1
            misses -= 1
            flow = max(0, flow + s.count("[") + s.count("{") - s.count("]") - s.count("}"))
            continue
        if s.startswith(("#", "--- ")) or s in ("---", "..."):
            fit += 1
            misses -= 1
            if not s.startswith("#"):
                roots = set()  # a new document: its top-level keys start afresh
            if ("|" in s or ">" in s) and _YAML_BLOCK.search(s):
                scalar_indent = ind
            continue
        m = _YAML_KEY.match(ln) if ":" in ln else None  # (a key line holds its colon)
        if m or _YAML_ITEM.match(ln) or _YAML_COMPLEX.match(ln):
            if not _dedents_to_open(open_indents, ind, ln):
                return False
            fit += 1
            misses -= 1
            if m:
                keys += 1
                if ind == 0 and not s.startswith("-"):
                    root = s.split(":", 1)[0]
                    repeats += root in roots
                    roots.add(root)
                    top += 1
                    # "postmaster 1795774619.416 [2444] LOG": a log line's prefix (words
                    # and numbers before a level and a colon), not a mapping key.
                    spaced_numbers += " " in root and any(ch.isdigit() for ch in root)
                    if _keys_fail_anyway(repeats, spaced_numbers, top + left):
                        return False  # importtime's 200 "import time:" keys stop after 21
            if ("|" in s or ">" in s) and _YAML_BLOCK.search(s):
                scalar_indent = ind
            else:
                flow = max(0, s.count("[") + s.count("{") - s.count("]") - s.count("}")) \
                    if "[" in s or "{" in s else 0
    n = len(nonblank)
    if keys < 3 or fit < _SHARE * n:
        return False
    return repeats <= 0.1 * top and spaced_numbers <= 0.5 * top


def _keys_fail_anyway(repeats: int, spaced_numbers: int, most_top: int) -> bool:
    """Whether ``_is_yaml``'s last test of its top-level keys fails whatever the lines
    left say: neither count ever falls, and ``top`` can reach ``most_top`` at most (one
    more for each line left)."""
    return repeats > 0.1 * most_top or spaced_numbers > 0.5 * most_top


_DASHES = re.compile(r" *(?:- +)+")


def _dedents_to_open(open_indents: list[int], ind: int, line: str) -> bool:
    """False when ``line`` (a key or item line ``ind`` blanks deep) goes back to an indent
    no open block has: YAML's block structure cannot read it ("expected <block end>"), so
    the text is no YAML whatever its lines look like. pickletools' listing right-aligns
    its offsets ("    2: ...", "   11: ...", "  107: ..."): every wider offset is such a
    line. Updates ``open_indents`` (a line deeper than the last opens a block; an item's
    dashes open one more where its content starts)."""
    dedented = False
    while open_indents and open_indents[-1] > ind:
        open_indents.pop()
        dedented = True
    if dedented and (not open_indents or open_indents[-1] != ind):
        return False
    if not open_indents or open_indents[-1] < ind:
        open_indents.append(ind)
    dashes = _DASHES.match(line)
    if dashes is not None:
        open_indents.append(dashes.end())
    return True


def _is_markdown(nonblank: list[str]) -> bool:
    fences = headings = tables = admonitions = 0
    for ln in nonblank:
        c = ln.lstrip()[:1]
        if c not in "#`~|!:>?":
            continue  # most lines of any text: no Markdown block starts here
        if _MD_FENCE.match(ln):
            fences += 1
        elif _MD_HEADING.match(ln):
            headings += 1
        elif _MD_TABLE.match(ln):
            tables += 1
        elif _MD_ADMONITION.match(ln):
            admonitions += 1
    front = nonblank[0].strip() == "---"
    structure = (fences >= 2) + (headings >= 2) + (tables >= 3) + (admonitions >= 1) + front
    return structure >= 2 or (fences >= 2 and headings >= 1)


_INDENTED_SHARE = 0.5  # of the nonblank lines, indented two blanks or more: a layout, not prose


def is_prose(sample: list[str]) -> bool:
    """Paragraphs of sentences: most lines carry many words, lines (or paragraphs) end
    sentences, and structural characters are rare."""
    stripped = [s for ln in sample if (s := ln.strip())]
    n = len(stripped)
    if not n:
        return False
    # Paragraphs of prose run flush left; a text whose lines are mostly indented is laid
    # out (a manual page's sections and option entries, a help screen): its lines carry
    # the layout and are selected whole, not joined (issue 33).
    if sum(1 for ln in sample if ln[:2].isspace() and not ln.isspace()) > _INDENTED_SHARE * n:
        return False
    # Three tests, cheapest first, each may answer no alone. Structural characters are
    # single characters: counted over the lines joined, in C. Most texts that are not
    # prose (disassembly, package lists, man pages' option tables) fail it.
    if len(_STRUCTURAL.findall("\n".join(stripped))) > 0.03 * sum(map(len, stripped)):
        return False
    if sum(1 for s in stripped if ends_sentence(s)) < 0.25 * n:
        return False
    need, wordy, left = 0.6 * n, 0, n
    for s in stripped:  # stops as soon as the share is reached or out of reach
        left -= 1
        words = _WORDS.findall(s)
        if len(words) >= 5 and sum(map(len, words)) >= 0.6 * len(s):
            wordy += 1
            if wordy >= need:
                return True
        elif wordy + left < need:
            return False
    return wordy >= need
