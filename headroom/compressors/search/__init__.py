"""Search hits (grep, rg, git grep): definitions of the searched symbol kept, the rest
counted per file. ``compressor`` selects, ``parse`` reads the output's shapes, ``symbol``
finds what was searched for, ``definitions`` knows definition lines by shape."""

from .compressor import SearchCompressor
from .parse import FileHits, Hit, parse_search

__all__ = ["FileHits", "Hit", "SearchCompressor", "parse_search"]
