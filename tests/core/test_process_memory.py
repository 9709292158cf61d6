"""What keeps a proxy worker small (docs/proxy.md, "Memory per worker"): tiktoken's
Python copy of the BPE ranks is dropped, glibc arenas are capped and trimmed."""

from __future__ import annotations

import pickle
import platform
from importlib import metadata

import pytest

from headroom.malloc import limit_arenas, trim
from headroom.tokens import get_encoding


def real_text() -> str:
    """Package descriptions nobody here wrote: prose, code, URLs, non-ASCII names."""
    return "\n".join((metadata.metadata(d).get_payload() or "")[:4000] for d in ("httpx", "numpy", "pydantic"))


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_encoding_without_its_rank_dict_encodes_like_a_full_one(name):
    import tiktoken
    from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS

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
