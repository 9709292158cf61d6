"""``sqlite3`` query results: a database of Debian's ``iso-codes`` tables (ISO 3166-1
countries, ISO 3166-2 subdivisions) queried through the sqlite3 command-line shell in
three of its output modes: ``-box`` (a table drawn with box characters), ``-line`` (one
``column = value`` line per cell, rows apart) and ``-json`` (an array of row objects).
Two queries: the subdivisions of five countries joined to their country's name (~380
rows), and every country with its codes and official name (~250 rows).

Facts come from the iso-codes JSON files themselves, read in Python, never from the
database or its output: a subdivision's code by its name, a country's numeric code or
official name, the longest subdivision name and official name. A fact is kept only
where its text is ASCII and occurs once in the output. Held out (issue 33): no dev
source holds a database shell's query results.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "sqlite_query"
ISO = Path("/usr/share/iso-codes/json")
COUNTRIES = ("FR", "IT", "ES", "PL", "JP")
MODES = (("box", "text"), ("line", "text"), ("json", "json"))
SUBDIVISIONS_SQL = ("SELECT s.code, s.name, s.type, c.name AS country FROM subdivisions s "
                    "JOIN countries c ON c.alpha_2 = s.country WHERE s.country IN ("
                    + ", ".join(f"'{c}'" for c in COUNTRIES) + ") ORDER BY s.code;")
COUNTRIES_SQL = "SELECT alpha_2, alpha_3, numeric, name, official_name FROM countries ORDER BY name;"


def _iso(name: str, key: str) -> list[dict[str, str]]:
    return json.loads((ISO / name).read_text())[key]


def _database(path: Path, countries: list[dict[str, str]], subs: list[dict[str, str]]) -> None:
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE countries (alpha_2 TEXT PRIMARY KEY, alpha_3 TEXT, numeric TEXT, name TEXT, "
                     "official_name TEXT);"
                     "CREATE TABLE subdivisions (code TEXT PRIMARY KEY, country TEXT REFERENCES countries, "
                     "name TEXT, type TEXT, parent TEXT);")
    db.executemany("INSERT INTO countries VALUES (?, ?, ?, ?, ?)",
                   [(c["alpha_2"], c["alpha_3"], c["numeric"], c["name"], c.get("official_name")) for c in countries])
    db.executemany("INSERT INTO subdivisions VALUES (?, ?, ?, ?, ?)",
                   [(s["code"], s["code"][:2], s["name"], s["type"], s.get("parent")) for s in subs])
    db.commit()
    db.close()


def _ascii(s: str) -> bool:
    return s.isascii() and '"' not in s and "\\" not in s


def _longest(items: list[dict[str, str]], key: str) -> dict[str, str] | None:
    ranked = sorted((i for i in items if i.get(key)), key=lambda i: -len(i[key]))
    return ranked[0] if len(ranked) > 1 and len(ranked[0][key]) > len(ranked[1][key]) else None


def build(work: Path) -> list[dict[str, Any]]:
    countries, subs = _iso("iso_3166-1.json", "3166-1"), _iso("iso_3166-2.json", "3166-2")
    db = work / "iso.db"
    _database(db, countries, subs)
    names = {c["alpha_2"]: c["name"] for c in countries}
    mine = [s for s in subs if s["code"][:2] in COUNTRIES]
    by_name: dict[str, int] = {}
    for s in mine:
        by_name[s["name"]] = by_name.get(s["name"], 0) + 1
    asked: dict[str, list[tuple[str, str, tuple[str, ...], str, str, str]]] = {"subdivisions": [], "countries": []}
    named = [s for s in mine if by_name[s["name"]] == 1 and _ascii(s["name"]) and len(s["name"]) > 3]
    for s in spread(named, 6):
        asked["subdivisions"].append((
            f"code_{s['code'].replace('-', '_').lower()}", "named",
            (f"What is the ISO 3166-2 code of {s['name']} ({names[s['code'][:2]]})?",
             f"Which subdivision code does {s['name']} in {names[s['code'][:2]]} have?"),
            s["code"], "named_item", "iso_3166-2.json: the code of the entry with this name"))
    if (s := _longest(mine, "name")) and _ascii(s["name"]):
        asked["subdivisions"].append(("longest_name", "extreme",
                                      ("Which subdivision in these results has the longest name?",
                                       "What is the longest subdivision name listed?"),
                                      s["name"], "extreme", "iso_3166-2.json: the longest name among the five countries"))
    for c in spread([c for c in countries if c.get("official_name") and _ascii(c["official_name"])
                     and c["name"] not in c["official_name"]], 4):
        asked["countries"].append((f"official_{c['alpha_2'].lower()}", "named",
                                   (f"What is the official name of {c['name']}?",
                                    f"How is {c['name']} called officially?"),
                                   c["official_name"], "named_item", "iso_3166-1.json official_name"))
    for c in spread([c for c in countries if _ascii(c["name"])], 3):
        asked["countries"].append((f"numeric_{c['alpha_2'].lower()}", "named",
                                   (f"What is the numeric ISO 3166-1 code of {c['name']}?",
                                    f"Which three-digit country code belongs to {c['name']}?"),
                                   c["numeric"], "named_item", "iso_3166-1.json numeric"))
    if (c := _longest(countries, "official_name")) and _ascii(c["official_name"]):
        asked["countries"].append(("longest_official", "extreme",
                                   ("Which country has the longest official name?",
                                    "What is the longest official country name in the table?"),
                                   c["official_name"], "extreme", "iso_3166-1.json: the longest official_name"))
    out = []
    for query, sql in (("subdivisions", SUBDIVISIONS_SQL), ("countries", COUNTRIES_SQL)):
        for mode, form in MODES:
            text = run(["sqlite3", f"-{mode}", str(db), sql]).stdout
            args = {"command": f"sqlite3 -{mode} iso.db \"{sql}\""}
            for sid, intent, wordings, t, kind, note in asked[query]:
                if text.count(t) != 1:
                    continue
                scen = f"{query}_{mode}_{sid}"
                case = make_case(SOURCE, scen, form, "bash", args, intent, choose(f"{SOURCE}/{scen}", wordings), text,
                                 [fact(t, kind, note, basis="independent")])
                if t not in args["command"]:
                    out.append(case)
    assert len(out) >= 12, f"too few sqlite query cases: {len(out)}"
    return out
