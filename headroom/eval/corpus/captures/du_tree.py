"""``du -ak`` over a real installed package tree (scikit-learn in the shared venv), as
text and as the JSON an inventory API would return ({"kb", "path"} rows)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "du_tree"


def build(work: Path) -> list[dict[str, Any]]:
    import sklearn

    site = Path(sklearn.__file__).parents[1]
    text = run(["du", "-ak", "sklearn"], cwd=site).stdout
    # du lists in directory-walk order, which differs by filesystem: sort by path so a
    # rebuild on another machine yields the same order.
    rows = sorted(({"kb": int(kb), "path": p} for kb, p in (ln.split("\t", 1) for ln in text.splitlines())),
                  key=lambda r: r["path"])
    text = "".join(f"{r['kb']}\t{r['path']}\n" for r in rows)
    js = json.dumps(rows)
    files = [r for r in rows if (site / r["path"]).is_file()]
    dirs = [r for r in rows if (site / r["path"]).is_dir() and r["path"] != "sklearn"]
    big_file = max(files, key=lambda r: (r["kb"], r["path"]))
    big_dir = max((d for d in dirs if d["path"].count("/") == 1), key=lambda r: (r["kb"], r["path"]))
    out = []
    for form, content, tool, args in (("text", text, "bash", {"command": "du -ak sklearn | sort -k2"}),
                                      ("json", js, "http_get", {"url": "http://inventory.internal/api/du?root=sklearn"})):
        sid = f"largest_file_{form}"
        q = choose(f"{SOURCE}/{sid}", ("Which single file takes the most disk space here?",
                                       "What is the biggest file in this listing, and how big is it?"))
        out.append(make_case(SOURCE, sid, form, tool, args, "extreme", q, content,
                             [fact(big_file["path"], "extreme", f"largest non-directory entry ({big_file['kb']} kB)")]))
        sid = f"largest_dir_{form}"
        q = choose(f"{SOURCE}/{sid}", ("Which top-level subpackage uses the most space?",
                                       "Of the immediate subdirectories, which one is largest?"))
        # Its path also prefixes every entry under it; its size names the one row.
        kb = str(big_dir["kb"])
        facts = [fact(big_dir["path"], "extreme", f"largest immediate subdirectory ({kb} kB)")]
        if all(c.count(kb) == 1 for c in (text, js)):
            facts.append(fact(kb, "extreme", "its size in kB (occurs once)"))
        out.append(make_case(SOURCE, sid, form, tool, args, "extreme", q, content, facts))
    return out
