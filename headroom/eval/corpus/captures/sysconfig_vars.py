"""Python's build configuration as ``python3 -m sysconfig`` prints it: the platform, the install
scheme's paths and ~900 ``NAME = "value"`` build variables, for Debian's ``/usr/bin/python3``
and for the project's virtual environment (the same build, other paths).

Facts come from another reader of the same state: ``sysconfig.get_config_var`` and
``sysconfig.get_paths`` called in the same interpreter, never from the printed listing; a
value is asked only where it stands once in its output. Held out (issue 33, fifteenth round):
dev holds compiler and perl build settings (gcc -Q --help, perl -V), but no Python build
variable dump.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "sysconfig_vars"
INTERPRETERS = {"system": "/usr/bin/python3", "venv": sys.executable}
# variable -> how an agent asks for it
VARIABLES = {
    "CONFIG_ARGS": ("What configure arguments was Python built with?", "Show me the ./configure flags of this build."),
    "INSTSONAME": ("What's the soname of the shared libpython?", "Which INSTSONAME does the build record?"),
    "LINKFORSHARED": ("Which linker flags do programs embedding Python need?", "What is LINKFORSHARED set to?"),
    "TZPATH": ("Where does this Python look for time zone data?", "Which TZPATH directories were configured?"),
    "PY_BUILTIN_HASHLIB_HASHES": ("Which hash algorithms are built into hashlib?", "What builtin hashlib hashes were compiled in?"),
    "MODULE__SQLITE3_LDFLAGS": ("How is the sqlite3 module linked?", "Which linker flags does _sqlite3 use?"),
    "DYNLOADFILE": ("Which dynamic loading source file does the build use?", "What's DYNLOADFILE?"),
    "TESTRUNNER": ("What command runs Python's own test suite in this build?", "Which TESTRUNNER is configured?"),
    "PGO_PROF_GEN_FLAG": ("Which flag generates the PGO profile?", "What's the profile-generation flag for PGO builds?"),
    "EXT_SUFFIX": ("What filename suffix do compiled extension modules get?", "Which extension suffix does this Python expect?"),
    "AR": ("Which archiver was the build configured with?", "What is AR set to?"),
}
PATHS = {
    "scripts": ("Where do console scripts get installed?", "What's the scripts install path?"),
}
READER = ("import json, sysconfig; print(json.dumps({'vars': {k: str(v) for k, v in "
          "sysconfig.get_config_vars().items()}, 'paths': sysconfig.get_paths()}))")


def build(work: Path) -> list[dict[str, Any]]:
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    commands = {name: f"{exe} -m sysconfig" for name, exe in INTERPRETERS.items()}
    seen = {name: json.loads(run([exe, "-c", READER], env=env).stdout) for name, exe in INTERPRETERS.items()}
    note = "sysconfig.get_config_var / get_paths called in the same interpreter"
    asks = [Ask(f"var_{var}", "named", "named_item",
                lambda out, var=var: (seen[out]["vars"].get(var, ""),) if seen[out]["vars"].get(var) else (),
                note, wordings)
            for var, wordings in VARIABLES.items()]
    asks += [Ask(f"path_{key}", "named", "named_item", lambda out, key=key: (seen[out]["paths"][key],), note, wordings,
                 ("system",))  # the venv's paths stand in its command line too
             for key, wordings in PATHS.items()]
    return shell_cases(SOURCE, commands, asks, cwd=work, env=env)
