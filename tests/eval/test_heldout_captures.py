"""The held-out sources' fact computations (issue 33), checked on their own: each reads
the data through another program or parser than the output asked about. These tests run
the helpers, never a compressor, and never print a held-out output."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime

import pytest

from headroom.eval.corpus.captures import _elf, gpg_keyring, man_pages, tz_transitions

ZLIB = "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13"


def test_transitions_are_where_the_offset_changes_to_the_second():
    found = [t for t in tz_transitions.transitions("Europe/Berlin") if t.year == 2021]
    # EU rules: the last Sunday of March and of October, 01:00 UT.
    assert found == [datetime(2021, 3, 28, 1, 0, tzinfo=UTC), datetime(2021, 10, 31, 1, 0, tzinfo=UTC)]
    assert tz_transitions.zdump_part(found[0], "Europe/Berlin") == \
        "Sun Mar 28 01:00:00 2021 UT = Sun Mar 28 03:00:00 2021 CEST"
    # A single-digit day is space-padded, as zdump writes it.
    assert "Apr  4" in tz_transitions.zdump_part(datetime(2021, 4, 4, 1, 0, tzinfo=UTC), "Europe/Berlin")


@pytest.mark.skipif(shutil.which("zdump") is None, reason="zdump (libc-bin)")
def test_zdump_writes_the_transition_the_way_zoneinfo_finds_it():
    from headroom.eval.corpus.captures._run import run

    text = run(["zdump", "-v", "-c", "2020,2022", "Europe/Berlin"]).stdout
    for t in (t for t in tz_transitions.transitions("Europe/Berlin") if t.year == 2021):
        assert text.count(tz_transitions.zdump_part(t, "Europe/Berlin")) == 1


@pytest.mark.skipif(shutil.which("nm") is None or not __import__("os").path.exists(ZLIB), reason="binutils, zlib")
def test_nm_symbols_and_objdump_sections_parse():
    funcs = _elf.functions(ZLIB, dynamic=True)
    names = {f.name.split("@")[0] for f in funcs}
    assert {"inflate", "deflate", "crc32"} <= names
    assert all(len(f.address) == 16 and f.size for f in funcs)
    sizes = _elf.section_sizes(ZLIB)
    assert sizes[".text"] > sizes[".rodata"] > 0


@pytest.mark.skipif(shutil.which("gpg") is None, reason="gnupg")
def test_primary_keys_come_from_gpgs_colon_listing(tmp_path):
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    keys = gpg_keyring.primary_keys(home, gpg_keyring.KEYRINGS[0])
    assert keys and all(len(k.fingerprint) == 40 and k.fingerprint.endswith(k.keyid) for k in keys)
    assert all(k.uid and "<" not in k.uid for k in keys)
    assert gpg_keyring._day(0) == "1970-01-01"


def test_option_entries_come_from_the_roff_source():
    roff = "\n".join([".SH OPTIONS", ".TP", r"\fB\-k\fR, \fB\-\-keep\fR",
                      r"Keep (do not delete) input files during \fIcompression\fR or decompression.",
                      r'.IP "\-n count"', "Stop after count matching lines have been seen.",
                      ".TP", ".B \\-x", "A request line is not a tag."])
    assert man_pages.options(roff) == [("-k, --keep", "Keep (do not delete) input files"),
                                       ("-n count", "Stop after count matching lines have")]
