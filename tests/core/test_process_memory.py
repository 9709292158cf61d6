"""What keeps a proxy worker small (docs/proxy.md, "Memory per worker"): tiktoken's
Python copy of the BPE ranks is dropped; glibc arenas are capped and trimmed, and large
blocks keep their own mappings."""

from __future__ import annotations

import os
import pickle
import platform
from importlib import metadata

import pytest

from headroom.malloc import limit_arenas, trim
from headroom.tokens import drop_rank_dicts, get_encoding


def real_text() -> str:
    """Package descriptions nobody here wrote: prose, code, URLs, non-ASCII names."""
    return "\n".join((metadata.metadata(d).get_payload() or "")[:4000] for d in ("httpx", "numpy", "pydantic"))


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_encoding_without_its_rank_dict_encodes_like_a_full_one(name):
    import tiktoken
    from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS

    drop_rank_dicts()  # what every proxy process does at start-up
    enc = get_encoding(name)
    assert enc._mergeable_ranks == {}  # the 24 MB Python copy is gone
    full = tiktoken.Encoding(**ENCODING_CONSTRUCTORS[name]())  # built from the same file, dict kept
    text = real_text()
    ids = enc.encode(text, disallowed_special=())
    assert ids == full.encode(text, disallowed_special=()) and len(ids) > 1000
    assert enc.decode(ids) == text
    assert list(enc.encode_to_numpy(text, disallowed_special=())) == ids
    # A registered encoding pickles by name, so pickling never needed the dict.
    assert pickle.loads(pickle.dumps(enc)).encode(text, disallowed_special=()) == ids


def test_a_library_user_keeps_the_rank_dict():
    """Outside the proxy the dict stays: user code may extend an encoding from it."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = "from headroom.tokens import get_encoding; print(len(get_encoding('o200k_base')._mergeable_ranks))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=root,
                         env={**os.environ, "PYTHONPATH": str(root)})
    assert int(out.stdout) > 190_000


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc allocator controls")
def test_arena_cap_and_trim_reach_glibc():
    assert limit_arenas(8)  # the glibc default on small machines: harmless for the other tests
    # 32 MB in 64 KB blocks (malloc'd, below the mmap threshold), then freed except the last:
    # the free space is not at the heap's top, so only malloc_trim can give it back.
    blocks = [bytearray(64 * 1024) for _ in range(512)]
    last = blocks.pop()
    before = rss_anon_kb()
    del blocks
    assert trim()  # glibc says memory went back ...
    assert rss_anon_kb() < before - 16 * 1024  # ... and the kernel agrees
    del last


def rss_anon_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    raise AssertionError("no RssAnon")


HEAP_PROBE = """
import sys
from headroom.malloc import fix_mmap_threshold
from tests.core.test_process_memory import rss_anon_kb
if sys.argv[1] == "fixed":
    assert fix_mmap_threshold()
big = bytearray(8 * 1024 * 1024)
del big  # one large block mapped and freed: glibc raises its threshold to 8 MB
blocks = [bytearray(2 * 1024 * 1024) for _ in range(16)]  # 32 MB, like decode buffers
last = blocks.pop()
before = rss_anon_kb()
del blocks
print(before - rss_anon_kb())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc allocator controls")
def test_a_fixed_mmap_threshold_gives_large_blocks_back_on_free():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]

    def returned_kb(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", HEAP_PROBE, mode], check=True, capture_output=True, text=True,
                             cwd=root, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
        return int(out.stdout.strip())

    assert returned_kb("fixed") > 24 * 1024  # each block had its own mapping
    assert returned_kb("default") < 8 * 1024  # in the heap: kept until a trim
