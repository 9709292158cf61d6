"""Content-type detection for tool outputs.

Cheap, ordered heuristics on a bounded sample of the text: structured formats first
(JSON, diff, search hits) because they are unambiguous, then HTML, logs and code, and
plain text as the fallback.
"""

from __future__ import annotations

import enum
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .diagnostics.parse import is_diagnostic_line, parse_report
from .hexdump import looks_like_dump
from .tables.aligned import Layout, LayoutOf, column_header, ends_in_names
from .tables.aligned import infer as aligned_table
from .tables.fields import infer_both as infer_fields_both
from .tables.framed import infer as framed_table
from .tables.outline import infer as infer_outline
from .tables.sniff import sniff as sniff_table
from .tables.stanzas import infer as infer_stanzas
from .templates import keys_of, mine
from .text_tree import is_text_tree


class ContentType(str, enum.Enum):
    JSON_ARRAY = "json_array"
    JSON_OBJECT = "json_object"
    DIFF = "diff"
    TABLE = "table"
    GIT_LOG = "git_log"
    LISTING = "listing"
    SEARCH = "search"
    HTML = "html"
    LOG = "log"
    DIAGNOSTICS = "diagnostics"
    CODE = "code"
    # Config, build and query files, templates, Markdown, and text that is not prose:
    # whole lines selected (compressors/structured/, which decides it after detect()).
    STRUCTURED = "structured"
    TEXT = "text"


_SAMPLE_LINES = 200
_SAMPLE_CHARS = 65_536  # where the sample lines are looked for first (a 600 kB log splits in ~1 ms)
_SEARCH_LINE = re.compile(r"^(?:\./)?[\w./\\@+-]+\.[\w]+[:-]\d+[:-]")  # "@": npm scopes
_GREP_N = re.compile(r"^(?:\./)?[\w./\\@+-]+\.\w+:\d+:")  # grep -n / rg: "path:line:" with colons
# rg/grep without line numbers: "path:text". The path needs a slash or a known source
# extension, so "server.port: 8080" (YAML, properties) does not count, and a single colon,
# so pytest node ids ("tests/test_a.py::test_x PASSED") and URLs do not either.
_SEARCH_NO_LINE = re.compile(
    r"^(?:\./)?(?:[\w.@+-]+/)+[\w.-]+:(?![/:])|"
    r"^[\w.-]+\.(?:py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|kts|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|sh|"
    r"md|rst|txt|json|ya?ml|toml|ini|cfg|html?|css|scss|sql|xml|vue|svelte|proto|ex|exs|lua|dart|tf):(?!:)"
)
# rg's heading mode: a path on its own line, then "12:text" lines.
_HEADING_PATH = re.compile(r"^(?:\./)?[\w.@+-]+(?:/[\w.@+-]+)*(?:/[\w.-]+|\.\w{1,10})$")
_HEADING_HIT = re.compile(r"^\d+[:-]")
_DIFF_START = re.compile(r"^(?:diff --git |--- \S|\+\+\+ \S|@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@)", re.MULTILINE)
_HTML = re.compile(r"<(?:!doctype html|html|head|body|div|p|span|table|a\s|script|ul|li)\b", re.IGNORECASE)
# Every shape but a stack frame's "at" starts with a visible character, so the leading
# blanks are taken whole ("(?!\s)": no backtracking into them, where the engine would try
# all the shapes again at each blank of an indented line, 2.4x the time on the dev
# corpus), and the frame's "\s+at" becomes "at" after a blank.
_LOG_LINE = re.compile(
    r"^\s*(?!\s)(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|"
    r"\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\b|"
    r"(?:PASSED|FAILED|ERROR|ok|FAIL|PASS)\b|npm (?:ERR|WARN)|Traceback |(?<=\s)at [\w.$]+\(|"
    r"[\w./-]+\.py::\S+|={3,}|-{3,} |_{3,} \S|E {2,}\S|\S+ [.FEsxX]*\s*\[\s*\d+%\]$|"
    r"File \"[^\"]+\", line \d+|"
    # cargo / rustc / gcc-style build output
    # (case-sensitive, with a version or a backtick, so prose starting "Running the…" does not count)
    r"(?-i:(?:Compiling|Downloaded|Downloading|Checking|Fresh|Installing|Locking|Adding) \S+ v?\d|"
    r"(?:Finished|Running|Updating) [`\w.-]+ (?:index|profile|\[|`)|(?:Finished|Running) `)|"
    r"(?:warning|error)(?:\[\w+\])?: |--> \S+:\d+:\d+)",
    re.IGNORECASE,
)
# Where a log line's own prefix shows within its first characters (after a pid, a host, a
# file name or a component): a timestamp in one of the common shapes, or a level word.
# Case-sensitive level words, so prose ("for your info") does not count.
# Level words (upper-case), "[warn]" and level=, each with its first character consumed
# (see _LOG_MARK).
_MARK_LEVELS = (
    r"(?<=[A-Z])(?<!\w[A-Z])(?:(?<=T)RACE|(?<=D)EBUG|(?<=I)NFO|(?<=N)OTICE|(?<=W)ARN(?:ING)?|(?<=E)RROR|"
    r"(?<=F)ATAL|(?<=C)RITICAL|(?<=S)EVERE)\b|"
    r"(?<=\[)(?:trace|debug|info|notice|warn|warning|error|crit|alert|emerg)\]|"
    r"(?<=l)(?<!\wl)(?:evel|vl)=\w"
)
_LOG_MARK = re.compile(
    # Written as one character class ([\d\[A-Zl], every shape's first character) followed
    # by the shapes with that character consumed: the regex engine then skips, in C, every
    # position that cannot start a mark, where a plain alternation tries all ten shapes at
    # each of the 80 positions (2x faster; the same lines match, pinned by
    # tests/compressors/test_detect_speed.py). Shapes, in order: ISO date-time; hh:mm:ss;
    # "23 Nov 2026 18:17"; syslog "Nov 23 18:17:07"; Apache "[23/Nov/2026:18:17:07";
    # upper-case level words; "[warn]"; level=.
    # A leading \b becomes (?<!\w<first char>) once the first character is consumed.
    r"[\d\[A-Zl](?:"
    r"(?<=\d)\d{3}-\d{2}-\d{2}[T ]\d{2}:\d{2}|"
    r"(?<=\d)(?<![\w:]\d)\d:\d{2}:\d{2}\b(?!:\w)|"
    r"(?<=\d)(?<!\w\d)\d? [A-Z][a-z]{2} \d{4} \d{2}:\d{2}|"
    r"(?<=[A-Z])(?<!\w[A-Z])[a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|"
    r"(?<=\[)\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}|"
    + _MARK_LEVELS + ")"
)
# Every time shape holds a colon; a span without one can only show a level, and skipping
# the time shapes matters on digit-dense lines (CSV, tables), where every digit would
# start one.
_LOG_MARK_UNTIMED = re.compile(r"[\[TDINWEFCSl](?:" + _MARK_LEVELS + ")")
_LOG_MARK_SPAN = 80


def _has_log_mark(line: str) -> bool:
    """Whether ``_LOG_MARK`` matches within the line's first ``_LOG_MARK_SPAN`` characters."""
    if line.find(":", 0, _LOG_MARK_SPAN) >= 0:
        return _LOG_MARK.search(line, 0, _LOG_MARK_SPAN) is not None
    return _LOG_MARK_UNTIMED.search(line, 0, _LOG_MARK_SPAN) is not None
# A multi-file log: every line starts with its source file's name (which may itself hold
# a timestamp with colons) and a colon, then the log line. No line number: that is grep.
_SOURCED_LOG = re.compile(r"^(?=\S*?\.\w{1,8}:)\S*?\.\w{1,8}:\s?(?!\d+[:-])")
# A compiler or linter report: lines "path:line[:col]: severity-or-code message [rule]"
# that, with their excerpts, carets and notes, make up most of the output (see
# headroom.compressors.diagnostics.parse). Grep hits (path:line:text) have no severity or
# rule code after the location.
_DIAGNOSTIC_SHARE = 0.5
_GIT_COMMIT = re.compile(r"^commit [0-9a-f]{7,64}\b")
_GIT_HEADER = re.compile(r"^(?:Author|Date):\s")
# Two whitespace-separated columns (pip list, du, "key value" tables): the first has no
# inner spaces and the second may hold single spaces only when split by a tab. Mapping
# syntax ("key: value", "'k': 'v',") is an object literal or YAML, not a listing.
_TWO_COLUMNS = re.compile(r"^\s*\S+(?<![:,])(?:\t+|\s{2,}|\s)\S+(?<!,)\s*$|^\s*\S+(?<![:,])\t[^\t]+$")
_RULE_ROW = re.compile(r"^[-=\s|+]+$")
_LISTING_MIN_ROWS = 12
_ALIGNED_MIN_ROWS = 12
_MAX_TABLE_PREAMBLE = 8  # summary lines a table's header may sit under (top's five)
_CODE_LINE = re.compile(
    r"^\s*(?:def |class |import |from \S+ import |function |const |let |var |export |public |private |"
    r"protected |static |func |fn |package |#include|using |return\b|if \(|for \(|while \(|\}|\{$|@\w+)"
)


_FIRST_VISIBLE = re.compile(r"\s*(\S)")


def first_visible_char(text: str) -> str:
    """The first non-whitespace character ("" if none), without copying the text the
    way ``text.strip()`` does (megabytes, for a large tool output)."""
    m = _FIRST_VISIBLE.match(text)
    return m.group(1) if m else ""


def parse_json(text: str):
    """The JSON value of ``text`` (an object or array), or None."""
    if first_visible_char(text) not in ("[", "{"):
        return None
    try:
        return json.loads(text)  # surrounding whitespace is valid JSON
    except (ValueError, RecursionError):
        return None


@dataclass(frozen=True)
class Detected:
    type: ContentType
    # The parsed value when the text is JSON, handed to the JSON compressor so a large
    # tool output is parsed once (and freed with the request, not cached).
    parsed: Any = None
    # What detection learned about a text's structure that its compressor would work out
    # again (a delimited table's dialect), else None.
    hint: Any = None
    # Why the text got its type where its plain shape does not say (a log whose lines
    # start with a file name), for the decision record; "" otherwise.
    why: str = ""


def detect(text: str) -> Detected:
    if first_visible_char(text) in ("[", "{"):
        data = parse_json(text)
        if isinstance(data, list):
            return Detected(ContentType.JSON_ARRAY, data)
        if isinstance(data, dict):
            return Detected(ContentType.JSON_OBJECT, data)
    found: dict[str, Any] = {}
    ctype = _detect_text(text, found)
    if "why" in found:
        return Detected(ctype, why=found["why"])
    if "stanzas" in found:
        return Detected(ctype, hint=found["stanzas"])
    if "fields" in found:
        return Detected(ctype, hint=found["fields"])
    if "outline" in found:
        return Detected(ctype, hint=found["outline"])
    if "framed" in found and not _OTHER_BREAKS.search(text, 0, _end_of_line(text, 64)):
        return Detected(ctype, hint=found["framed"])  # (the compressor's lines are text.split("\n"))
    dialect = found.get("dialect")
    # The table compressor sniffs the first 64 lines of ``text.split("\n")``; detection
    # sniffed ``splitlines()``: the same lines unless another line break occurs there.
    if dialect is not None and not _OTHER_BREAKS.search(text, 0, _end_of_line(text, 64)):
        return Detected(ctype, hint=dialect)
    if "aligned" in found:
        return Detected(ctype, hint=found["aligned"])
    return Detected(ctype)


# Line breaks of str.splitlines() other than "\n".
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _end_of_line(text: str, k: int) -> int:
    """Offset just past the k-th "\n" of ``text`` (its length when it has fewer)."""
    pos = -1
    for _ in range(k):
        pos = text.find("\n", pos + 1)
        if pos < 0:
            return len(text)
    return pos + 1


def detect_content_type(text: str) -> ContentType:
    return detect(text).type


def _at_least(lines: list[str], hit: Callable[[str], object], k: float) -> bool:
    """Whether at least ``k`` of ``lines`` are hits, stopping as soon as the answer is
    known (k reached, or too few lines left to reach it): the same answer as counting them
    all, for a fraction of the regex passes on a 200-line sample."""
    hits, left = 0, len(lines)
    for ln in lines:
        left -= 1
        if hit(ln):
            hits += 1
            if hits >= k:
                return True
        elif hits + left < k:
            return False
    return hits >= k


def _is_search_line(ln: str) -> bool:
    return bool(_SEARCH_LINE.match(ln) or _SEARCH_NO_LINE.match(ln))


def _is_log_line(ln: str) -> bool:
    return bool(_LOG_LINE.match(ln)) or _has_log_mark(ln)


def _is_json_line(ln: str) -> bool:
    return ln.lstrip().startswith("{") and ln.rstrip().endswith("}")


def _detect_text(text: str, found: dict[str, Any] | None = None) -> ContentType:
    lines = _sample_lines(text)
    nonblank = [ln for ln in lines if ln.strip()]
    if not nonblank:
        return ContentType.TEXT
    if _is_script_or_numbered_code(text):
        return ContentType.CODE
    n = len(nonblank)
    if _diff_starts(lines) >= 2:
        return ContentType.DIFF
    if _is_git_log(nonblank):
        return ContentType.GIT_LOG
    if looks_like_dump(nonblank) or is_text_tree(nonblank):
        # Hex dumps (hexdump -C, xxd) and box-drawn trees (npm ls, tree): ListingCompressor
        # hands them on.
        return ContentType.LISTING
    # Before logs: a CSV with a timestamp column would otherwise read as a log.
    dialect = sniff_table(lines)
    if dialect is not None:
        if found is not None:
            found["dialect"] = dialect
        return ContentType.TABLE
    # Rows between bars under a ruled header (sqlite3 -box, the MySQL client, psql with
    # borders): before the log checks too, and before the aligned reading, which takes the
    # bars for columns.
    frame = framed_table(lines)
    if frame is not None:
        if found is not None:
            found["framed"] = frame
        return ContentType.TABLE
    # Records printed one field per line, a blank line between them (sqlite3 -line, dpkg
    # status): a table on its side, before the log checks, whose recurring field names
    # would read as a log's few templates.
    stanzas = infer_stanzas(lines)
    if stanzas is not None:
        if found is not None:
            found["stanzas"] = stanzas
        return ContentType.TABLE
    if _at_least(nonblank, _is_sourced_log_line, max(3, 0.6 * n)):
        return ContentType.LOG
    if _is_diagnostics(lines, nonblank):
        return ContentType.DIAGNOSTICS  # compiler/linter diagnostics: a report, not grep hits
    if _at_least(nonblank, _is_search_line, max(2, 0.6 * n)):
        # A file name before each line's timestamp ("worker.log.2.2024-03-02_10:00:00
        # 2024-03-02 10:00:01.120 …") reads like grep's "path:line:"; repeated templates say
        # log. Real "path:line:" hits (grep -n, even over a log) stay search hits.
        if _at_least(nonblank, _GREP_N.match, 0.5 * n):
            return ContentType.SEARCH
        return _log_by_templates(nonblank, found) or ContentType.SEARCH
    if is_listing(nonblank):
        return ContentType.LISTING
    heading_hits = sum(1 for ln in nonblank if _HEADING_HIT.match(ln))
    if heading_hits >= 2:  # rg's heading mode needs hits under the paths: skip the path pass otherwise
        # A path heading holds no blank (the pattern allows none): most lines skip the regex.
        headings = sum(1 for ln in map(str.strip, nonblank) if " " not in ln and _HEADING_PATH.match(ln))
        if headings and headings + heading_hits >= 0.8 * n:
            return ContentType.SEARCH
    code_header = nonblank[0].lstrip().startswith(_HEADER_START)
    if code_header and (_at_least(nonblank, _CODE_LINE.match, max(3, 0.2 * n)) or _is_code_by_family(text)):
        return ContentType.CODE  # before HTML and logs: doc comments hold tags, constants read as levels
    if "<" in text[:20000] and len(_HTML.findall(text[:20000])) >= 3:
        return ContentType.HTML
    if (n > _ALIGNED_MIN_ROWS and any(map(column_header, nonblank[:_MAX_TABLE_PREAMBLE]))
            and _at_least(nonblank, _has_double_space, 0.8 * n)):
        # A header row of names over aligned columns (under a few summary lines, as in
        # ``top``) is a table even when a column holds times (``ps``'s TIME, ``ls -l``'s
        # dates), which would otherwise make it a log: a log has no header naming its fields.
        layout = aligned_table(lines)
        if layout is not None and layout.header is not None:
            return _aligned(layout, text, found)
        aligned_tried = (layout,)  # inferred once: the check after the logs reuses it
    else:
        aligned_tried = ()
    if _headed_records(lines):
        return ContentType.TEXT  # whole lines selected (structured "lines"): a head names its record
    if not aligned_tried and n > _ALIGNED_MIN_ROWS and not _LOG_LINE.match(nonblank[0]) \
            and _same_word_counts(nonblank) and _at_least(nonblank, _has_double_space, 0.9 * n):
        # Rows of aligned fields, as many on each, ending in one name each (``tar -tvv``,
        # ``ls -l`` without "total"): a date in a middle column is a file's, not a log
        # line's time (a log line opens on its time, and ends in free text).
        aligned_tried = (aligned_table(lines),)
        if aligned_tried[0] is not None and ends_in_names(lines, aligned_tried[0]):
            return _aligned(aligned_tried[0], text, found)
    if _at_least(nonblank, _is_log_line, max(3, 0.3 * n)):
        return ContentType.LOG
    # Columns aligned by whitespace (dpkg -l, ps aux, ls -l, kubectl get): after logs, so a
    # fixed-width log with timestamps stays a log; most such tables have a gutter of two
    # spaces somewhere on nearly every row, which rules prose out cheaply.
    if (n > _ALIGNED_MIN_ROWS and _at_least(nonblank, _has_double_space, 0.9 * n)
            and (layout := aligned_tried[0] if aligned_tried else aligned_table(lines)) is not None):
        return _aligned(layout, text, found)
    if _at_least(nonblank, _CODE_LINE.match, max(3, 0.2 * n)):
        return ContentType.CODE
    # JSON lines (one object per line) behave like a log.
    if n >= 3 and _at_least(nonblank, _is_json_line, 0.8 * n):
        return ContentType.LOG
    # Rows of single-blank separated fields (ssh-keygen -l, stat -t, nm -S): a table
    # without gutters, before the timestamp-less log reading would fold its rows.
    fields, fields_with_tail = infer_fields_both(nonblank)
    if fields is not None:
        if found is not None:
            found["fields"] = fields
        return ContentType.TABLE
    if _repetitive_lines(nonblank):
        # Lines opening on a few words may be the named fields of records nested in an
        # outline (a debugger's entry tree: each entry a head over its indented
        # ``name : value`` attributes): read as a log, the one record a question names
        # comes without its other fields.
        if not _at_least(nonblank, _NAMED_FIELD.match, _NAMED_FIELDS_SHARE * n):
            return ContentType.LOG  # few named fields in the sample: no need to read the outline
        return _outline_table(text, found, fielded=True) or ContentType.LOG
    # A log whose lines start with something other than their timestamp (a dash, an alert
    # category, a long host and node id) has its marks past where _has_log_mark looks.
    if (log := _log_by_templates(nonblank, found)) is not None:
        return log
    if _is_code_by_family(text):
        return ContentType.CODE  # code behind a long docstring or licence header, or with few keyword lines
    return _late_table(text, fields_with_tail, found) or ContentType.TEXT


def _aligned(layout: Layout, text: str, found: dict[str, Any] | None) -> ContentType:
    """TABLE, read as aligned columns: the layout goes to ``found`` with the text it was
    read from, when the sample is all of the text's lines. Its compressor's lines
    (``text.split("\n")``) are then the sample's, but for blank ones after the last (no
    other line break), which no layout reads: it takes this one instead of reading them
    again (``aligned.infer`` reads the nonblank lines only, by their index)."""
    if found is not None and text.count("\n") < _SAMPLE_LINES and not _OTHER_BREAKS.search(text):
        found["aligned"] = LayoutOf(text, layout)
    return ContentType.TABLE


def _late_table(text: str, fields_with_tail: Callable[[], Any], found: dict | None) -> ContentType | None:
    """Tables read only once nothing else claimed the text: a lead of fields and a free
    tail (``ctags -x``: name, kind, line, file, source line; a log line is the same shape),
    and records nested in an outline (``javap -v``'s methods, read on the whole text: the
    sample may hold none of them)."""
    fields = fields_with_tail()  # the sampled lines' fields, read again with a free tail allowed
    if fields is not None:
        if found is not None:
            found["fields"] = fields
        return ContentType.TABLE
    return _outline_table(text, found)


def _outline_table(text: str, found: dict | None, fielded: bool = False) -> ContentType | None:
    """TABLE when the whole text is records nested in an outline (:mod:`.tables.outline`);
    ``fielded``: only when most lines under the records' heads are ``name : value`` fields."""
    lines = text.split("\n")
    outline = infer_outline(lines)
    if outline is None or (fielded and not _named_fields(lines, outline)):
        return None
    if found is not None:
        found["outline"] = outline
    return ContentType.TABLE


# A field line under a record's head: an optional offset in brackets, a name of up to three
# words, blanks, a colon ("    <19af>   DW_AT_name        : coup_quorum", "  Size: 4096").
_NAMED_FIELD = re.compile(r"\s*(?:[<\[][^>\]\s]{1,16}[>\]]\s+)?[A-Za-z_][\w.-]*(?: [\w.-]+){0,2}\s*:(?:\s|$)")
_NAMED_FIELDS_SHARE = 0.6
_NAMED_FIELDS_SAMPLE = 400


def _named_fields(lines: list[str], outline) -> bool:
    """Whether most lines under the outline's record heads are named fields."""
    heads = set(outline.heads)
    body = [i for i in range(outline.heads[0], outline.end) if i not in heads and outline.depths[i] >= 0]
    sample = body[::max(1, len(body) // _NAMED_FIELDS_SAMPLE)]
    return bool(sample) and sum(1 for i in sample if _NAMED_FIELD.match(lines[i])) >= _NAMED_FIELDS_SHARE * len(sample)


# -- Source code ---------------------------------------------------------------------------------
# What opens a source file before its code: a module docstring, a licence or doc comment.
_HEADER_START = ('"""', "'''", '/*', '//', '#', 'r"""', '<?php', '"use strict"', "'use strict'", 'use ', 'pub ',
                 'package ', '#include')
# Tool outputs whose detected type a source-file path in the call does not override: they
# are structured the way the tool printed them (grep hits over a file, a diff of it).
_NOT_OVERRIDDEN = frozenset(("json_array", "json_object", "diff", "search", "diagnostics", "git_log"))


def _is_script_or_numbered_code(text: str) -> bool:
    """A script with an interpreter shebang, or a ``cat -n`` listing of code."""
    from .code.languages import guess_language
    from .code.numbered import is_numbered, split_numbers

    if text.startswith("#!"):
        return guess_language(text[:200]) is not None
    if text[:12].lstrip()[:1].isdigit() and is_numbered(text):
        split = split_numbers(text[:40_000].rsplit("\n", 1)[0] if len(text) > 40_000 else text)
        return split is not None and guess_language(split[0]) is not None
    return False


def _is_code_by_family(text: str) -> bool:
    """Code the first lines do not show as such (a long module docstring or licence header,
    or statements without keywords): judged on a 40 kB sample by each language family's
    telltale lines (def/class/import lines, lines ending in braces or semicolons, ...)."""
    from .code.languages import guess_language

    lang = guess_language(text)
    # YAML and TOML only by their path: a Markdown page opens with "#" and has "key: value" lines.
    return lang is not None and lang.blocks not in ("yaml", "toml")


def is_source_file(tool_arguments: Any, detected: ContentType) -> bool:
    """Whether the tool call names a source file by path (``path``, ``file``, ``filename``,
    ``file_path``) whose output the detector did not recognise as structured output."""
    if detected.value in _NOT_OVERRIDDEN or not tool_arguments:
        return False
    from .code.languages import language_for_path, path_argument

    path = path_argument(tool_arguments)
    return path is not None and language_for_path(path) is not None


def _sample_lines(text: str) -> list[str]:
    """``text.splitlines()[:_SAMPLE_LINES]`` without splitting all of a long text: when
    its first ``_SAMPLE_CHARS`` hold that many newlines, they hold those lines (every
    newline is a break of ``splitlines``; its other breaks only end lines sooner)."""
    head = text[:_SAMPLE_CHARS]
    if len(head) < len(text) and head.count("\n") >= _SAMPLE_LINES:
        return head.splitlines()[:_SAMPLE_LINES]
    return text.splitlines()[:_SAMPLE_LINES]


def _is_diagnostics(lines: list[str], nonblank: list[str]) -> bool:
    if not _at_least(nonblank, is_diagnostic_line, 3):
        return False
    report = parse_report("\n".join(lines))
    covered = sum(d.end - d.start for d in report.diagnostics)
    return covered >= _DIAGNOSTIC_SHARE * len(nonblank)


def _same_word_counts(nonblank: list[str]) -> bool:
    """Nine lines in ten hold the same number of blank-separated words (a log's messages
    vary in length)."""
    counts = Counter(len(ln.split()) for ln in nonblank)
    return counts.most_common(1)[0][1] >= 0.9 * len(nonblank)


def _has_double_space(line: str) -> bool:
    return "  " in line.strip()


# First characters a diff's header or hunk line can start with.
_DIFF_FIRST = frozenset("d-+@")


def _diff_starts(lines: list[str]) -> int:
    """Lines that open a diff, a file header or a hunk: ``_DIFF_START`` at each line start,
    tried only on lines whose first character can begin one (a multiline scan of the
    joined sample tries the anchor at every position). A ``--- x`` line counts only with
    its ``+++ y`` right after it: "--- node07 ---" titling a host's output opens no diff."""
    n = 0
    for k, ln in enumerate(lines):
        if ln[:1] in _DIFF_FIRST and _DIFF_START.match(ln):
            if ln[:4] == "--- " and not (k + 1 < len(lines) and lines[k + 1][:4] == "+++ "):
                continue
            n += 1
    return n


def _is_git_log(nonblank: list[str]) -> bool:
    """``git log``: at least two ``commit <hash>`` lines, each followed by its headers."""
    commits = sum(1 for ln in nonblank if _GIT_COMMIT.match(ln))
    return commits >= 2 and sum(1 for ln in nonblank if _GIT_HEADER.match(ln)) >= commits


def is_listing(nonblank: list[str]) -> bool:
    """A two-column listing: nearly every line is "name value" (a header row and a
    ruler of dashes allowed), and there are enough rows to be worth summarising."""
    if len(nonblank) < _LISTING_MIN_ROWS:
        return False
    misses = 0  # lines that are neither a row nor a ruler among the first three; one allowed
    for k, ln in enumerate(nonblank):
        if not _TWO_COLUMNS.match(ln) and not (k < 3 and _RULE_ROW.match(ln)):
            misses += 1
            if misses > 1:
                return False  # most text fails within its first lines
    return True


def _is_sourced_log_line(line: str) -> bool:
    m = _SOURCED_LOG.match(line)
    if not m:
        return False
    rest = line[m.end():]
    return bool(_LOG_LINE.match(rest)) or _has_log_mark(rest)


# A time or level mark anywhere in a line's first _ANY_MARK_SPAN characters: a date (dashes,
# dots or slashes), a clock time, a Unix time of this century, an upper-case level word.
_ANY_MARK = re.compile(
    r"\b(?:\d{4}[-./]\d{2}[-./]\d{2}|(?<!:)\d{1,2}:\d{2}:\d{2}(?!:\w)|1[4-9]\d{8}(?:\.\d+)?)(?!\d)|"
    r"\b(?:TRACE|DEBUG|INFO|NOTICE|WARN(?:ING)?|ERROR|FATAL|CRITICAL|SEVERE)\b"
)
_ANY_MARK_SPAN = 200
_MARKED_SHARE = 0.6  # lines that must carry a mark
_TEMPLATED_SHARE = 0.5  # lines that must fall into templates seen more than once
_TEMPLATED_MIN_LINES = 8


def _log_by_templates(nonblank: list[str], found: dict[str, Any] | None) -> ContentType | None:
    """LOG when most lines carry a time or level mark somewhere near their start and a
    template miner puts most of them into repeated templates (whatever precedes the
    timestamp: a file name, a dash, a category), else None. The reason goes to ``found``."""
    n = len(nonblank)
    if n < _TEMPLATED_MIN_LINES:
        return None
    if not _at_least(nonblank, lambda ln: _ANY_MARK.search(ln, 0, _ANY_MARK_SPAN), _MARKED_SHARE * n):
        return None
    _, miner = mine(keys_of(nonblank))
    repeated = sum(c.count for c in miner.clusters if c.count > 1)
    if repeated < _TEMPLATED_SHARE * n:
        return None
    if found is not None:
        found["why"] = (f"log: {repeated} of {n} sampled lines fall into {sum(c.count > 1 for c in miner.clusters)}"
                        " repeated templates, with a time or level mark after a prefix")
    return ContentType.LOG


_LEAD = re.compile(r"[^\W\d_]+")
_SENTENCE_END = re.compile(r"[a-z][.!?][\"')]?$")


def _repetitive_lines(nonblank: list[str]) -> bool:
    """Line-oriented program output without timestamps (installers, build tools): many
    lines, most starting with one of a few leading words, short, and rarely ending like
    a sentence. Prose and READMEs fail at least one of these."""
    n = len(nonblank)
    if n < 20:
        return False
    leads = Counter(m.group(0) if (m := _LEAD.search(ln, 0, 16)) else "" for ln in nonblank)
    top = sum(c for w, c in leads.most_common(5) if w)
    if top < 0.6 * n:
        return False
    if sum(len(ln) for ln in nonblank) / n > 200:
        return False
    if _keyed_records(nonblank):
        return False
    return sum(1 for ln in nonblank if _SENTENCE_END.search(ln.rstrip())) < 0.5 * n


_HEADED_MIN = 3  # records …
_HEADED_SHARE = 0.6  # … holding this share of the lines


def _headed_records(lines: list[str]) -> bool:
    """Records separated by blank lines, each an unindented head over indented lines, the
    heads carrying no time or level mark (a JVM thread dump: a thread's name and state over
    its frames). Frame lines read as a log's stack traces, but nothing here is an event in
    time: the heads name the records, and a question names a head."""
    records = covered = marked = coded = nonblank = 0
    block: list[str] = []
    for ln in [*lines, ""]:
        if ln.strip():
            block.append(ln)
            nonblank += 1
            continue
        if len(block) >= 2 and block[0][:1] not in (" ", "\t") and all(b[:1] in (" ", "\t") for b in block[1:]):
            records += 1
            covered += len(block)
            marked += _ANY_MARK.search(block[0], 0, _ANY_MARK_SPAN) is not None
            coded += _CODE_LINE.match(block[0]) is not None  # "def f(x):" over its body: code
        block = []
    return (records >= _HEADED_MIN and covered >= _HEADED_SHARE * nonblank and marked <= 0.2 * records
            and coded <= 0.2 * records)


# A field line: a name of one or two words, a colon, then a value or nothing ("Version: 3.2",
# "  Installed: (none)", "Files:", "vim:"). A log's "Requirement already satisfied: x" is a
# sentence before its colon, not a name.
_FIELD = re.compile(r"^(\s*)[^\s:#\[(<>{}|*-][^\s:]{0,39}(?: [^\s:]{1,20})?:(?:\s|$)")
_KEYED_SHARE = 0.6


def _keyed_records(nonblank: list[str]) -> bool:
    """Records of named fields (``pip show``, ``apt-cache policy``, ``dumpe2fs``): most lines
    a field, or indented under an unindented field (a record's head) or under a field with no
    value of its own (``Files:`` over its file list). Their
    repeated field names read like a log's few templates, but their values are the content:
    they are selected whole (the "lines" format), not folded into templates."""
    fields = under = 0
    list_indent = -1  # inside the items of an empty-valued field indented no deeper than this
    for ln in nonblank:
        ind = len(ln) - len(ln.lstrip())
        if list_indent >= 0 and ind > list_indent:
            under += 1
            continue
        list_indent = -1
        m = _FIELD.match(ln)
        if m is None:
            continue
        fields += 1
        if ind == 0 or not ln[m.end():].strip():
            list_indent = ind  # a record's head ("Group 3: (Blocks …)") or a list's name
    return fields >= 3 and fields + under >= _KEYED_SHARE * len(nonblank)
