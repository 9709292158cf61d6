"""Hex dumps of real binary files: ``hexdump -C`` (offset, sixteen bytes in two groups,
the printable characters between bars; runs of identical lines squeezed to ``*``) and
``xxd -a`` (offset with a colon, bytes in pairs, text; runs of zero lines skipped) of
Debian's ``/usr/bin/true`` (an ELF executable, ~35 KiB) and of a zip archive the capture
writes from the venv's ``sortedcontainers`` package with ``zipfile`` (deflated members,
a central directory, the end record).

Facts come from another reader of the same bytes, never from the dumps: the ELF header
and section header table read with ``struct`` (where a named section starts, where the
section header table starts) and the archive read by ``zipfile`` (where a named member's
local header starts, where the central directory and the end record start). The fact is
the offset column of the dump line holding that byte (``00002a30`` in ``hexdump -C``,
``00002a30:`` in ``xxd``), kept only where it occurs once in the output (a line inside a
squeezed run has no offset of its own and asks nothing). Held out (issue 33, fourth round):
no dev source holds a hex dump.
"""

from __future__ import annotations

import shutil
import struct
import sysconfig
import zipfile
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "hex_dump"
ELF = Path("/usr/bin/true")
SECTIONS = (".interp", ".dynsym", ".dynstr", ".text", ".rodata", ".eh_frame", ".data", ".gnu_debuglink")
OUTPUTS = {"hexdump": ["hexdump", "-C"], "xxd": ["xxd", "-a"]}


def elf_sections(data: bytes) -> tuple[int, dict[str, int]]:
    """(section header table offset, section name -> file offset) of a 64-bit little-endian
    ELF file, from its header (e_shoff, e_shentsize, e_shnum, e_shstrndx) and the section
    name string table."""
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a 64-bit little-endian ELF file"
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]  # sh_offset of the name table

    def name(h: tuple) -> str:
        start = strtab + h[0]
        return data[start: data.index(b"\0", start)].decode()

    return shoff, {name(h): h[4] for h in headers if h[1] != 8}  # SHT_NOBITS occupies no bytes


def write_zip(path: Path) -> None:
    src = Path(sysconfig.get_paths()["purelib"]) / "sortedcontainers"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(src.glob("*.py")):
            zf.write(f, f"sortedcontainers/{f.name}")


def zip_offsets(path: Path) -> dict[str, int]:
    """Member -> local header offset (``zipfile``'s reading of the central directory), and
    the central directory's and the end record's offsets (from the end record itself)."""
    data = path.read_bytes()
    eocd = data.rindex(b"PK\x05\x06")
    with zipfile.ZipFile(path) as zf:
        out = {i.filename: i.header_offset for i in zf.infolist()}
    out["<central directory>"] = struct.unpack_from("<I", data, eocd + 16)[0]
    out["<end record>"] = eocd
    return out


def label(offset: int, output: str) -> str:
    """The offset column of the dump line that holds byte ``offset``."""
    line = offset & ~15
    return f"{line:08x}:" if output == "xxd" else f"\n{line:08x}  "


def questions(elf: Path, archive: Path) -> list[tuple[str, Path, tuple[str, ...], int, str]]:
    """(scenario, file, wordings, byte offset, note)."""
    shoff, sections = elf_sections(elf.read_bytes())
    asked = [("elf_section_headers", elf,
              ("Which line of the dump (its offset) holds the start of the section header table?",
               "Where do the ELF section headers begin? Give the dump line that holds their first byte."), shoff, "ELF header e_shoff")]
    for sec in SECTIONS:
        if sec in sections:
            asked.append((f"elf_section{sec.replace('.', '_')}", elf,
                          (f"Where does the {sec} section start? Give the dump line that holds its first byte.",
                           f"Which line of the dump holds the first byte of {sec}?"),
                          sections[sec], f"section header sh_offset of {sec}"))
    for member, off in zip_offsets(archive).items():
        if member.startswith("<"):
            what = member.strip("<>")
            asked.append((f"zip_{what.replace(' ', '_')}", archive,
                          (f"Which dump line holds the first byte of the zip's {what}?",
                           f"Where does the archive's {what} start (the dump line's offset)?"),
                          off, f"zip end record: {what} offset"))
        else:
            asked.append((f"zip_member_{Path(member).stem}", archive,
                          (f"Which dump line holds the start of the local header of {member}?",
                           f"Where in the archive does the entry for {member} begin (the dump line's offset)?"),
                          off, "zipfile: ZipInfo.header_offset"))
    return asked


def build(work: Path) -> list[dict[str, Any]]:
    for tool in ("hexdump", "xxd"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"needs {tool}")
    archive = work / "sortedcontainers.zip"
    write_zip(archive)
    shown = {ELF: str(ELF), archive: "sortedcontainers.zip"}
    asked = questions(ELF, archive)
    out = []
    for output, cmd in OUTPUTS.items():
        for path in (ELF, archive):
            content = run([*cmd, str(path)], cwd=work).stdout
            for scen, file, wordings, offset, note in asked:
                text = label(offset, output)
                if file != path or content.count(text) != 1:
                    continue
                text = text.strip()
                if content.count(text) != 1:
                    continue
                sid = f"{output}_{scen}"
                out.append(make_case(SOURCE, sid, "text", "bash", {"command": f"{' '.join(cmd)} {shown[path]}"},
                                     "named", choose(f"{SOURCE}/{sid}", wordings), content,
                                     [fact(text, "named_item", f"{note} = {offset} (0x{offset:x})",
                                           basis="independent")]))
    assert len(out) >= 10, f"too few hex_dump cases: {len(out)}"
    return out
