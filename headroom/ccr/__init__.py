"""Compress, Cache, Retrieve: originals of lossy compressions and how to get them back."""

from .backends import Backend, Entry, MemoryBackend, SQLiteBackend
from .markers import MARKER_RE, find_hashes, format_marker, has_marker
from .store import CompressionStore, Retrieved, split_items

__all__ = [
    "MARKER_RE",
    "Backend",
    "CompressionStore",
    "Entry",
    "MemoryBackend",
    "Retrieved",
    "SQLiteBackend",
    "find_hashes",
    "format_marker",
    "has_marker",
    "split_items",
]
