"""glibc allocator controls for long-running processes (the proxy's workers, the OCR service).

Image work (Pillow decode buffers, numpy arrays) runs in worker threads, and glibc gives
each thread that allocates concurrently an arena of its own (up to 8 per core); freed
memory stays in those arenas, so RSS keeps the high-water mark of every arena. Capping
the arenas, keeping large blocks out of the heap and trimming after large transient work
keep a worker near its baseline (measured in docs/proxy.md, "Memory per worker"). All are
no-ops off glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any

M_MMAP_THRESHOLD, M_ARENA_MAX = -3, -8  # mallopt parameter numbers, <malloc.h>
# Fixing the threshold turns off glibc's dynamic one (below). 1 MB, not glibc's starting
# 128 KB: a 5 MB body's compression took 15 % longer at 128 KB (its many large strings
# each mapped anew), the same at 0.5-4 MB, and images stay as small at any of them.
MMAP_THRESHOLD = 1024 * 1024


@functools.lru_cache(maxsize=1)
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        lib = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return lib if lib is not None and hasattr(lib, "malloc_trim") and hasattr(lib, "mallopt") else None


def limit_arenas(n: int) -> bool:
    """At most ``n`` malloc arenas from now on (what ``MALLOC_ARENA_MAX`` sets at start-up)."""
    lib = _libc()
    return bool(lib is not None and lib.mallopt(M_ARENA_MAX, n))


def fix_mmap_threshold(size: int = MMAP_THRESHOLD) -> bool:
    """Blocks of ``size`` bytes and more always get their own mapping, returned on free.

    By default glibc raises this threshold to the size of each mapped block freed (up to
    32 MB): after the first decoded image, later decode buffers and pixel arrays land in
    the heap, where other allocations pin their pages, and ``trim`` cannot give them back
    (a worker kept +15 MB after its first photo; docs/proxy.md, "Memory per worker").
    """
    lib = _libc()
    return bool(lib is not None and lib.mallopt(M_MMAP_THRESHOLD, size))


def trim() -> bool:
    """Give free heap memory at the top of every arena back to the kernel."""
    lib = _libc()
    return bool(lib is not None and lib.malloc_trim(0))
