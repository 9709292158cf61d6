"""PyPI's simple index as JSON (PEP 691, ``Accept: application/vnd.pypi.simple.v1+json``)
for a few projects: a ``files`` array of 70-150 release files, each with a ``hashes``
sub-object, its size and upload time, next to the project's version list. Asked which
file is the largest or smallest and which was uploaded first or last, as a user of an
installer or mirror would ask. Needs PyPI at build time; the answer is the file name
holding the extreme ``size`` or ``upload-time`` (ISO-8601 strings of one format, so they
compare as text)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._extremes import extreme_case
from ._pypi import simple_project

SOURCE = "pypi_simple_files"
PROJECTS = ("attrs", "click", "httpx")

_QUESTIONS = {
    ("size", True): ("Which of these files is the largest? Give its filename.",
                     "What is the biggest distribution file listed for {p}?",
                     "I want the heaviest download among these {p} files: which one is it?"),
    ("size", False): ("Which file in this listing is the smallest?",
                      "Name the {p} distribution file with the lowest size.",
                      "What is the tiniest file {p} has published?"),
    ("upload-time", True): ("Which file was uploaded most recently?",
                            "What is the newest upload in this {p} index, by upload time?",
                            "Which {p} file has the latest upload time?"),
    ("upload-time", False): ("Which file was uploaded first?",
                             "What is the oldest {p} file on the index, by upload time?",
                             "Which file has the earliest upload time?"),
}


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    for p in PROJECTS:
        content, doc = simple_project(p)
        for (field, largest), wordings in _QUESTIONS.items():
            sid = f"{p}_{field.replace('-', '_')}_{'max' if largest else 'min'}"
            case = extreme_case(SOURCE, sid, items=doc["files"], value=lambda f, k=field: f.get(k), largest=largest,
                                name=lambda f: f["filename"], wordings=tuple(w.format(p=p) for w in wordings),
                                content=content, tool_name="http_get",
                                args={"url": f"https://pypi.org/simple/{p}/", "accept": "application/vnd.pypi.simple.v1+json"},
                                note=f"{'largest' if largest else 'smallest'} {field}")
            if case is not None:
                out.append(case)
    return out
