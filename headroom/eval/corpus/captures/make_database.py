"""GNU make's database as ``make -p -q`` prints it: every variable with its origin
(default, environment, makefile, command line, automatic), the implicit and pattern
rules, the directory cache and every target with its prerequisites and recipe, for a
small C project's Makefile; with make's built-in rules and variables (``make -p -q``,
~1,300 lines, the project's own rows rare among them) and without them
(``make -p -q -r -R``).

Facts come from the capture's own record of the Makefile it wrote, never from make's
text: a variable's value, a target's prerequisites (the object list expanded the way the
Makefile builds it), a recipe line, a target-specific flag. make runs with a bare
environment (``PATH``, ``LC_ALL=C``) so the dump holds no variable of the building
machine's. A fact is kept only where its text stands once in the output. Held out
(issue 33, fifth round): no dev source holds a build tool's rule database.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "make_database"
SOURCES = ("main", "net", "parse", "config_load", "report")
LIB = ("ring", "hash", "arena")
CFLAGS = "-O2 -g -Wall -Wextra -fstack-protector-strong"
NET_FLAG = "-DUSE_EPOLL"
PREFIX = "/opt/tally"
INSTALL = "install -m 0755 tally $(PREFIX)/bin/tally"
DOCS = "docs/tally.1 docs/tally.conf.5"
MAKEFILE = f"""\
CC = gcc
CFLAGS = {CFLAGS}
SRCS := {' '.join(f'{s}.c' for s in SOURCES)}
OBJS := $(SRCS:.c=.o)
LIBOBJS := {' '.join(f'{s}.o' for s in LIB)}
PREFIX ?= {PREFIX}
MANPAGES = {DOCS}

all: tally

tally: $(OBJS) libcore.a
\t$(CC) -o $@ $^

libcore.a: $(LIBOBJS)
\tar rcs $@ $^

net.o: CFLAGS += {NET_FLAG}

%.o: %.c config.h
\t$(CC) $(CFLAGS) -c $<

install: tally $(MANPAGES)
\t{INSTALL}
\tinstall -m 0644 $(MANPAGES) $(PREFIX)/share/man/

clean:
\trm -f $(OBJS) $(LIBOBJS) libcore.a tally

.PHONY: all install clean
"""
OUTPUTS = {"builtin": ["-p", "-q"], "bare": ["-p", "-q", "-r", "-R"]}
ASKED = (  # scenario, fact text, note, wordings
    ("cflags", CFLAGS, "the Makefile's CFLAGS",
     ("Which compiler flags does the Makefile set for C files?", "What is CFLAGS set to in this project?")),
    ("tally_prereqs", " ".join([f"{s}.o" for s in SOURCES] + ["libcore.a"]), "OBJS expanded, then libcore.a",
     ("What does the tally binary depend on?", "List the prerequisites of the tally target.")),
    ("lib_prereqs", " ".join(f"{s}.o" for s in LIB), "the Makefile's LIBOBJS",
     ("Which object files go into the static library?", "What are the prerequisites of the library archive target?")),
    ("install_recipe", INSTALL, "the install rule's first recipe line",
     ("What command installs the binary?", "Which recipe line copies the program into place?")),
    ("net_flag", NET_FLAG, "a target-specific CFLAGS addition",
     ("Which extra compiler flag does one object file get on its own?",
      "Is there a target-specific variable, and what does it add?")),
    ("prefix", PREFIX, "the Makefile's PREFIX default",
     ("Where will the project be installed by default?", "What is the default installation prefix?")),
    ("manpages", DOCS, "the Makefile's MANPAGES",
     ("Which manual pages does the project ship?", "What does the MANPAGES variable list?")),
)


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("make") is None:
        raise RuntimeError("needs GNU make")
    proj = work / "tally"
    (proj / "docs").mkdir(parents=True)
    (proj / "Makefile").write_text(MAKEFILE)
    for name in (*SOURCES, *LIB):
        (proj / f"{name}.c").write_text(f"/* {name} */\n")
    (proj / "config.h").write_text("#define TALLY_MAX 64\n")
    for page in DOCS.split():
        (proj / page).write_text(".TH TALLY 1\n")
    out = []
    for output, flags in OUTPUTS.items():
        # -q: question mode (nothing is built; exit status 1 as tally is out of date).
        content = run(["make", *flags], check=False, cwd=proj, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}).stdout
        args = {"command": f"make {' '.join(flags)}"}
        for scen, text, note, wordings in ASKED:
            if content.count(text) != 1:
                continue
            sid = f"{output}_{scen}"
            out.append(make_case(SOURCE, sid, "text", "bash", args, "named", choose(f"{SOURCE}/{sid}", wordings),
                                 content, [fact(text, "named_item", f"capture's Makefile: {note}",
                                                basis="independent")]))
    assert len(out) >= 8, f"too few make_database cases: {len(out)}"
    return out
