"""Where a file's structures start, from its bytes: the landmarks a question about a hex
dump asks for ("where does .text start", "which line holds the central directory").

Each format is recognised by its magic number and read by its published layout: ELF
(headers and sections, by name), ZIP (each member's local header, the central directory,
its end record), gzip (header, name, data), PNG (chunks), tar (each member's header). Reads past the bytes the dump
holds give no landmark; nothing here raises on a truncated or corrupt file.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

Landmark = tuple[int, str]  # (offset, what starts there)
MAX_LANDMARKS = 4096  # a zip of many members: more are not listed


def landmarks(data: bytes) -> tuple[str, list[Landmark]]:
    """The file kind and its landmarks (ascending offsets), or ("", [])."""
    for magic, kind, reader in _FORMATS:
        if data.startswith(magic) or (magic == b"ustar" and data[257:262] == b"ustar"):
            try:
                found = reader(data)
            except (struct.error, ValueError, IndexError, UnicodeDecodeError):
                found = []
            if found:
                label = kind(data) if callable(kind) else kind
                return label, sorted(set(found))[:MAX_LANDMARKS]
    return "", []


def _elf_kind(data: bytes) -> str:
    bits = {1: "32-bit", 2: "64-bit"}.get(data[4], "")
    order = {1: "LSB", 2: "MSB"}.get(data[5], "")
    return " ".join(p for p in ("ELF", bits, order) if p)


def _elf(data: bytes) -> list[Landmark]:
    is64, end = data[4] == 2, "<" if data[5] == 1 else ">"
    if is64:
        phoff, shoff = struct.unpack_from(end + "QQ", data, 0x20)
        phnum, shentsize, shnum, shstrndx = struct.unpack_from(end + "HHHH", data, 0x38)
        entry, name_at, type_at, off_at, size_at = "IIQQQQ", 0, 4, 24, 32
    else:
        phoff, shoff = struct.unpack_from(end + "II", data, 0x1C)
        phnum, shentsize, shnum, shstrndx = struct.unpack_from(end + "HHHH", data, 0x2C)
        entry, name_at, type_at, off_at, size_at = "IIIIII", 0, 4, 16, 20
    out: list[Landmark] = [(0, "ELF header")]
    if phoff and phnum:
        out.append((phoff, "program headers"))
    if shoff:
        out.append((shoff, "section headers"))  # listed even past a dump cut short: its offset answers
    if not shoff or shoff >= len(data) or shentsize < struct.calcsize(entry):
        return out
    headers = []
    for k in range(min(shnum, 4096)):
        at = shoff + k * shentsize
        if at + shentsize > len(data):
            break
        name = struct.unpack_from(end + "I", data, at + name_at)[0]
        kind = struct.unpack_from(end + "I", data, at + type_at)[0]
        fmt = "Q" if is64 else "I"
        offset = struct.unpack_from(end + fmt, data, at + off_at)[0]
        size = struct.unpack_from(end + fmt, data, at + size_at)[0]
        headers.append((name, kind, offset, size))
    names_at = headers[shstrndx][2] if shstrndx < len(headers) else None
    for k, (name, kind, offset, size) in enumerate(headers):
        if kind in (0, 8) or not size or offset >= len(data):  # the null section; NOBITS (.bss) holds no bytes
            continue
        label = _c_string(data, names_at + name) if names_at is not None else ""
        out.append((offset, f"section {label or f'#{k}'}"))
    return out


def _c_string(data: bytes, at: int, most: int = 128) -> str:
    if not 0 <= at < len(data):
        return ""
    stop = data.find(b"\0", at, at + most)
    return data[at:stop if stop >= 0 else at + most].decode("ascii", "replace")


def _zip(data: bytes) -> list[Landmark]:
    out: list[Landmark] = []
    at = 0
    while len(out) < MAX_LANDMARKS:
        at = data.find(b"PK\x03\x04", at)
        if at < 0 or at + 30 > len(data):
            break
        name_len = struct.unpack_from("<H", data, at + 26)[0]
        name = data[at + 30:at + 30 + name_len].decode("utf-8", "replace")
        if name_len and name.isprintable():
            out.append((at, f"local header of {name}"))
        at += 4
    eocd = data.rfind(b"PK\x05\x06")
    if eocd >= 0 and eocd + 22 <= len(data):
        out.append((eocd, "end of central directory"))
        cd = struct.unpack_from("<I", data, eocd + 16)[0]
        if cd < eocd:
            out.append((cd, "central directory"))
    return out


def _gzip(data: bytes) -> list[Landmark]:
    """RFC 1952: a 10-byte header, optional extra field, file name and comment (flags 4,
    8, 16), then the compressed data."""
    flags = data[3]
    out: list[Landmark] = [(0, "gzip header")]
    at = 10
    if flags & 4:
        at += 2 + struct.unpack_from("<H", data, at)[0]
    if flags & 8:
        out.append((at, f"original file name {_c_string(data, at, 255)}"))
        at = data.index(b"\0", at) + 1
    if flags & 16:
        out.append((at, "comment"))
        at = data.index(b"\0", at) + 1
    out.append((at + (2 if flags & 2 else 0), "compressed data"))
    return out


def _png(data: bytes) -> list[Landmark]:
    out: list[Landmark] = [(0, "PNG signature")]
    at = 8
    while at + 8 <= len(data) and len(out) < MAX_LANDMARKS:
        length = struct.unpack_from(">I", data, at)[0]
        kind = data[at + 4:at + 8].decode("ascii")
        if not kind.isalpha():
            break
        out.append((at, f"chunk {kind}"))
        at += 12 + length
    return out


def _tar(data: bytes) -> list[Landmark]:
    out: list[Landmark] = []
    at = 0
    while at + 512 <= len(data) and len(out) < MAX_LANDMARKS:
        if data[at + 257:at + 262] != b"ustar":
            break
        name = _c_string(data, at, 100)
        size = int(data[at + 124:at + 136].split(b"\0")[0].strip() or b"0", 8)
        out.append((at, f"tar header of {name}"))
        at += 512 + (size + 511) // 512 * 512
    return out


_FORMATS: list[tuple[bytes, str | Callable[[bytes], str], Callable[[bytes], list[Landmark]]]] = [
    (b"\x7fELF", _elf_kind, _elf),
    (b"PK\x03\x04", "ZIP archive", _zip),
    (b"\x89PNG\r\n\x1a\n", "PNG image", _png),
    (b"\x1f\x8b\x08", "gzip file", _gzip),
    (b"ustar", "tar archive", _tar),
]
