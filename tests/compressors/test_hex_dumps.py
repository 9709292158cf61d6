"""Hex dumps read back into bytes, and the lines where a file's structures start (issue 33,
twelfth session).

Real ``hexdump -C``, ``xxd`` and ``od`` over files this test makes: an ELF object compiled by
gcc (its sections read independently by ``readelf -S -W``), a ZIP archive (its members'
header offsets from ``zipfile``), a PNG written chunk by chunk, a tar archive (``tarfile``
offsets). Questions name a structure; the dump line holding its first byte must be in view,
verbatim.
"""

from __future__ import annotations

import io
import re
import shutil
import struct
import subprocess
import tarfile
import zipfile
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.hexdump.layouts import landmarks
from headroom.compressors.hexdump.read import looks_like_dump, read_dump

from .tool_rounds import tool_round

_DUMPERS = {
    "hexdump": (["hexdump", "-C"], lambda off: f"{off:08x}  "),
    "xxd": (["xxd"], lambda off: f"{off:08x}: "),
    "od": (["od", "-A", "x", "-t", "x1z", "-v"], lambda off: f"{off:06x} "),
}


def _dump(tool: str, path) -> str:
    argv, _ = _DUMPERS[tool]
    if shutil.which(argv[0]) is None:
        pytest.skip(f"needs {argv[0]}")
    return subprocess.run([*argv, str(path)], check=True, capture_output=True, text=True).stdout


def _line_holding(text: str, tool: str, offset: int) -> str:
    """The dump line (its offset as printed) holding ``offset``, 16 bytes a line."""
    return _DUMPERS[tool][1](offset - offset % 16)


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("readelf") is None, reason="needs gcc and readelf")
@pytest.mark.parametrize("tool", ["hexdump", "xxd", "od"])
def test_an_elf_dump_keeps_the_line_where_an_asked_section_starts(tmp_path, tool):
    src = tmp_path / "unit.c"
    src.write_text("".join(f"int table_{k}[{k + 3}] = {{{k}}};\nint fn_{k}(int x) {{ return x * {k} + table_{k}[0]; }}\n"
                           for k in range(40)) + 'const char banner[] = "unit build";\n')
    subprocess.run(["gcc", "-c", "-O0", "-o", "unit.o", "unit.c"], cwd=tmp_path, check=True)
    sections = subprocess.run(["readelf", "-S", "-W", "unit.o"], cwd=tmp_path, check=True, capture_output=True,
                              text=True).stdout
    offsets = {m.group(1): int(m.group(2), 16) for m in re.finditer(
        r"\]\s+(\.\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", sections) if int(m.group(3), 16)}
    assert ".rodata" in offsets and ".text" in offsets
    text = _dump(tool, tmp_path / "unit.o")
    for name in (".rodata", ".text"):
        out = tool_round(f"{tool} unit.o", text, f"Which line of the dump holds the first byte of {name}?")
        line = _line_holding(text, tool, offsets[name])
        assert any(ln.startswith(line) for ln in out.splitlines()), (name, line)
        assert f"section {name} at 0x{offsets[name]:x}" in out
    assert len(out) < len(text) / 3


@pytest.mark.parametrize("tool", ["hexdump", "xxd"])
def test_a_zip_dump_keeps_each_member_header_and_the_central_directory(tmp_path, tool):
    path = tmp_path / "bundle.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for k in range(6):
            zf.writestr(f"pkg/module_{k}.py", "".join(f"def f{k}_{i}(x):\n    return x + {i * k}\n" for i in range(60 + k)))
    with zipfile.ZipFile(path) as zf:
        headers = {i.filename: i.header_offset for i in zf.infolist()}
    data = path.read_bytes()
    eocd = data.rfind(b"PK\x05\x06")
    central = struct.unpack_from("<I", data, eocd + 16)[0]
    text = _dump(tool, path)
    out = tool_round(f"{tool} bundle.zip", text, "At which dump line does the entry for pkg/module_4.py begin?")
    assert any(ln.startswith(_line_holding(text, tool, headers["pkg/module_4.py"])) for ln in out.splitlines())
    out = tool_round(f"{tool} bundle.zip", text, "Where does the zip's central directory begin?")
    assert any(ln.startswith(_line_holding(text, tool, central)) for ln in out.splitlines())
    assert len(out) < len(text) / 3


def test_png_chunks_and_tar_headers_are_landmarks():
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) \
        + chunk(b"tEXt", b"Comment\0made by a test") + chunk(b"IDAT", zlib.compress(bytes(52))) + chunk(b"IEND", b"")
    kind, marks = landmarks(png)
    assert kind == "PNG image" and [label for _, label in marks][1:] == ["chunk IHDR", "chunk tEXt", "chunk IDAT", "chunk IEND"]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for k in range(3):
            body = bytes(700 * (k + 1))
            info = tarfile.TarInfo(f"data/part{k}.bin")
            info.size = len(body)
            tf.addfile(info, io.BytesIO(body))
    buf.seek(0)
    with tarfile.open(fileobj=buf) as tf:
        want = [(m.offset, f"tar header of {m.name}") for m in tf.getmembers()]
    kind, marks = landmarks(buf.getvalue())
    assert kind == "tar archive" and marks == want


@pytest.mark.skipif(shutil.which("xxd") is None or shutil.which("hexdump") is None, reason="needs xxd and hexdump")
@given(st.binary(min_size=160, max_size=3000), st.sampled_from(["hexdump", "xxd"]))
@settings(max_examples=25, deadline=None)
def test_a_dump_reads_back_into_the_bytes_it_shows(tmp_path_factory, data, tool):
    # Runs of equal lines ("*" in hexdump -C) included: the property holds whatever the bytes.
    path = tmp_path_factory.mktemp("dump") / "blob.bin"
    path.write_bytes(data)
    text = _dump(tool, path)
    dump = read_dump(text.split("\n"))
    printed = sum(1 for ln in text.split("\n") if re.match(r"[0-9a-f]{8}:? ", ln) and len(ln) > 12)
    if dump is None:  # too short a dump to read as one (all zeros print one line and "*")
        assert printed < 8
    else:
        assert dump.data == data


def test_texts_that_are_no_dump_are_refused():
    log = [f"2026-11-30 08:{k:02d}:00 INFO request {k} served" for k in range(40)]
    assert not looks_like_dump(log) and read_dump(log) is None
    yaml = [f"key_{k}: value {k}" for k in range(40)]
    assert not looks_like_dump(yaml)
    assert landmarks(b"no magic here" * 10) == ("", [])
    truncated_elf = b"\x7fELF\x02\x01\x01" + bytes(40)  # headers cut short: no landmark, no crash
    assert landmarks(truncated_elf) == ("", [])


def test_gzip_header_fields_are_landmarks():
    import gzip

    buf = io.BytesIO()
    with gzip.GzipFile(filename="inventory.csv", mode="wb", fileobj=buf, mtime=0) as gz:
        gz.write(b"sku,qty\n" * 200)
    kind, marks = landmarks(buf.getvalue())
    assert kind == "gzip file"
    assert marks == [(0, "gzip header"), (10, "original file name inventory.csv"), (24, "compressed data")]


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("xxd") is None, reason="needs gcc and xxd")
def test_a_dump_cut_short_still_says_where_the_section_headers_are(tmp_path):
    (tmp_path / "u.c").write_text("".join(f"int g{k}(int x) {{ return x + {k}; }}\n" for k in range(200)))
    subprocess.run(["gcc", "-c", "-o", "u.o", "u.c"], cwd=tmp_path, check=True)
    data = (tmp_path / "u.o").read_bytes()
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    text = "\n".join(_dump("xxd", tmp_path / "u.o").split("\n")[:200])  # `xxd u.o | head -200`
    assert shoff > 200 * 16
    out = tool_round("xxd u.o | head -200", text, "Where does the section header table start?")
    assert f"section headers at 0x{shoff:x} (past these 3200 bytes)" in out
