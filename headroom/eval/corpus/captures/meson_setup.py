"""A build system's configure checks as Meson prints them: ``meson setup build`` (the project, the
compiler and linker it found, then one line a check, in the order the build file asks them:
``Has header "sys/epoll.h" : YES``, ``Checking for function "memfd_create" : YES``, ``Checking
for size of "struct ledger_entry" : 344``, ``Checking for alignment of ...``, ``Checking whether
type ... has member ...``, ``Fetching value of define ...``, ``Run-time dependency zlib found:
YES 1.2.13``, ``Program xz found: YES (/usr/bin/xz)``; ~140 lines, ~5.5 kB), for a C daemon's
``meson.build`` the capture writes: ~50 system headers, ~45 libc functions, the sizes and
alignments of the eight structs of a header of its own, a few members, three dependencies and
six helper programs. Meson 1.6.1 runs from a throwaway venv (PyPI at build time), with GCC 12
and ninja.

Most checks succeed; in the middle, one header, one function, one dependency, one program and
one member are missing. Facts come from other readers of the same state, never from Meson's
text: the header search directories on disk (``os.path.exists``), the C library itself
(``ctypes``), ``ctypes`` laying out the same structs for the sizes, ``pkg-config`` for the
dependencies, ``shutil.which`` on the same ``PATH`` for the programs, and the capture's record
of the header it wrote for the members; a fact is kept only where it stands once (an alignment,
a single digit, never does; nor the C library's minor version). The source and build folders'
temporary paths stand in the header (no fact is in them). Held out (issue 33, nineteenth round):
dev holds CMake's cache listings and GCC's parameter dumps, but no configure-check transcript.
"""

from __future__ import annotations

import ctypes
import random
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import pinned_tool, run

SOURCE = "meson_setup"
MESON = "meson==1.6.1"
HEADERS = ("stdio.h", "stdlib.h", "string.h", "unistd.h", "fcntl.h", "errno.h", "sys/epoll.h", "sys/eventfd.h",
           "sys/timerfd.h", "sys/signalfd.h", "sys/inotify.h", "sys/mman.h", "sys/socket.h", "netinet/tcp.h",
           "arpa/inet.h", "poll.h", "pthread.h", "sched.h", "semaphore.h", "spawn.h", "dlfcn.h", "zlib.h",
           "zstd.h", "sqlite3.h", "openssl/ssl.h", "lzma.h", "expat.h", "ffi.h", "yaml.h", "uuid/uuid.h",
           "gmp.h", "ncurses.h", "sys/prctl.h", "sys/resource.h", "sys/uio.h", "sys/un.h", "sys/wait.h",
           "sys/statvfs.h", "sys/sysinfo.h", "sys/xattr.h", "linux/futex.h", "linux/io_uring.h", "netdb.h",
           "ifaddrs.h", "termios.h", "syslog.h", "execinfo.h", "malloc.h", "iconv.h", "langinfo.h", "libintl.h")
FUNCTIONS = ("accept4", "pipe2", "epoll_create1", "eventfd", "timerfd_create", "signalfd", "inotify_init1",
             "memfd_create", "copy_file_range", "getrandom", "posix_fadvise", "fallocate", "sendfile", "splice",
             "kqueue", "preadv2", "statx", "close_range", "renameat2", "reallocarray", "explicit_bzero",
             "strchrnul", "memmem", "qsort_r", "arc4random", "closefrom", "getentropy", "pthread_setname_np",
             "sched_getcpu", "posix_spawnp", "pthread_getattr_np", "malloc_trim", "mallinfo2", "backtrace",
             "getauxval", "prctl", "gettid", "tgkill", "pidfd_open", "process_vm_readv", "syncfs", "posix_memalign",
             "secure_getenv", "clock_nanosleep", "timer_create")
DEPENDENCIES = ("zlib", "libsodium", "sqlite3")
PROGRAMS = ("gzip", "xz", "sed", "asciidoctor", "gpg", "msgfmt")
# C type -> ctypes type, for the structs of ledger.h
CTYPES = {"long": ctypes.c_long, "int": ctypes.c_int, "short": ctypes.c_short, "char": ctypes.c_char,
          "double": ctypes.c_double, "unsigned char": ctypes.c_ubyte, "long long": ctypes.c_longlong}
STRUCTS = ("ledger_entry", "account_row", "batch_header", "payout_slip", "fee_rule", "audit_mark", "queue_slot",
           "cache_line")
MEMBERS = ("memo", "flags", "owner", "checksum", "region", "retries")


@dataclass
class Header:
    """The capture's record of ledger.h: each struct's members (C type, name, array length)."""

    structs: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)

    def text(self) -> str:
        out = ["#pragma once"]
        for name, members in self.structs.items():
            out.append(f"struct {name} {{")
            out += [f"    {t} {m}[{n}];" if n > 1 else f"    {t} {m};" for t, m, n in members]
            out.append("};")
        return "\n".join(out) + "\n"

    def layout(self, name: str) -> tuple[int, int]:
        """(size, alignment) as ctypes lays the same members out (the platform's C rules)."""
        fields = [(m, CTYPES[t] * n if n > 1 else CTYPES[t]) for t, m, n in self.structs[name]]
        cls = type(name, (ctypes.Structure,), {"_fields_": fields})
        return ctypes.sizeof(cls), ctypes.alignment(cls)


def plan(rnd: random.Random) -> Header:
    head = Header()
    for name in STRUCTS:
        members = [(rnd.choice(list(CTYPES)), "id", 1)]
        for m in rnd.sample(MEMBERS, rnd.randint(2, 4)):
            members.append((rnd.choice(list(CTYPES)), m, rnd.choice((1, 13, 19, 37, 53, 101))))
        head.structs[name] = members
    return head


def header_dirs() -> list[Path]:
    """GCC's default search path for <...> headers on this machine (its own, then the system's)."""
    gcc_own = run(["gcc", "-print-file-name=include"]).stdout.strip()
    return [Path(gcc_own), Path("/usr/local/include"), Path("/usr/include/x86_64-linux-gnu"), Path("/usr/include")]


def meson_build(head: Header, rnd: random.Random) -> tuple[str, dict[str, str]]:
    """The build file, and which struct/member pair is asked about but absent."""
    lines = ["project('ledgerd', 'c', version: '2.4.0')", "cc = meson.get_compiler('c')",
             "inc = include_directories('include')",
             "inc_arg = '-I' + (meson.current_source_dir() / 'include')", "pre = '#include \"ledger.h\"'"]
    lines += [f"cc.has_header('{h}')" for h in HEADERS]
    lines += [f"cc.has_function('{f}')" for f in FUNCTIONS]
    for s in STRUCTS:
        lines.append(f"cc.sizeof('struct {s}', prefix: pre, include_directories: inc)")
        # alignment() takes no include_directories: the folder goes in as a plain -I
        lines.append(f"cc.alignment('struct {s}', prefix: pre, args: [inc_arg])")
    absent = {}
    for s in rnd.sample(STRUCTS[2:-2], 3):
        have = [m for _, m, _ in head.structs[s][1:]]
        lines.append(f"cc.has_member('struct {s}', '{have[0]}', prefix: pre, include_directories: inc)")
    s = rnd.choice(STRUCTS[2:-2])
    missing = next(m for m in MEMBERS if m not in {m for _, m, _ in head.structs[s]})
    absent = {"struct": s, "member": missing}
    lines.append(f"cc.has_member('struct {s}', '{missing}', prefix: pre, include_directories: inc)")
    lines.append("cc.get_define('__GLIBC_MINOR__', prefix: '#include <features.h>')")
    lines += [f"dependency('{d}', required: false)" for d in DEPENDENCIES]
    lines += [f"find_program('{p}', required: false)" for p in PROGRAMS]
    lines.append("executable('ledgerd', 'main.c', include_directories: inc)")
    return "\n".join(lines) + "\n", absent


def _pkg_version(name: str) -> str | None:
    r = subprocess.run(["pkg-config", "--modversion", name], capture_output=True, text=True, check=False)
    return r.stdout.strip() if r.returncode == 0 else None


def _asks(head: Header, absent: dict[str, str], rnd: random.Random) -> list[Ask]:
    dirs = header_dirs()
    missing_headers = tuple(h for h in HEADERS if not any((d / h).exists() for d in dirs))
    libc = ctypes.CDLL("libc.so.6")
    missing_functions = tuple(f for f in FUNCTIONS if not hasattr(libc, f))
    versions = {d: _pkg_version(d) for d in DEPENDENCIES}
    found = {p: shutil.which(p, path="/usr/bin:/bin") for p in PROGRAMS}
    asks = [
        Ask("missing_header", "named", "named_item", missing_headers,
            "the header search directories on disk (os.path.exists)",
            ("Which header was not found?", "What header check came back NO?")),
        Ask("missing_function", "named", "named_item", missing_functions,
            "the C library's own symbols (ctypes)",
            ("Which function does the C library lack here?", "What function check failed?")),
        Ask("missing_dependency", "named", "named_item", tuple(d for d, v in versions.items() if v is None),
            "pkg-config on the same machine",
            ("Which dependency could not be found?", "What run-time dependency is missing?")),
        Ask("zlib_version", "named", "named_item", (versions["zlib"] or "",), "pkg-config --modversion zlib",
            ("Which zlib version was found?", "What version of zlib did setup pick up?")),
        Ask("sqlite3_version", "named", "named_item", (versions["sqlite3"] or "",), "pkg-config --modversion sqlite3",
            ("Which sqlite3 version did setup find?", "What version is the sqlite3 dependency?")),
        Ask("missing_program", "named", "named_item", tuple(p for p, w in found.items() if w is None),
            "shutil.which on the same PATH",
            ("Which helper program is not installed?", "What program lookup failed?")),
        Ask("xz_path", "named", "named_item", (found["xz"] or "",), "shutil.which on the same PATH",
            ("Where was xz found?", "Path of the xz program setup found?")),
        Ask("msgfmt_path", "named", "named_item", (found["msgfmt"] or "",), "shutil.which on the same PATH",
            ("Which msgfmt will the build use?", "Where does the msgfmt program live?")),
        Ask("missing_member", "named", "named_item", (absent["member"],), "the capture's record of ledger.h",
            (f"Which member does struct {absent['struct']} lack?",
             f"What member check on struct {absent['struct']} said NO?")),
    ]
    note = "ctypes laying out the same members (the platform's C rules)"
    # sizes only: an alignment (1, 2, 4 or 8) never stands once among the other numbers
    for s in STRUCTS[1:-1]:
        size, _ = head.layout(s)
        asks.append(Ask(f"size_{s}", "named", "named_item", (str(size),), note,
                        (f"How big is struct {s}?", f"sizeof(struct {s}) according to the checks?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1905)
    head = plan(rnd)
    meson = pinned_tool(work / "tool", MESON, "meson")
    src = work / "ledgerd"
    (src / "include").mkdir(parents=True)
    (src / "include" / "ledger.h").write_text(head.text())
    (src / "main.c").write_text('#include "ledger.h"\nint main(void) { return 0; }\n')
    text, absent = meson_build(head, rnd)
    (src / "meson.build").write_text(text)
    env = {"PATH": f"{meson.parent}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(work), "NO_COLOR": "1"}
    return shell_cases(SOURCE, {"setup": "meson setup build"}, _asks(head, absent, rnd), cwd=src, env=env)
