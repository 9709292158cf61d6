"""GCC's own dump of the settings a compile would run with: ``gcc -Q --help=params`` (some 280
``--param=name= value`` rows) at -O2 and -Os, ``--help=optimizers`` at -O3 (``[enabled]`` /
``[disabled]`` and the valued flags) and ``--help=common`` (some 640 rows), each with a build's
own tuning passed in a response file (``@tuning.opts``): a few parameters and flags set to values
no default has.

Facts come from the capture's own record of what it passed (the value a named setting was
given, the setting given a named value), never from GCC's text; a fact is kept only where its
text stands once in the output. Held out (issue 33, twelfth round): no dev source holds a
compiler's option or parameter dump.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "compiler_params"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
NOTE = "the capture's record of the settings it passed to gcc"

# name -> (value passed, how an agent would ask for it without the name).
PARAMS_O2 = {
    "max-unroll-times": ("23", "How many times may the compiler unroll one loop at most in this build?"),
    "large-function-growth": ("317", "By what percentage may inlining grow a large function here?"),
    "max-gcse-memory": ("7919", "How much memory may global common-subexpression elimination use?"),
    "inline-unit-growth": ("83", "How much may inlining grow the whole compilation unit, in percent?"),
    "max-tail-merge-comparisons": ("29", "How many comparisons may tail merging make per block?"),
}
PARAMS_OS = {
    "max-inline-insns-auto": ("61", "What's the size limit for inlining unmarked functions in the -Os build?"),
    "l1-cache-line-size": ("192", "What cache line size does the size-optimised build assume?"),
    "max-crossjump-edges": ("977", "How many incoming edges does cross-jumping consider at most in the -Os build?"),
    "max-pending-list-length": ("53", "How long may the scheduler's pending list get in the -Os build?"),
}
FLAGS_O3 = {
    "-falign-functions": ("64:32", "How are functions aligned in the -O3 build?"),
    "-falign-jumps": ("48:16", "What alignment do jump targets get at -O3?"),
    "-ffp-contract": ("off", "Is floating-point contraction allowed at -O3, and in what mode?"),
}
COMMON = {
    "-fmax-errors": ("4099", "After how many errors does the compiler give up?"),
    "-flto-partition": ("one", "How is link-time optimisation partitioned?"),
    "-fstack-limit-register": ("r13", "Which register holds the stack limit?"),
}


def _passed(settings: dict[str, tuple[str, str]], prefix: str) -> str:
    return " ".join(f"{prefix}{name}={value}" for name, (value, _) in settings.items())


# The build's tuning sits in GCC response files (as a build system keeps it), so the values asked
# about are in the output only, not on the command line the agent typed.
OPTION_FILES = {
    "tuning-o2.opts": _passed(PARAMS_O2, "--param="),
    "tuning-os.opts": _passed(PARAMS_OS, "--param="),
    "tuning-o3.opts": "-fno-tree-pre " + _passed(FLAGS_O3, ""),
    "diagnostics.opts": _passed(COMMON, ""),
}
COMMANDS = {
    "params_o2": "gcc -Q -O2 --help=params @tuning-o2.opts",
    "params_os": "gcc -Q -Os --help=params @tuning-os.opts",
    "optimizers": "gcc -Q -O3 --help=optimizers @tuning-o3.opts",
    "common": "gcc -Q -O2 --help=common @diagnostics.opts",
}


def _asks() -> list[Ask]:
    asks = []
    for output, settings in (("params_o2", PARAMS_O2), ("params_os", PARAMS_OS), ("optimizers", FLAGS_O3),
                             ("common", COMMON)):
        for name, (value, wording) in settings.items():
            key = name.strip("-").replace("-", "_")
            asks.append(Ask(f"value_{key}", "named", "named_item", (value,), NOTE, (wording,), (output,)))
    # The other way round: the setting given a value the build chose (its name, not its value, is the answer).
    for output, settings, name in (("params_o2", PARAMS_O2, "max-gcse-memory"),
                                   ("params_os", PARAMS_OS, "max-crossjump-edges"),
                                   ("params_o2", PARAMS_O2, "large-function-growth")):
        value = settings[name][0]
        asks.append(Ask(f"named_{name.replace('-', '_')}", "named", "named_item", (name,), NOTE,
                        (f"Which tuning parameter did this build set to {value}?",
                         f"What parameter is {value} here?"), (output,)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    for name, options in OPTION_FILES.items():
        (work / name).write_text(options + "\n")
    return shell_cases(SOURCE, COMMANDS, _asks(), cwd=work, env=ENV)
