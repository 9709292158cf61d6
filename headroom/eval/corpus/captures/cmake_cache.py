"""CMake cache listings as CMake 3.25 prints them: ``cmake -N -LAH`` (every cache entry,
advanced ones too, each under its ``// help`` line: ``NAME:TYPE=value``, sorted by name),
``cmake -N -LH`` (the entries a user is meant to set) and ``cmake -N -LA`` (every entry, no
help), of a build tree the capture configures from a ``CMakeLists.txt`` it writes: ~55 options
and ~55 per-module settings of a C service (feature switches, pool sizes, timeouts, queue
depths, directories, tools looked up with ``find_program``) among CMake's own ~50 entries.

The capture keeps a record of what it declared and what it passed on the configure command
line (``-D``): every feature on but one switched off there, a build type and a pool size given
there, one timeout far longer than the rest, a directory, an internal ABI tag marked advanced.
Tools are looked up on the same ``PATH`` by Python's ``shutil.which`` (one is found, one is
not installed). Facts come from that record and that second lookup, never from cmake's text:
the answer is a value or an entry's name. A fact is kept only where its text stands once in the
output. Held out (issue 33, eleventh round): no dev source holds CMake cache listings.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "cmake_cache"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
FEATURES = ("WITH_TLS", "WITH_ZSTD", "WITH_METRICS", "WITH_TRACING", "WITH_HTTP2", "WITH_HTTP3", "WITH_GRPC",
            "WITH_LUA", "ENABLE_LTO", "ENABLE_ASAN_HOOKS", "ENABLE_AUDIT", "ENABLE_SANDBOX", "BUILD_TOOLS",
            "BUILD_BENCHMARKS", "BUILD_DOCS", "BUILD_EXAMPLES", "SHOP_STRICT_CONFIG", "SHOP_USE_EPOLL")
SWITCHED_OFF = "ENABLE_SANDBOX"
TIMEOUTS = ("CONNECT", "READ", "WRITE", "IDLE", "DRAIN", "EXPORT", "LOCK", "SHUTDOWN", "HANDSHAKE", "RETRY")
LONGEST = "SHOP_EXPORT_TIMEOUT_MS"
DIRS = {"SHOP_SPOOL_DIR": "/srv/shop/spool-a7", "SHOP_STATE_DIR": "/var/lib/shop-state",
        "SHOP_PLUGIN_DIR": "/opt/shop/plugins-v2"}
PROGRAMS = {"SHOP_XZ_PROGRAM": "xz", "SHOP_PROTOC_PROGRAM": "protoc"}
ABI_TAG = ("SHOP_ABI_TAG", "shopabi-k4-20261130")
MODULES = ("ACCOUNTS", "BILLING", "CATALOG", "CHECKOUT", "EXPORTS", "LEDGER", "MAILER", "MEDIA", "NOTIFY",
           "PRICING", "REPORTS", "SEARCH", "SESSIONS", "STOCK")
PER_MODULE = {"QUEUE_DEPTH": "Jobs the {m} queue holds before pushing back",
              "SHARDS": "Shards the {m} store is split into",
              "CACHE_MB": "Megabytes of cache for {m}",
              "LOG_TARGET": "Where {m} writes its log"}
ON_COMMAND_LINE = {SWITCHED_OFF: "OFF", "CMAKE_BUILD_TYPE": "RelWithDebInfo", "SHOP_POOL_SIZE": "37"}


def number(rnd: random.Random) -> str:
    """A setting's value that does not hold the pool size's digits (so that one stands once)."""
    while ON_COMMAND_LINE["SHOP_POOL_SIZE"] in (text := str(rnd.randint(100, 99999))):
        pass
    return text


def declarations(rnd: random.Random) -> tuple[str, dict[str, str]]:
    """The CMakeLists.txt text and the record: entry name -> the value the capture gave it."""
    lines = ["cmake_minimum_required(VERSION 3.13)", "project(shopd C)", ""]
    record = {}
    for name in FEATURES:
        words = name.split("_", 1)[1].lower().replace("_", " ")
        lines.append(f'option({name} "Build with {words} support" ON)')
        record[name] = "ON"
    timeouts = rnd.sample(range(200, 9000, 50), len(TIMEOUTS))
    for word, ms in zip(TIMEOUTS, timeouts, strict=True):
        name = f"SHOP_{word}_TIMEOUT_MS"
        record[name] = str(120000 if name == LONGEST else ms)
        lines.append(f'set({name} "{record[name]}" CACHE STRING "{word.title()} timeout in milliseconds")')
    for module in MODULES:
        for setting, help_text in PER_MODULE.items():
            name = f"SHOP_{module}_{setting}"
            record[name] = f"syslog-{module.lower()}" if setting == "LOG_TARGET" else number(rnd)
            lines.append(f'set({name} "{record[name]}" CACHE STRING "{help_text.format(m=module.lower())}")')
    for name, path in DIRS.items():
        lines.append(f'set({name} "{path}" CACHE PATH "Where the daemon keeps its {name.split("_")[1].lower()} files")')
        record[name] = path
    lines += ['set(SHOP_POOL_SIZE "8" CACHE STRING "Worker threads in the request pool")',
              f'set({ABI_TAG[0]} "{ABI_TAG[1]}" CACHE STRING "Tag stamped into the plugin ABI")',
              f"mark_as_advanced({ABI_TAG[0]})"]
    record[ABI_TAG[0]] = ABI_TAG[1]
    for name, program in PROGRAMS.items():
        lines += [f"find_program({name} {program})", f"mark_as_advanced({name})"]
    record.update(ON_COMMAND_LINE)
    return "\n".join(lines) + "\n", record


def _asks(record: dict[str, str]) -> list[Ask]:
    note = "the capture's record of the cache entries it declared and set"
    found = shutil.which(PROGRAMS["SHOP_XZ_PROGRAM"], path=ENV["PATH"])
    assert found and not shutil.which(PROGRAMS["SHOP_PROTOC_PROGRAM"], path=ENV["PATH"])
    longest = max((n for n in record if n.endswith("_TIMEOUT_MS")), key=lambda n: int(record[n]))
    assert longest == LONGEST
    return [
        Ask("off", "one_off", "named_item", (SWITCHED_OFF,), note,
            ("Which feature is switched off in this build?", "Is any optional feature disabled? Which one?")),
        Ask("build_type", "named", "named_item", (record["CMAKE_BUILD_TYPE"],), note,
            ("What build type was this tree configured with?",)),
        Ask("pool", "named", "named_item", (record["SHOP_POOL_SIZE"],), note,
            ("How many worker threads is the request pool configured for?",), ("help_all", "help")),
        Ask("spool", "named", "named_item", (record["SHOP_SPOOL_DIR"],), note,
            ("Where does the daemon keep its spool files?",), ("help", "all")),
        Ask("longest", "extreme", "extreme", (LONGEST,), note,
            ("Which timeout is set the longest?", "What's the largest timeout setting?"), ("help_all", "all")),
        Ask("xz", "named", "named_item", (found,), "shutil.which on the same PATH",
            ("Which xz binary did the configure step pick up?",), ("help_all",)),
        Ask("missing", "named", "named_item", ("SHOP_PROTOC_PROGRAM-NOTFOUND",), "shutil.which on the same PATH",
            ("Which tool could the configure step not find?",), ("help_all", "all")),
        Ask("abi", "named", "named_item", (ABI_TAG[1],), note,
            ("What ABI tag gets stamped into plugins?",), ("all",)),
        Ask("state_dir", "named", "named_item", (record["SHOP_STATE_DIR"],), note,
            ("Which directory holds the daemon's state?",), ("help_all",)),
        *[Ask(f"module_{n}", "named", "named_item", (record[name],), note,
              (f"What's the {name.split('_')[1].lower()} {words}?",), (output,))
          for n, (name, words, output) in enumerate((("SHOP_LEDGER_QUEUE_DEPTH", "queue depth", "help"),
                                                     ("SHOP_MEDIA_CACHE_MB", "cache size in MB", "all"),
                                                     ("SHOP_CHECKOUT_SHARDS", "shard count", "help_all")))],
    ]


def build(work: Path) -> list[dict[str, Any]]:
    text, record = declarations(random.Random(1117))
    (work / "src").mkdir()
    (work / "src" / "CMakeLists.txt").write_text(text)
    defines = [f"-D{name}={value}" for name, value in ON_COMMAND_LINE.items()]
    run(["cmake", "-S", "src", "-B", "build", *defines], cwd=work, env=ENV)
    commands = {"help_all": "cmake -N -LAH build", "help": "cmake -N -LH build", "all": "cmake -N -LA build"}
    return shell_cases(SOURCE, commands, _asks(record), cwd=work, env=ENV)
