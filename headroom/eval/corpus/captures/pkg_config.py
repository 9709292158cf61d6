"""pkg-config queries: pkgconf's ``pkg-config --list-all`` (package, name and description, in
its own hash order), the version of every package (``--modversion`` in a loop over the
sorted list), every variable of one package (``--print-variables`` then ``--variable=`` in a
loop: ``name=value``) and the flags of a static link (``--cflags --libs --static``: one long
line gathered through four levels of ``Requires`` and ``Requires.private``), over ~75 ``.pc``
files the capture writes into the only search directory.

The packages are alike (a library under ``/opt/deps/<name>-<version>``, one ``-l`` flag)
except for a few: one still before 1.0, one far newer major version, one package whose
private dependencies reach four levels down, one extra system library only a deep private
dependency asks for, and a daemon's package with ~35 variables built on one another
(``${prefix}``, ``${libdir}``...). Facts come from the capture's own record of the files it
wrote (versions, descriptions, variables expanded by the capture), never from
``pkg-config``'s text: the answer is a version, a description, a variable's value, a
package name or a flag. Held out (issue 33, ninth round): no dev source holds pkg-config
queries.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "pkg_config"
STEMS = ("zstd", "lz4", "brotlienc", "brotlidec", "snappy", "xxhash", "sodium", "argon2", "yaml", "jansson",
         "msgpackc", "protobuf-c", "grpc-core", "nghttp2", "nghttp3", "ngtcp2", "uv", "ev", "event-core",
         "cares", "idn2", "psl", "unistring", "pcre2-8", "onig", "icu-uc", "icu-i18n", "expat", "xml2",
         "xslt", "sqlite3", "lmdb", "leveldb", "rocksdb", "hiredis", "mosquitto", "rdkafka", "avro-c",
         "parquet-glib", "arrow-glib", "curl", "ssh2", "git2", "archive", "magic", "seccomp", "cap-ng",
         "systemd", "udev", "dbus-1", "glib-2.0", "gobject-2.0", "gio-2.0", "jemalloc", "tcmalloc", "unwind",
         "dw", "elf", "bpf", "uring", "numa", "hwloc", "pci", "usb-1.0", "ftdi1", "modbus", "opus", "vorbis",
         "flac", "sndfile", "samplerate")
ROLES = ("compression", "hashing", "crypto", "serialization", "RPC", "HTTP", "event loop", "DNS", "text",
         "storage", "messaging", "system", "memory", "tracing", "hardware", "audio")
PRE_RELEASE = "samplerate"  # the one 0.x version
NEWEST_MAJOR = "ngtcp2"  # the one version 12.x or later
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


@dataclass
class Package:
    name: str
    version: str
    description: str
    requires: tuple[str, ...] = ()
    private: tuple[str, ...] = ()
    libs_private: str = ""
    variables: dict[str, str] = field(default_factory=dict)

    @property
    def prefix(self) -> str:
        return f"/opt/deps/{self.name}-{self.version}"

    def text(self) -> str:
        head = {"prefix": self.prefix, "libdir": "${prefix}/lib", "includedir": "${prefix}/include",
                **self.variables}
        lines = [f"{k}={v}" for k, v in head.items()]
        lines += ["", f"Name: {self.name}", f"Description: {self.description}", f"Version: {self.version}"]
        if self.requires:
            lines.append(f"Requires: {', '.join(self.requires)}")
        if self.private:
            lines.append(f"Requires.private: {', '.join(self.private)}")
        lines += [f"Libs: -L${{libdir}} -l{self.name.removeprefix('lib')}", "Cflags: -I${includedir}"]
        if self.libs_private:
            lines.append(f"Libs.private: {self.libs_private}")
        return "\n".join(lines) + "\n"


def expand(variables: dict[str, str]) -> dict[str, str]:
    """Each variable with ``${other}`` replaced by the other's expanded value, as the
    capture means them (the record's own view; pkg-config is not asked)."""
    done: dict[str, str] = {}

    def value(name: str) -> str:
        if name not in done:
            done[name] = re.sub(r"\$\{(\w+)\}", lambda m: value(m.group(1)), variables[name])
        return done[name]

    return {name: value(name) for name in variables}


def daemon_variables() -> dict[str, str]:
    out = {"exec_prefix": "${prefix}", "bindir": "${exec_prefix}/bin", "sbindir": "${exec_prefix}/sbin",
           "datadir": "${prefix}/share", "sysconfdir": "/etc/shopd", "localstatedir": "/var/lib/shopd",
           "runstatedir": "/run/shopd", "plugindir": "${libdir}/shopd/plugins-v7",
           "schemadir": "${datadir}/shopd/schema", "templatedir": "${datadir}/shopd/templates",
           "unitdir": "/usr/lib/systemd/system", "socket": "${runstatedir}/control.sock",
           "api_version": "7.3", "abi_tag": "shopd-abi-20261118", "default_port": "8471",
           "metrics_port": "9471", "cache_dir": "/var/cache/shopd", "spool_dir": "${localstatedir}/spool",
           "journal_dir": "${localstatedir}/journal", "max_workers": "96", "min_kernel": "5.15",
           "build_id": "c0ffee42d00d", "codegen": "${bindir}/shopd-codegen", "migrate": "${sbindir}/shopd-migrate"}
    rnd = random.Random(96)
    for n in range(10):
        out[f"feature_{n:02d}"] = rnd.choice(("yes", "no"))
    return out


def make_packages() -> list[Package]:
    rnd = random.Random(97)
    roles = list(ROLES)
    pkgs = []
    for n, stem in enumerate(STEMS):
        version = f"{rnd.randint(1, 4)}.{rnd.randint(0, 19)}.{rnd.randint(0, 12)}"
        version = {PRE_RELEASE: "0.2.1", NEWEST_MAJOR: "12.0.3"}.get(stem, version)
        role = roles[n % len(roles)]
        pkgs.append(Package(f"lib{stem}", version, f"{stem.replace('-', ' ')} {role} library, build {n + 101}"))
    by = {p.name: p for p in pkgs}
    # The static link's chain: shopd-full -> libgrpc-core -> libprotobuf-c (private) -> libxxhash
    # (private) -> libunwind (private), which alone asks for -latomic.
    by["libgrpc-core"].requires = ("libnghttp2",)
    by["libgrpc-core"].private = ("libprotobuf-c",)
    by["libprotobuf-c"].private = ("libxxhash",)
    by["libxxhash"].private = ("libunwind",)
    by["libunwind"].libs_private = "-latomic"
    pkgs.append(Package("shopd", "7.3.0", "shop daemon plugin interface", requires=("libyaml", "libjansson"),
                        variables=daemon_variables()))
    pkgs.append(Package("shopd-full", "7.3.0", "shop daemon, every backend linked in",
                        requires=("shopd", "libgrpc-core", "libzstd", "libsodium", "libcurl", "libsqlite3"),
                        private=("libhiredis", "liburing")))
    return pkgs


def static_closure(by: dict[str, Package], root: str) -> list[str]:
    """Every package a static link of ``root`` reads, public and private, by the record."""
    seen, todo = [], [root]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.append(name)
            todo += [*by[name].requires, *by[name].private]
    return seen


def _asks(by: dict[str, Package]) -> list[Ask]:
    daemon = expand({"prefix": by["shopd"].prefix, "libdir": "${prefix}/lib", **by["shopd"].variables})
    chain = static_closure(by, "shopd-full")
    needs_atomic = [n for n in chain if "-latomic" in by[n].libs_private]
    assert needs_atomic == ["libunwind"] and "libprotobuf-c" in chain
    majors = {n: int(p.version.split(".")[0]) for n, p in by.items() if n.startswith("lib")}
    asks = [
        Ask("pre_release", "named", "named_item", (min(majors, key=majors.get),),
            "the capture's record: the one package below 1.0",
            ("Is any dependency still pre-1.0? Which one?", "Which package has a 0.x version?"), ("versions",)),
        Ask("newest_major", "extreme", "extreme", (max(majors, key=majors.get),),
            "the capture's record: the highest major version",
            ("Which package has the highest major version?", "Which library is on the newest major release?"),
            ("versions",)),
        Ask("atomic", "named", "named_item", ("-latomic",), "the capture's record: the deep private Libs.private",
            ("Which system library does the static link need that no direct dependency asks for?",
             "What extra library does libunwind pull into the static link?"), ("static",)),
    ]
    for n, name in enumerate(("libseccomp", "libicu-uc")):
        asks.append(Ask(f"description_{n}", "named", "named_item", (by[name].description,),
                        "the capture's record: the .pc file's Description",
                        (f"What does {name} describe itself as?", f"What's the description of {name}?"),
                        ("list_all",)))
    for n, name in enumerate(("libhiredis", "liblmdb", "libopus")):
        asks.append(Ask(f"version_{n}", "named", "named_item", (by[name].version,),
                        "the capture's record: the .pc file's Version",
                        (f"Which version of {name} is installed?", f"What version does pkg-config report for {name}?"),
                        ("versions",)))
    for var in ("plugindir", "socket", "abi_tag", "journal_dir"):
        asks.append(Ask(f"variable_{var}", "named", "named_item", (daemon[var],),
                        "the capture's record: the variable expanded by the capture",
                        (f"What's shopd's {var}?", f"Where does the shopd package's {var} variable point?"),
                        ("variables",)))
    for n, name in enumerate(("libxxhash", "libprotobuf-c")):
        asks.append(Ask(f"libdir_{n}", "named", "named_item", (f"-L{by[name].prefix}/lib",),
                        "the capture's record: the private dependency's libdir",
                        (f"Which library path does the static link use for {name}?",
                         f"What -L flag comes from {name} in the static link?"), ("static",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    pcdir = work / "pkgconfig"
    pcdir.mkdir()
    pkgs = make_packages()
    for p in pkgs:
        (pcdir / f"{p.name}.pc").write_text(p.text())
    env = {**ENV, "PKG_CONFIG_LIBDIR": str(pcdir)}
    commands = {
        "list_all": "pkg-config --list-all",
        "versions": "for p in $(pkg-config --list-all | cut -d' ' -f1 | sort); do "
                    "echo \"$p $(pkg-config --modversion $p)\"; done",
        "variables": "for v in $(pkg-config --print-variables shopd); do "
                     "echo \"$v=$(pkg-config --variable=$v shopd)\"; done",
        "static": "pkg-config --cflags --libs --static shopd-full",
    }
    outputs = {name: Output({"command": cmd}, "text", run(["bash", "-c", cmd], cwd=work, env=env).stdout)
               for name, cmd in commands.items()}
    out = asked_cases(SOURCE, outputs, _asks({p.name: p for p in pkgs}))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
