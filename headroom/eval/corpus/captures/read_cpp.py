"""C++ headers of GCC's standard library (``/usr/include/c++/12/bits``: algorithms,
containers, strings), read whole; questions describe one function template by the first
sentence of its Doxygen comment (``@brief`` dropped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._source_files import brace_functions, file_cases

SOURCE = "read_cpp"
ROOT = Path("/usr/include/c++/12/bits")
FILES = ("stl_algo.h", "stl_algobase.h", "stl_vector.h", "basic_string.h", "stl_tree.h", "hashtable.h",
         "stl_deque.h", "stl_list.h", "stl_heap.h", "shared_ptr_base.h", "regex_compiler.tcc", "stl_bvector.h")


def build(work: Path) -> list[dict[str, Any]]:
    files = [(f"/usr/include/c++/12/bits/{f}", ROOT / f) for f in FILES if (ROOT / f).exists()]
    return file_cases(SOURCE, files, brace_functions)
