"""A preprocessor's macro table: GCC's ``cpp -dM`` (every macro in force at the end of a file,
one ``#define`` line each, GCC's ~380 predefined macros and the file's own, in GCC's hash
order) of a build-configuration header the capture writes, once plain and once as ``gcc -dM
-E -DNDEBUG -DSHOPD_PROFILE=3`` (a release build: the header's conditions pick other
values).

The header defines ~90 macros: feature flags (``HAVE_…``, one of them switched off), size
limits (``SHOPD_MAX_…``, one far larger than the rest), a version string, a default port,
function-like helpers, and values chosen by ``#if SHOPD_PROFILE >= 3`` and ``#ifdef
NDEBUG`` blocks, some of them ``#undef``-ed and redefined. Facts come from the capture's
own record of what the header defines under each build (it writes every branch from that
record and evaluates the conditions itself), never from ``cpp``'s text: the answer is a
macro's name or value. Held out (issue 33, eighth round): no dev source holds macro dumps.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "macro_dump"
FEATURES = ("EPOLL", "KQUEUE", "ACCEPT4", "PIPE2", "EVENTFD", "TIMERFD", "SIGNALFD", "INOTIFY", "FANOTIFY",
            "PRCTL", "SETPROCTITLE", "POSIX_FADVISE", "FALLOCATE", "PREAD", "PWRITE", "READV", "WRITEV",
            "SPLICE", "TEE", "VMSPLICE", "MEMFD_CREATE", "GETRANDOM", "ARC4RANDOM", "CLOCK_GETTIME", "NANOSLEEP",
            "SCHED_GETAFFINITY", "PTHREAD_SETNAME_NP", "SO_REUSEPORT", "TCP_FASTOPEN", "TCP_INFO", "IP_PKTINFO",
            "IPV6", "UNIX_SOCKETS", "ZLIB", "ZSTD", "LZ4", "BROTLI", "OPENSSL", "SSL_CTX_SET_ALPN", "PCRE2",
            "ICU", "SQLITE3", "LIBPQ", "HIREDIS", "JEMALLOC", "BACKTRACE", "EXECINFO", "DLADDR", "MALLOC_TRIM",
            "STRLCPY", "STRNDUP", "MEMMEM", "TIMEGM", "SYSLOG", "SYSTEMD", "SECCOMP", "CAPABILITIES", "IO_URING",
            "SENDFILE", "COPY_FILE_RANGE")
OFF = "IO_URING"  # the one feature defined to 0
LIMITS = ("HEADER_BYTES", "URI_BYTES", "COOKIES", "FORM_FIELDS", "UPLOAD_PARTS", "REDIRECTS", "WORKERS",
          "CONNECTIONS", "PIPELINE_DEPTH", "CART_ITEMS", "COUPON_CODES", "SEARCH_TERMS", "BATCH_ROWS",
          "WEBHOOK_RETRIES", "SESSION_KEYS", "TEMPLATE_DEPTH", "QUERY_PARAMS", "LOG_LINE_BYTES")
PROFILED = {  # macro: (value unless SHOPD_PROFILE >= 3, value when it is)
    "SHOPD_CACHE_SHARDS": ("23", "184"),
    "SHOPD_LOG_LEVEL": ("SHOPD_LOG_DEBUG", "SHOPD_LOG_WARN"),
    "SHOPD_POOL_PAGES": ("1531", "24571"),
}
ASSERTS = ("((void)0)", "shopd_assert_fail(#x, __FILE__, __LINE__)")  # (NDEBUG, otherwise)
BUILDS = {"cpp_dm": [], "gcc_release": ["-DNDEBUG", "-DSHOPD_PROFILE=3"]}


def limits() -> dict[str, int]:
    """Each SHOPD_MAX_ limit's value: tens to thousands, the upload size far beyond them."""
    rnd = random.Random(88)
    values = {f"SHOPD_MAX_{name}": rnd.randrange(10, 9000) for name in LIMITS}
    values["SHOPD_MAX_UPLOAD_BYTES"] = 268435456
    return values


def header() -> str:
    """The header's text, written from the record (``limits``, ``PROFILED``, ``ASSERTS``)."""
    lines = ["#ifndef SHOPD_CONFIG_H", "#define SHOPD_CONFIG_H", "", "#ifndef SHOPD_PROFILE",
             "#define SHOPD_PROFILE 1", "#endif", "", '#define SHOPD_VERSION "2.4.1-rc3"',
             "#define SHOPD_DEFAULT_PORT 8443", "#define SHOPD_LOG_DEBUG 10", "#define SHOPD_LOG_WARN 30", ""]
    lines += [f"#define HAVE_{f} {0 if f == OFF else 1}" for f in FEATURES]
    lines += [""] + [f"#define {k} {v}" for k, v in limits().items()]
    lines += ["", "#define SHOPD_MIN(a, b) ((a) < (b) ? (a) : (b))", "#define SHOPD_ALIGN(n) (((n) + 63) & ~63)", ""]
    for macro, (low, high) in PROFILED.items():
        lines += [f"#define {macro} {low}", "#if SHOPD_PROFILE >= 3", f"#undef {macro}", f"#define {macro} {high}",
                  "#endif"]
    lines += ["", "#ifdef NDEBUG", f"#define SHOPD_ASSERT(x) {ASSERTS[0]}", "#else",
              f"#define SHOPD_ASSERT(x) {ASSERTS[1]}", "#endif", "", "#endif", ""]
    return "\n".join(lines)


def _asks() -> list[Ask]:
    lim = limits()
    biggest = sorted(lim, key=lim.get, reverse=True)
    assert lim[biggest[0]] > 10 * lim[biggest[1]]

    def by_build(macro: str):
        return lambda output: (PROFILED[macro][output == "gcc_release"],)

    named = [("version", ("2.4.1-rc3",), ("What version string does the config header define?",
                                          "Which version is SHOPD_VERSION?")),
             ("port", ("8443",), ("What's the default port in the config?", "Which port does SHOPD_DEFAULT_PORT give?")),
             ("disabled", (f"HAVE_{OFF}",), ("Which feature flag is switched off?", "Is any HAVE_ feature set to 0?")),
             ("largest_limit", (biggest[0],), ("Which SHOPD_MAX_ limit is the largest?",
                                              "What's the biggest of the configured maximums? Name the macro.")),
             ("cookies", (str(lim["SHOPD_MAX_COOKIES"]),), ("How many cookies does the server accept at most?",
                                                            "What is SHOPD_MAX_COOKIES?")),
             ("redirects", (str(lim["SHOPD_MAX_REDIRECTS"]),), ("How many redirects are followed at most?",
                                                                "What's the redirect limit set to?")),
             ("batch_rows", (str(lim["SHOPD_MAX_BATCH_ROWS"]),), ("What's the batch row limit?",
                                                                  "How many rows may one batch hold?"))]
    asks = [Ask(key, "extreme" if key == "largest_limit" else "named", "extreme" if key == "largest_limit"
                else "named_item", answers, "the capture's record of the header it wrote", wordings)
            for key, answers, wordings in named]
    asks += [
        Ask("cache_shards", "named", "named_item", by_build("SHOPD_CACHE_SHARDS"),
            "the capture's record: SHOPD_CACHE_SHARDS for this build's SHOPD_PROFILE",
            ("How many cache shards does this build use?", "What does SHOPD_CACHE_SHARDS come out as?")),
        Ask("pool_pages", "named", "named_item", by_build("SHOPD_POOL_PAGES"),
            "the capture's record: SHOPD_POOL_PAGES for this build's SHOPD_PROFILE",
            ("How many pool pages are configured?", "What's the page count of the pool?")),
        Ask("assert", "named", "named_item", lambda output: (ASSERTS[0] if output == "gcc_release"
                                                             else "shopd_assert_fail",),
            "the capture's record: SHOPD_ASSERT under NDEBUG or not",
            ("What does the assertion macro expand to?", "Are asserts compiled out here? What's the definition?")),
    ]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    (work / "shopd_config.h").write_text(header())
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    texts = {"cpp_dm": run(["cpp", "-dM", "shopd_config.h"], cwd=work, env=env).stdout,
             "gcc_release": run(["gcc", "-dM", "-E", *BUILDS["gcc_release"], "shopd_config.h"], cwd=work, env=env).stdout}
    commands = {"cpp_dm": "cpp -dM shopd_config.h",
                "gcc_release": "gcc -dM -E -DNDEBUG -DSHOPD_PROFILE=3 shopd_config.h"}
    outputs = {k: Output({"command": commands[k]}, "text", texts[k]) for k in texts}
    out = asked_cases(SOURCE, outputs, _asks())
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
