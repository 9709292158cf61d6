"""JavaScript modules of npm's own dependencies (``/usr/lib/node_modules/npm``: arborist,
config, tar, semver, path-scurry, ...), read whole; questions describe one function by the
first sentence of its JSDoc or line comments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._source_files import brace_functions, file_cases

SOURCE = "read_js"
ROOT = Path("/usr/lib/node_modules/npm/node_modules")
FILES = ("@npmcli/arborist/lib/node.js", "@npmcli/arborist/lib/arborist/build-ideal-tree.js",
         "@npmcli/arborist/lib/arborist/reify.js", "@npmcli/arborist/lib/shrinkwrap.js", "@npmcli/config/lib/index.js",
         "tar/dist/commonjs/unpack.js", "semver/classes/range.js", "path-scurry/dist/commonjs/index.js",
         "lru-cache/dist/commonjs/index.js", "minimatch/dist/commonjs/index.js", "glob/dist/commonjs/glob.js",
         "@npmcli/arborist/lib/place-dep.js", "socks/build/client/socksclient.js", "ip-address/dist/ipv6.js")


def build(work: Path) -> list[dict[str, Any]]:
    files = [(f"node_modules/{f}", ROOT / f) for f in FILES if (ROOT / f).exists()]
    return file_cases(SOURCE, files, brace_functions)
