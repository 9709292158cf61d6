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
from typing import Any

from .base import Compressed, CompressInput
from .logs import select_lines
from .record_shape import RecordLayout, layout_of, rare_value_records
from .smart_crusher.compact import dumps as _dumps
from .smart_crusher.compact import index_texts

LINE_FIELDS = 3  # level-like columns written before the message in a record's line
# Short level words, as a text log writes them (values, not field names: whatever the
# level-like column is called, "err" reads as ERROR in the line its template is mined from).
_LEVEL_WORDS = {"err": "ERROR", "crit": "CRITICAL", "alert": "CRITICAL", "emerg": "FATAL", "emergency": "FATAL",
                "warn": "WARNING", "panic": "FATAL"}


def _level_word(value: Any) -> str:
    if value is None or isinstance(value, (dict, list)):
        return ""
    s = str(value).strip()
    return _LEVEL_WORDS.get(s.lower(), s.upper() if s.isalpha() else s)


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
    """The line a text logger would print for this record (its level-like values, the
    message, and the exception's last line): what its template is mined from."""
    if not isinstance(item, dict):
        return _first_line(item)
    parts = [_level_word(item.get(name)) for name in lay.levels[:LINE_FIELDS]]
    parts += [_first_line(item.get(lay.message)),
              _last_line(item.get(lay.exception)) if lay.exception else ""]
    return " ".join(p for p in parts if p)


def record_lines(items: list[Any], lay: RecordLayout) -> list[str]:
    """``[record_line(it, lay) for it in items]``, a column at a time (a level word is
    worked out once per distinct value): a third of the cost on 10 000 records."""
    if not all(type(it) is dict for it in items):
        return [record_line(it, lay) for it in items]
    cols: list[list[str]] = []
    for name in lay.levels[:LINE_FIELDS]:
        values = [it.get(name) for it in items]
        try:
            words = {v: _level_word(v) for v in set(values)}
            cols.append([words[v] for v in values])
        except TypeError:  # an object or array as a level
            cols.append([_level_word(v) for v in values])
    cols.append([v.strip() if type(v) is str and "\n" not in v else _first_line(v)
                 for v in (it.get(lay.message) for it in items)])
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
        # Rare stays verbatim: a record whose level-like value occurs at most rare_max
        # times (the only ERROR, the one record of a host) is kept like a warning.
        rare = rare_value_records(items, lay, inp.config.router.rare_max)
        must = dict.fromkeys(rare, 0.5) | dict.fromkeys(anchored, 0)
        # A record's price counts its values, not its field names: renaming the fields
        # must not change which records fit (shape, not names).
        named = [sum(len(k) + 3 for k in it) if type(it) is dict else 0 for it in items]
        shared -= sum(len(k) + 3 for k in constants)
        costs = [max(1, (len(r) - shared - k) // 4 + 1) for r, k in zip(full, named)]
        picked = select_lines(lines, inp, costs=costs, must=must)
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
