"""``zdump -v -c 1990,2030`` of time zones whose rules changed in that window (Moscow's
2011 and 2014 switches, São Paulo and Tehran ending daylight saving time, Apia crossing
the date line, Casablanca's Ramadan changes, Lord Howe's half-hour shift, Berlin): every
clock change as two lines, the second before and the first second after, in UT and local
time, with ``isdst`` and ``gmtoff`` (and Istanbul, Caracas, Pyongyang, Mexico City and
Amman, which also stopped changing).

Facts come from another reader of the same tz database, Python's ``zoneinfo`` (its own
TZif parser): a transition is where ``utcoffset`` changes (found by day, refined to the
second), written the way zdump writes the line's UT and local parts. Held out (issue
33): a kind of output no dev source has.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "tz_transitions"
ZONES = ("Europe/Moscow", "America/Sao_Paulo", "Asia/Tehran", "Pacific/Apia", "Africa/Casablanca",
         "Australia/Lord_Howe", "Europe/Berlin", "Europe/Istanbul", "America/Caracas", "Asia/Pyongyang",
         "America/Mexico_City", "Asia/Amman")
FIRST_YEAR, END_YEAR = 1990, 2030  # zdump's -c: from 1990-01-01 up to, not including, 2030
ASKED_YEAR = 2027
SETTLED_BEFORE = 2025  # a zone whose last change is older than this has stopped changing


def transitions(zone: str) -> Iterator[datetime]:
    """UTC instants (first second of the new offset) where the zone's UTC offset changes."""
    tz = ZoneInfo(zone)
    t = datetime(FIRST_YEAR, 1, 1, tzinfo=UTC)
    end = datetime(END_YEAR, 1, 1, tzinfo=UTC)
    day = timedelta(days=1)
    while t < end:
        nxt = min(t + day, end)
        if t.astimezone(tz).utcoffset() != nxt.astimezone(tz).utcoffset():
            lo, hi = t, nxt  # offset(lo) differs from offset(hi): bisect to the second
            while hi - lo > timedelta(seconds=1):
                mid = lo + (hi - lo) / 2
                mid = mid.replace(microsecond=0)
                if mid.astimezone(tz).utcoffset() == lo.astimezone(tz).utcoffset():
                    lo = mid
                else:
                    hi = mid
            yield hi
        t = nxt


def zdump_part(t: datetime, zone: str) -> str:
    """The line's ``<UT> UT = <local> <abbreviation>`` part, as zdump -v writes it."""
    local = t.astimezone(ZoneInfo(zone))
    return f"{t.strftime('%a %b %e %H:%M:%S %Y')} UT = {local.strftime('%a %b %e %H:%M:%S %Y')} {local.tzname()}"


def build(work: Path) -> list[dict[str, Any]]:
    cmd = ["zdump", "-v", "-c", f"{FIRST_YEAR},{END_YEAR}", *ZONES]
    text = run(cmd, env={**os.environ, "LC_ALL": "C"}).stdout
    args = {"command": " ".join(cmd)}
    out = []
    for zone in ZONES:
        city = zone.split("/")[-1].replace("_", " ")
        found = [t for t in transitions(zone) if text.count(zdump_part(t, zone)) == 1]
        if not found:
            continue
        key = zone.split("/")[-1].lower()
        if found[-1].year < SETTLED_BEFORE:
            sid = f"{key}_last_change"
            q = choose(f"{SOURCE}/{sid}", (f"When did {city} last change its UTC offset, and to what?",
                                           f"What was the final clock change in {city}?",
                                           f"Since when has {city} kept its current UTC offset?"))
            facts = [fact(zdump_part(found[-1], zone), "named_item", f"zoneinfo: the last offset change of {zone}",
                          basis="independent")]
        else:
            in_year = [t for t in found if t.year == ASKED_YEAR]
            if not in_year:
                continue
            sid = f"{key}_changes_{ASKED_YEAR}"
            q = choose(f"{SOURCE}/{sid}", (f"When do the clocks change in {city} in {ASKED_YEAR}?",
                                           f"On which dates in {ASKED_YEAR} does {city} switch its UTC offset?"))
            facts = [fact(zdump_part(t, zone), "named_item", f"zoneinfo: an offset change of {zone} in {ASKED_YEAR}",
                          basis="independent") for t in in_year]
        out.append(make_case(SOURCE, sid, "text", "bash", args, "named", q, text, facts))
    assert len(out) >= 5, "too few time zone cases"
    return out
