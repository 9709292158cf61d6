"""LogRecordsCompressor: a JSON array of log records, selected like a text log.

Structured loggers, log APIs and ``journalctl -o json`` return records such as
``{"ts", "level", "component", "pid", "message"}``. What matters in them is what matters
in a text log: the errors, the events that happened once, and how often the frequent ones
happened. A generic JSON selection keeps "change points" of whatever columns it finds (a
date rolling over, a counter, a monotone id) and can drop the rare messages for them. So a
record array whose items carry a message field and log context goes here instead, and is
selected by the template of its message with the log compressor's own machinery
(``logs.select_lines`` over one line per record: level, component, message): rare
templates whole, frequent ones as an exemplar with a count and what varies, the other
fields as context. No column's change points are looked at.

The output is JSON: ``{"_log": header, "_constant": {...}, "items": [...]}`` with one kept
record per line, unchanged but for the fields every record holds with the same value
(``_constant``, omitted when there is none), and after a frequent template's exemplar an
object ``{"_similar": "… N similar records (ts a–b; what varies)"}``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .base import Compressed, CompressInput
from .logs import select_lines
from .smart_crusher.compact import dumps as _dumps
from .smart_crusher.compact import index_texts

_MIN_RECORDS = 12  # as a text log: shorter arrays are cheaper to send whole
_RECORD_SHARE = 0.9  # items that must be objects holding the message field
# Field names, compared with case, "_", "-", "@" and "." removed.
_MESSAGE_NAMES = ("message", "msg", "event", "logmessage", "shortmessage", "fullmessage", "log", "text")
_LEVEL_NAMES = ("level", "levelname", "severity", "lvl", "loglevel", "priority", "levelstr", "severitytext",
                "errorseverity")
_TIME_NAMES = ("ts", "time", "timestamp", "date", "datetime", "asctime", "realtimetimestamp",
               "sourcerealtimetimestamp", "created", "logtime", "eventtime", "t")
# Not "name", "module" or "source": a linter's rule name, a package's name, a finding's
# file are no logger.
_COMPONENT_NAMES = ("component", "logger", "loggername", "syslogidentifier", "service", "servicename", "comm",
                    "systemdunit", "unit", "category", "facility", "hostname", "processname", "backendtype")
_PID_NAMES = ("pid", "tid", "thread", "threadname", "processid", "threadid")
# Fields a traceback or exception text lives in: its last line names the exception.
_EXCEPTION_NAMES = ("excinfo", "exception", "exc", "stacktrace", "stack", "traceback", "error", "detail", "errorstack")
_NORMALISE = re.compile(r"[_\-@.\s]")
# Syslog priorities (journalctl's PRIORITY) and short forms, as the words a text log writes.
_LEVEL_WORDS = {"0": "FATAL", "1": "CRITICAL", "2": "CRITICAL", "3": "ERROR", "4": "WARNING", "5": "NOTICE",
                "6": "INFO", "7": "DEBUG", "err": "ERROR", "crit": "CRITICAL",
                "alert": "CRITICAL", "emerg": "FATAL", "emergency": "FATAL", "warn": "WARNING", "panic": "FATAL"}


def _norm(name: str) -> str:
    return _NORMALISE.sub("", name).lower()


@dataclass(frozen=True)
class RecordLayout:
    """Which fields of the records play which part (None: absent)."""

    message: str
    level: str | None
    time: str | None
    component: str | None
    exception: str | None
    reason: str  # why the array reads as a log, for the decision record


def _field(keys: Sequence[str], names: Sequence[str]) -> str | None:
    """The first key (in ``names`` order) whose normalised name is one of ``names``."""
    by_norm: dict[str, str] = {}
    for k in keys:
        by_norm.setdefault(_norm(k), k)
    return next((by_norm[n] for n in names if n in by_norm), None)


def layout_of(items: Any) -> RecordLayout | None:
    """How ``items`` is a log, or None when it is not one: nearly every item an object
    with a text message field, and log context beside it — a level, or two of time,
    component and process. An issue list (``title``, ``body``, ``created_at``) has no
    message field and no level; a metric series has no message; a linter's JSON findings
    have no time, logger or process beside their severity."""
    if not isinstance(items, list) or len(items) < _MIN_RECORDS:
        return None
    head = items[:200] if len(items) <= 400 else items[:100] + items[-100:]
    dicts = [it for it in head if isinstance(it, dict)]
    if len(dicts) < _RECORD_SHARE * len(head):
        return None
    keys: dict[str, int] = {}
    for d in dicts:
        for k in d:
            keys[k] = keys.get(k, 0) + 1
    common = [k for k, c in keys.items() if c >= _RECORD_SHARE * len(dicts)]
    message = _field(common, _MESSAGE_NAMES)
    if message is None or sum(isinstance(d.get(message), str) for d in dicts) < _RECORD_SHARE * len(head):
        return None
    level, time, component = _field(common, _LEVEL_NAMES), _field(common, _TIME_NAMES), \
        _field(common, _COMPONENT_NAMES)
    pid = _field(common, _PID_NAMES)
    # A linter's findings (message, severity, file, line) have a level but no time,
    # logger or process: a report, not a log.
    if not ((level and (time or component or pid)) or (time and (component or pid))):
        return None
    exception = _field(list(keys), _EXCEPTION_NAMES)
    found = ", ".join(f"{part} {name!r}" for part, name in (("level", level), ("time", time),
                                                           ("component", component), ("process", pid)) if name)
    return RecordLayout(message, level, time, component, exception,
                        f"log records: message field {message!r} with {found}")


def _level_word(value: Any) -> str:
    if value is None or isinstance(value, (dict, list)):
        return ""
    s = str(value).strip()
    return _LEVEL_WORDS.get(s.lower(), _LEVEL_WORDS.get(s, s.upper()))


def _first_line(value: Any) -> str:
    if type(value) is str and "\n" not in value:  # the common case, without a copy
        return value.strip()
    s = value if isinstance(value, str) else "" if value is None else json.dumps(value, ensure_ascii=False)
    line, _, _ = s.strip().partition("\n")
    return line


def _last_line(value: Any) -> str:
    if not value:
        return ""
    s = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    lines = [ln for ln in s.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def record_line(item: Any, lay: RecordLayout) -> str:
    """The line a text logger would print for this record (level, component, message, and
    the exception's last line): what its template is mined from."""
    if not isinstance(item, dict):
        return _first_line(item)
    parts = [_level_word(item.get(lay.level)) if lay.level else "",
             _first_line(item.get(lay.component)) if lay.component else "",
             _first_line(item.get(lay.message)),
             _last_line(item.get(lay.exception)) if lay.exception else ""]
    return " ".join(p for p in parts if p)


def record_lines(items: list[Any], lay: RecordLayout) -> list[str]:
    """``[record_line(it, lay) for it in items]``, a column at a time (a level word is
    worked out once per distinct value): a third of the cost on 10 000 records."""
    if not all(type(it) is dict for it in items):
        return [record_line(it, lay) for it in items]
    cols: list[list[str]] = []
    if lay.level:
        values = [it.get(lay.level) for it in items]
        try:
            words = {v: _level_word(v) for v in set(values)}
            cols.append([words[v] for v in values])
        except TypeError:  # an object or array as a level
            cols.append([_level_word(v) for v in values])
    for name in (lay.component, lay.message):
        if name:
            cols.append([v.strip() if type(v) is str and "\n" not in v else _first_line(v)
                         for v in (it.get(name) for it in items)])
    if lay.exception:
        cols.append([_last_line(v) if v else "" for v in (it.get(lay.exception) for it in items)])
    return [" ".join(filter(None, parts)) for parts in zip(*cols)]


_MISSING = object()


def _constants(items: list[Any]) -> dict[str, Any]:
    """Fields every record holds with the same value, of the same type (none when any
    item is not an object): stated once instead of in every kept record."""
    if not all(isinstance(it, dict) for it in items):
        return {}
    out = {}
    for k, v in items[0].items():
        t = type(v)
        if all((w := it.get(k, _MISSING)) == v and type(w) is t for it in items):
            out[k] = v
    return out


_RARE_CONTEXT_MAX = 20  # records from rarely heard components or levels kept, at most


def _rare_context(items: list[Any], lay: RecordLayout) -> list[int]:
    """Records whose component or level value occurs at most twice in a field with a few
    values or more (the one line a subsystem wrote, the only ``notice``): context a text
    log shows in the line itself, kept like a warning while they are few."""
    out: list[int] = []
    for name in (lay.component, lay.level):
        if not name:
            continue
        values = [it.get(name) if isinstance(it, dict) else None for it in items]
        try:
            counts = Counter(values)
        except TypeError:  # objects or arrays as values
            continue
        if len(counts) < 3:
            continue
        out += [i for i, v in enumerate(values) if v is not None and counts[v] <= 2]
    return sorted(set(out)) if len(set(out)) <= _RARE_CONTEXT_MAX else []


class LogRecordsCompressor:
    name = "log_records"

    def compress(self, inp: CompressInput) -> Compressed | None:
        items = inp.parsed if inp.parsed is not None else json.loads(inp.text)
        lay = layout_of(items)
        if lay is None:
            return None
        constants = _constants(items)
        # Every record's JSON (orjson, in C) prices it and finds anchors in any field; only
        # the kept ones are rendered again without their constant fields.
        full = index_texts(items)
        shared = len(_dumps(constants)) if constants else 0
        lines = record_lines(items, lay)
        # A question's anchors (an id, a pid, a request id) may sit in any field.
        anchored = {i for i, r in enumerate(full) if inp.anchors.matches(r)} if inp.anchors else set()
        if len(anchored) > max(60, len(full) // 50):  # named everywhere: the search term, not a lead
            anchored = set()
        must = dict.fromkeys(_rare_context(items, lay), 0.5) | dict.fromkeys(anchored, 0)
        picked = select_lines(lines, inp, costs=[max(1, (len(r) - shared) // 4 + 1) for r in full], must=must)
        if picked is None:
            return None
        out: list[str] = []
        for i in picked.chosen:
            it = items[i]
            out.append(_dumps({k: v for k, v in it.items() if k not in constants}) if isinstance(it, dict)
                       else _dumps(it))
            if i in picked.notes:
                out.append(_dumps({"_similar": self._note(picked.notes[i], picked.members.get(i), items, lay)}))
        head = {"_log": picked.header.strip("[]").replace(" lines;", " records;", 1)}
        if constants:
            head["_constant"] = constants
        text = _dumps(head)[:-1] + ',"items":[\n' + ",\n".join(out) + "\n]}"
        return Compressed(text=text, items_before=len(items), items_after=len(picked.chosen),
                          strategy="log_record_templates", lossy=True,
                          summary=picked.summary.replace("lines", "records"))

    @staticmethod
    def _note(note: str, members: list[int] | None, items: list[Any], lay: RecordLayout) -> str:
        """The log's count note ("… 312 similar lines (cmd=ping×300)") for records, with
        the time span of the records it stands for (their time field is not in the line
        the template was mined from)."""
        note = note.strip().replace(" lines", " records").replace("repeated", "message repeated")
        if not members or not lay.time:
            return note
        first, last = (items[members[0]], items[members[-1]])
        if not (isinstance(first, dict) and isinstance(last, dict)):
            return note
        span = f"{lay.time} {first.get(lay.time)}–{last.get(lay.time)}"
        if note.endswith(")"):
            return f"{note[:-1]}; {span})"
        return f"{note} ({span})"
