"""Memory-checker reports: Valgrind 3.19's Memcheck over a small C program the capture
writes and compiles (``gcc -g -O0``), as text (``--leak-check=full
--show-leak-kinds=all``), as text with origins and the error list (``--track-origins=yes
-s``) and as its XML (``--xml=yes``). The program writes one byte past a block, branches on
an uninitialised value (glibc's ``printf`` then reports more of the same inside libc),
drops a linked cache of 40 entries (one record definitely lost, two indirectly), drops a
table, keeps only an interior pointer to one block (possibly lost), keeps a configuration
buffer (still reachable) and leaks 24 small blocks from 24 generated allocation sites (a
run of near-identical loss records among the rare ones).

Facts come from the program the capture wrote, never from Valgrind's output: which
function does what, on which source line (found by its marker comment in the C source),
with which block sizes (the sizes it allocates, ``sizeof`` of its structure on x86-64).
A fact is kept only where its text occurs once in the output. Held out (issue 33, fourth
round): no dev source holds a memory checker's report.
"""

from __future__ import annotations

import shutil
import string
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "valgrind_memcheck"
TARIFFS, INDEX, CONFIG, ENTRIES, LABEL = 613, 7919, 3187, 40, "quarterly-ledger"
ENTRY_SIZE = 24  # struct entry {char *; long; struct entry *} on x86-64
SITES = 24

PROGRAM = string.Template(r'''#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry { char *label; long amount; struct entry *next; };
static struct entry *cache_head;
static char *kept_config;
static char *interior;

#define SITE(n) static void *alloc_site_##n(void) { return malloc(40 + 8 * n); }
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7) SITE(8) SITE(9) SITE(10) SITE(11)
SITE(12) SITE(13) SITE(14) SITE(15) SITE(16) SITE(17) SITE(18) SITE(19) SITE(20) SITE(21) SITE(22) SITE(23)

static char *copy_label(const char *s) {
    size_t n = strlen(s);
    char *out = malloc(n);
    memcpy(out, s, n + 1); /* MARK:overflow */
    return out;
}

static long *load_tariffs(int n) {
    long *t = malloc(n * sizeof(long)); /* MARK:tariffs */
    for (int i = 0; i < n; i++) t[i] = i * 3;
    return t;
}

static void cache_insert(const char *label, long amount) {
    struct entry *e = malloc(sizeof *e);
    e->label = strdup(label);
    e->amount = amount;
    e->next = cache_head;
    cache_head = e;
}

static int audit_threshold(void) {
    int limit;
    int *p = malloc(sizeof(int) * 4);
    if (p[2] > 10) limit = 1; /* MARK:uninit */
    free(p);
    return limit > 0;
}

static void read_config(void) {
    kept_config = malloc(${CONFIG}); /* MARK:reachable */
    memset(kept_config, 0, ${CONFIG});
}

static char *build_index(void) {
    char *idx = malloc(${INDEX}); /* MARK:possibly */
    memset(idx, 1, ${INDEX});
    return idx + 64;
}

int main(void) {
    void *sites[] = {alloc_site_0(), alloc_site_1(), alloc_site_2(), alloc_site_3(), alloc_site_4(),
        alloc_site_5(), alloc_site_6(), alloc_site_7(), alloc_site_8(), alloc_site_9(), alloc_site_10(),
        alloc_site_11(), alloc_site_12(), alloc_site_13(), alloc_site_14(), alloc_site_15(), alloc_site_16(),
        alloc_site_17(), alloc_site_18(), alloc_site_19(), alloc_site_20(), alloc_site_21(), alloc_site_22(),
        alloc_site_23()};
    printf("%zu sites\n", sizeof sites / sizeof sites[0]);
    read_config();
    for (int i = 0; i < ${ENTRIES}; i++) {
        char name[32];
        snprintf(name, sizeof name, "acct-%02d", i);
        cache_insert(name, i * 100L);
    }
    cache_head = NULL;
    char *lbl = copy_label("${LABEL}");
    printf("%c\n", lbl[0]);
    long *t = load_tariffs(${TARIFFS});
    printf("%ld\n", t[7]);
    t = NULL;
    printf("%d\n", audit_threshold());
    interior = build_index();
    free(lbl);
    return 0;
}
''').substitute(CONFIG=CONFIG, INDEX=INDEX, ENTRIES=ENTRIES, LABEL=LABEL, TARIFFS=TARIFFS)

OUTPUTS = {  # output: (valgrind options, form)
    "leaks": (["--leak-check=full", "--show-leak-kinds=all"], "text"),
    "origins": (["--leak-check=full", "--track-origins=yes", "-s"], "text"),
    "xml": (["--leak-check=full", "--show-leak-kinds=all", "--xml=yes", "--xml-file=memcheck.xml"], "xml"),
}


def marked_line(source: str, mark: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if f"MARK:{mark}" in line)


def _bytes(n: int) -> str:
    """Valgrind's byte counts use thousands separators in its text report."""
    return f"{n:,}"


def questions(form: str) -> list[tuple[str, tuple[str, ...], list[tuple[str, str]]]]:
    line = {m: marked_line(PROGRAM, m) for m in ("overflow", "tariffs", "uninit", "reachable", "possibly")}
    text = form == "text"
    where = (lambda fn, m: f"{fn} (ledger.c:{line[m]})") if text else (lambda fn, m: f"<fn>{fn}</fn>")
    tariff_bytes = TARIFFS * 8
    asked = [
        ("invalid_write", ("Where does the program write past the end of a heap block, and how big is that block?",
                           "Is there an out-of-bounds write? Which block does it overrun?"),
         [(f"0 bytes after a block of size {len(LABEL)}",
           "the program allocates strlen(label) bytes and copies strlen + 1")]
         + ([(where("copy_label", "overflow"), "the memcpy's source line")] if text else [])),
        ("uninitialised", ("Which of the program's own functions branches on an uninitialised value?",
                           "Where does the code make a decision based on memory that was never initialised?"),
         [(where("audit_threshold", "uninit"), "the comparison of a never-written int")]),
        ("still_reachable", ("Which allocation is still reachable when the program exits?",
                             "What memory is still referenced at exit (not leaked, just never freed)?"),
         [(where("read_config", "reachable"), "the configuration buffer kept in a global")]),
        ("possibly_lost", ("Which allocation is only possibly lost (just an interior pointer to it survives)?",
                           "Which block does Memcheck consider possibly lost?"),
         [(where("build_index", "possibly"), "only idx + 64 is kept")]),
        ("tariff_leak", ("How many bytes does the table allocated by load_tariffs leak?",
                         "What size is the block from load_tariffs that is never freed?"),
         [(f"{_bytes(tariff_bytes)} bytes in 1 blocks are definitely lost" if text
           else f"<leakedbytes>{tariff_bytes}</leakedbytes>", f"{TARIFFS} longs of 8 bytes")]),
    ]
    if text:
        asked.append(("largest_block", ("Which single leaked or unfreed block is the largest?",
                                        "What is the biggest block still allocated at exit?"),
                      [(f"{_bytes(INDEX)} bytes in 1 blocks are possibly lost", "the largest malloc of the program")]))
    return asked


def build(work: Path) -> list[dict[str, Any]]:
    for tool in ("gcc", "valgrind"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"needs {tool}")
    (work / "ledger.c").write_text(PROGRAM)
    run(["gcc", "-g", "-O0", "-o", "ledger", "ledger.c"], cwd=work)
    out = []
    for output, (opts, form) in OUTPUTS.items():
        proc = run(["valgrind", *opts, "./ledger"], cwd=work, check=False)
        content = (work / "memcheck.xml").read_text() if form == "xml" else proc.stderr
        content = content.replace(str(work), "/home/dev/ledger")
        command = f"valgrind {' '.join(opts)} ./ledger" + (" && cat memcheck.xml" if form == "xml" else "")
        for scen, wordings, facts in questions(form):
            if any(content.count(t) != 1 for t, _ in facts):
                continue
            sid = f"{output}_{scen}"
            kind = "extreme" if scen == "largest_block" else "named_item"
            out.append(make_case(SOURCE, sid, "text", "bash", {"command": command},
                                 "extreme" if kind == "extreme" else "named", choose(f"{SOURCE}/{sid}", wordings),
                                 content, [fact(t, kind, note, basis="independent") for t, note in facts]))
    assert len(out) >= 12, f"too few valgrind_memcheck cases: {len(out)}"
    return out
