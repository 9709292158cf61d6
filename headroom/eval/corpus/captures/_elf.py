"""What binutils' ``nm`` says about an ELF file: the facts of the ELF sources come from
it, not from reading ``readelf``/``objdump`` output back (``readelf`` has its own ELF
reader; ``nm`` and ``objdump`` read through BFD)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ._run import run

# Start-up and tear-down code GCC adds to every shared object: not what a question about
# the module's own functions names.
COMPILER_RUNTIME = frozenset({"deregister_tm_clones", "register_tm_clones", "__do_global_dtors_aux",
                              "frame_dummy", "_init", "_fini"})


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int
    size: int | None
    kind: str  # nm's type letter: T/t code, D/d data, ...

    @property
    def address(self) -> str:
        """The value as nm, objdump's function headers and readelf print it: 16 hex digits."""
        return f"{self.value:016x}"


def symbols(path: Path | str, *, dynamic: bool = False) -> list[Symbol]:
    """Defined symbols with sizes (``nm --defined-only -S``; ``-D`` for the dynamic table)."""
    cmd = ["nm", "--defined-only", "-S", *(["-D"] if dynamic else []), str(path)]
    out = []
    for line in run(cmd, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4:
            value, size, kind, name = parts
            out.append(Symbol(name, int(value, 16), int(size, 16), kind))
        elif len(parts) == 3:
            value, kind, name = parts
            out.append(Symbol(name, int(value, 16), None, kind))
    return out


def functions(path: Path | str, *, dynamic: bool = False) -> list[Symbol]:
    """Code symbols with a size, one per address, GCC's start-up code left out."""
    seen: set[int] = set()
    out = []
    for s in sorted(symbols(path, dynamic=dynamic), key=lambda s: s.value):
        if s.kind in "Tt" and s.size and s.name not in COMPILER_RUNTIME and s.value not in seen:
            seen.add(s.value)
            out.append(s)
    return out


def section_sizes(path: Path | str) -> dict[str, int]:
    """Section name -> size, from ``objdump -h``."""
    out = {}
    for line in run(["objdump", "-h", str(path)], env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout.splitlines():
        parts = line.split()
        if len(parts) >= 7 and parts[0].isdigit():
            out[parts[1]] = int(parts[2], 16)
    return out
