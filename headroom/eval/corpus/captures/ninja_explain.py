"""Why a build tool would rebuild: ``ninja -n -d explain`` (a dry run: ``ninja explain:`` lines
naming what is older than which input, missing or dirty, between the ``[k/N] CC ...`` steps it
would run) and ``ninja -t targets all`` (every target with the rule that builds it), of a
generated ``build.ninja`` for ~260 C sources in twelve modules, built once for real (the rules
copy text, no compiler), then disturbed.

Most of the rebuild is routine: the header every object includes touched (each object older
than it), two objects deleted; the odd causes, in the middle of the run, are a few sources
edited since the build and one header only one object includes. A few targets are built by
rules of their own (a generated version header, a schema, the linker). Facts come from the
capture's record of what it touched and the build file it wrote, and from ``os.stat`` of the
edited files (their mtimes in nanoseconds, as ninja compares them), never from ninja's text; a
fact is kept only where it stands once. Held out (issue 33, seventeenth round): dev holds make's
database (``make -p``) and shell traces, but no rebuild explanation.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "ninja_explain"
MODULES = ("orders", "billing", "catalog", "search", "auth", "media", "stock", "reports", "mailer", "gateway",
           "ledger", "pricing")
STEMS = ("api", "model", "cache", "codec", "queue", "store", "index", "rules", "views", "audit", "retry",
         "limits", "hooks", "batch", "token", "quota", "slots", "feeds", "locks", "sync", "diff", "plan")
COMMANDS = {"explain": "ninja -n -d explain 2>&1", "targets": "ninja -t targets all"}
COPY = "cat $in > $out"  # every step copies text: the graph matters here, not a compiler
# rule -> (command, the word its steps are described by)
RULE_STEPS = {"cc": (COPY, "CC"), "ar": (COPY, "AR"), "link": (COPY, "LINK"), "flatc": (COPY, "FLATC"),
              "apidoc": (COPY, "DOC"), "stamp_version": ("echo '#define SHOPD_VERSION \"4.2.0\"' > $out", "GEN")}
RULES = "".join(f"rule {name}\n  command = {command}\n  description = {word} $out\n"
                for name, (command, word) in RULE_STEPS.items())
BASE_NS = 1_796_000_000_000_000_000  # a fixed clock: sources, then outputs a minute later


@dataclass
class Build:
    """The capture's record: the sources, which it edited, the one-object header, the deleted objects."""

    sources: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    private_header: str = ""
    deleted: list[str] = field(default_factory=list)


def write_build(root: Path, rnd: random.Random) -> Build:
    record, edges = Build(), []
    for m in MODULES:
        for stem in rnd.sample(STEMS, rnd.randint(18, 22)):
            src = f"src/{m}/{stem}.c"
            record.sources.append(src)
            (root / src).parent.mkdir(parents=True, exist_ok=True)
            (root / src).write_text(f"/* {m} {stem} */\n")
    (root / "include").mkdir()
    for h in ("common.h", "tls_shim.h", *(f"{m}.h" for m in MODULES)):
        (root / "include" / h).write_text(f"/* {h} */\n")
    middle = record.sources[len(record.sources) // 4:len(record.sources) * 3 // 4]
    picked = rnd.sample(middle, 7)
    record.edited, shim_user, record.deleted = picked[:4], picked[4], [f"obj/{s[4:-2]}.o" for s in picked[5:]]
    record.private_header = "include/tls_shim.h"
    for src in record.sources:
        m = src.split("/")[1]
        extra = " include/tls_shim.h" if src == shim_user else ""
        edges.append(f"build obj/{src[4:-2]}.o: cc {src} | include/common.h include/{m}.h{extra}")
    for m in MODULES:
        objs = " ".join(f"obj/{s[4:-2]}.o" for s in record.sources if s.split("/")[1] == m)
        edges.append(f"build lib/lib{m}.a: ar {objs}")
    (root / "schema").mkdir()
    (root / "schema" / "events.fbs").write_text("table Event { id: long; }\n")
    edges += ["build gen/version.h: stamp_version", "build gen/events_generated.h: flatc schema/events.fbs",
              "build docs/events.html: apidoc schema/events.fbs",
              "build bin/shopd: link " + " ".join(f"lib/lib{m}.a" for m in MODULES)
              + " | gen/version.h gen/events_generated.h", "default bin/shopd"]
    (root / "build.ninja").write_text(RULES + "\n".join(edges) + "\n")
    return record


def settle_and_disturb(root: Path, record: Build) -> None:
    """Build for real, put every file on a fixed clock, then make the changes the dry run finds."""
    run(["ninja", "-C", str(root)], env={"PATH": "/usr/bin:/bin"})
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            generated = p.parts[len(root.parts)] in ("obj", "lib", "bin", "gen")
            t = BASE_NS + (60_000_000_000 if generated else 0)
            os.utime(p, ns=(t, t))
    step = 120_000_000_000
    # The shared header first: an edited source or the private header is each object's newest input.
    touched = ["include/common.h", *record.edited, record.private_header]
    for n, path in enumerate(touched):
        t = BASE_NS + step * (n + 1) + 123_456_789 * (n + 1)
        os.utime(root / path, ns=(t, t))
    for obj in record.deleted:
        (root / obj).unlink()


def mtime_ns(root: Path, path: str) -> str:
    return str(os.stat(root / path).st_mtime_ns)


def _asks(root: Path, record: Build) -> list[Ask]:
    note = "the capture's record of the files it touched"
    asks = [Ask(f"why_{s[4:-2].replace('/', '_')}", "named", "named_item", (s,), note,
                (f"Which edited source makes ninja rebuild obj/{s[4:-2]}.o?",
                 f"What input changed for obj/{s[4:-2]}.o?"), ("explain",)) for s in record.edited]
    asks.append(Ask("edited_all", "named", "named_item", tuple(record.edited), note,
                    ("Which source files were edited since the last build?",
                     "List the .c files that changed since we last built."), ("explain",)))
    asks.append(Ask("private_header", "named", "named_item", (record.private_header,), note,
                    ("Which header change forces exactly one object to rebuild?",
                     "One object is dirty because of a header nothing else includes: which header?"), ("explain",)))
    for s in record.edited:
        asks.append(Ask(f"mtime_{s[4:-2].replace('/', '_')}", "named", "named_item", (mtime_ns(root, s),),
                        "os.stat of the edited file (st_mtime_ns)",
                        (f"What mtime does ninja see for {s}? The nanosecond value.",
                         f"Give me the timestamp ninja compares for {s}."), ("explain",)))
    asks.append(Ask("mtime_header", "named", "named_item", (mtime_ns(root, record.private_header),),
                    "os.stat of the touched header (st_mtime_ns)",
                    (f"What mtime does ninja read for {record.private_header}?",
                     f"Timestamp of {record.private_header} as ninja sees it?"), ("explain",)))
    rules = {"gen/version.h": "stamp_version", "gen/events_generated.h": "flatc", "bin/shopd": "link",
             "docs/events.html": "apidoc"}
    asks += [Ask(f"rule_{Path(t).name}", "named", "named_item", (r,), "the build file the capture wrote",
                 (f"Which rule builds {t}?", f"What ninja rule produces {t}?"), ("targets",))
             for t, r in rules.items()]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1706)
    root = work / "shopd"
    root.mkdir()
    record = write_build(root, rnd)
    settle_and_disturb(root, record)
    return shell_cases(SOURCE, COMMANDS, _asks(root, record), cwd=root, env={"PATH": "/usr/bin:/bin"})
