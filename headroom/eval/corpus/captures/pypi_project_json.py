"""PyPI's JSON API (``https://pypi.org/pypi/<project>/json``) for a few projects: the
project's metadata (``info``), its ``releases`` map (version → array of release files,
each with a ``digests`` sub-object, size and upload times), the latest release's
``urls`` and its ``vulnerabilities``, as the API returns them (48-200 kB). Asked which
file, across all releases, is the largest or smallest and which was uploaded first or
last: the listing is grouped by version, not one array. Needs PyPI at build time; the
answer is the file name holding the extreme ``size`` or ``upload_time_iso_8601``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._extremes import extreme_case
from ._pypi import fetch

SOURCE = "pypi_project_json"
PROJECTS = ("idna", "pluggy", "packaging", "requests")

_QUESTIONS = {
    ("size", True): ("Across all releases, which file is the largest? Give its filename.",
                     "What is the biggest distribution file {p} ever published?"),
    ("size", False): ("Which release file of {p} is the smallest?",
                      "Name the file with the lowest size in any {p} release."),
    ("upload_time_iso_8601", True): ("Which file was uploaded most recently?",
                                     "What is the latest upload among all {p} release files?"),
    ("upload_time_iso_8601", False): ("Which {p} file was uploaded first?",
                                      "What is the earliest uploaded file of any {p} release?"),
}


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    for p in PROJECTS:
        url = f"https://pypi.org/pypi/{p}/json"
        content = fetch(url)
        files = [f for group in json.loads(content)["releases"].values() for f in group]
        for (field, largest), wordings in _QUESTIONS.items():
            sid = f"{p}_{'size' if field == 'size' else 'upload'}_{'max' if largest else 'min'}"
            case = extreme_case(SOURCE, sid, items=files, value=lambda f, k=field: f.get(k), largest=largest,
                                name=lambda f: f["filename"], wordings=tuple(w.format(p=p) for w in wordings),
                                content=content, tool_name="http_get", args={"url": url},
                                note=f"{'largest' if largest else 'smallest'} {field} over releases[*][*]")
            if case is not None:
                out.append(case)
    return out
