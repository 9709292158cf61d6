"""Locale category dumps as glibc's ``locale -k`` prints them: one ``keyword="value"`` (or
``keyword=number``) line per item of the asked categories (``LC_TIME``, ``LC_MESSAGES``,
``LC_NUMERIC``, ``LC_MONETARY``: date and time formats, day and month names, yes/no
patterns, separators), for one locale at a time and for seven in a loop (~500 lines), over
locales the capture compiles with ``localedef`` from glibc's sources into a folder of its
own (``LOCPATH``).

Facts come from another reader of the same compiled locales: Python's ``locale`` module
(``setlocale``, then ``nl_langinfo``, in a process of its own with the same ``LOCPATH``),
never from ``locale``'s text: the answer is a format, a name or a pattern, spelled with its
keyword the way ``locale -k`` writes a line where it is a whole setting. A fact is kept only
where its text stands once in the output. Held out (issue 33, tenth round): no dev source
holds locale dumps.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "locale_dumps"
LOCALES = ("fi_FI", "de_CH", "sv_SE", "tr_TR", "hi_IN", "pt_BR", "ja_JP")
# (locale, nl_langinfo item, locale -k keyword or "" for a bare name, outputs, wordings)
ITEMS = (
    ("fi_FI", "D_T_FMT", "d_t_fmt", ("fi",), ("How does the Finnish locale format a full date and time?",)),
    ("fi_FI", "MON_3", "", ("fi",), ("What's March called in the Finnish locale?",)),
    ("fi_FI", "DAY_5", "", ("fi",), ("What's Thursday in Finnish according to this locale?",)),
    ("fi_FI", "T_FMT", "t_fmt", ("fi",), ("Which time format does fi_FI use?",)),
    ("fi_FI", "YESEXPR", "yesexpr", ("fi",), ("Which answers count as yes in the Finnish locale?",)),
    ("ja_JP", "YESEXPR", "yesexpr", ("ja", "all"), ("What pattern does the Japanese locale accept as yes?",)),
    ("ja_JP", "CRNCYSTR", "crncystr", ("ja",), ("How is the currency symbol placed in ja_JP?",)),
    ("ja_JP", "T_FMT_AMPM", "t_fmt_ampm", ("ja",), ("What's the 12-hour time format in Japanese?",)),
    ("ja_JP", "D_FMT", "d_fmt", ("ja",), ("How does ja_JP write a date?",)),
    ("tr_TR", "YESEXPR", "yesexpr", ("all",), ("Which answers does the Turkish locale take as yes?",)),
    ("sv_SE", "D_FMT", "d_fmt", ("all",), ("How is a date written in the Swedish locale?",)),
    ("hi_IN", "T_FMT_AMPM", "t_fmt_ampm", ("all",), ("What's the Hindi locale's 12-hour clock format?",)),
    ("de_CH", "D_T_FMT", "d_t_fmt", ("all",), ("How does Swiss German format a date with time?",)),
    ("pt_BR", "DAY_1", "", ("all",), ("What's Sunday called in Brazilian Portuguese?",)),
    ("de_CH", "RADIXCHAR", "decimal_point", ("all",), ("Which decimal separator does Swiss German use?",)),
    ("sv_SE", "MON_10", "", ("all",), ("What's October in Swedish?",)),
    ("hi_IN", "NOEXPR", "noexpr", ("all",), ("Which answers count as no in the Hindi locale?",)),
    ("tr_TR", "MON_5", "", ("all",), ("What's May called in Turkish?",)),
    ("tr_TR", "D_T_FMT", "d_t_fmt", ("all",), ("How does the Turkish locale write a full timestamp?",)),
    ("pt_BR", "T_FMT", "t_fmt", ("all",), ("What time format does pt_BR use?",)),
)
READER = """
import json, locale, sys
locale.setlocale(locale.LC_ALL, sys.argv[1])
print(json.dumps({item: locale.nl_langinfo(getattr(locale, item)) for item in sys.argv[2:]}))
"""


def compile_locales(folder: Path) -> dict[str, str]:
    """Compile every locale into ``folder``; the environment that reads them."""
    folder.mkdir()
    for name in LOCALES:
        run(["localedef", "-i", name, "-f", "UTF-8", str(folder / f"{name}.UTF-8")], check=False)
        assert (folder / f"{name}.UTF-8").is_dir(), name
    return {"PATH": "/usr/bin:/bin", "LOCPATH": str(folder), "LC_ALL": "C.UTF-8"}


def read_items(env: dict[str, str]) -> dict[tuple[str, str], str]:
    """(locale, item) -> nl_langinfo's value, read by Python in a process per locale."""
    out = {}
    for name in sorted({loc for loc, *_ in ITEMS}):
        items = sorted({item for loc, item, *_ in ITEMS if loc == name})
        got = json.loads(run([sys.executable, "-c", READER, f"{name}.UTF-8", *items], env=env).stdout)
        out.update({(name, item): value for item, value in got.items()})
    return out


def spelled(keyword: str, value: str) -> str:
    """A whole setting as ``locale -k`` writes it, or a bare name (one of a list)."""
    if not keyword:
        return value
    return f"{keyword}={value}" if value.isdigit() else f'{keyword}="{value}"'


def _asks(values: dict[tuple[str, str], str]) -> list[Ask]:
    note = "Python's locale.nl_langinfo over the same compiled locale"
    return [Ask(f"{loc}_{item.lower()}", "named", "named_item", (spelled(keyword, values[loc, item]),), note,
                wordings, only)
            for loc, item, keyword, only, wordings in ITEMS]


def build(work: Path) -> list[dict[str, Any]]:
    env = compile_locales(work / "locales")
    categories = "LC_TIME LC_MESSAGES LC_NUMERIC"
    loop = " ".join(f"{name}.UTF-8" for name in LOCALES)
    commands = {"fi": "LC_ALL=fi_FI.UTF-8 locale -k LC_TIME LC_MESSAGES",
                "ja": "LC_ALL=ja_JP.UTF-8 locale -k LC_TIME LC_MESSAGES LC_MONETARY",
                "all": f'for l in {loop}; do echo "== $l"; LC_ALL=$l locale -k {categories}; done'}
    return shell_cases(SOURCE, commands, _asks(read_items(env)), cwd=work, env=env)
