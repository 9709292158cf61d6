"""Kinds of file a question names in words, as the path suffixes that mark them.

"Which Python module is the biggest?", "the largest translation file": a listing (``ls
-l``, ``tar -tv``, ``zipinfo``, ``git ls-tree -l``, ``du``) names files by path, and the
question names a kind of file. A path's suffix is how the listing says the kind, so the
largest file of the kind is the extreme among the rows whose path ends in one of its
suffixes, not the largest file.

The words are the usual names of file kinds (languages, documents, media, data); a word
that is no kind names no suffix.
"""

from __future__ import annotations

import re
from functools import lru_cache

_KINDS: dict[str, tuple[str, ...]] = {
    "python": (".py", ".pyi", ".pyw"), "javascript": (".js", ".mjs", ".cjs", ".jsx"),
    "typescript": (".ts", ".tsx", ".mts", ".cts"), "go": (".go",), "golang": (".go",), "rust": (".rs",),
    "java": (".java",), "kotlin": (".kt", ".kts"), "c": (".c", ".h"), "c++": (".cc", ".cpp", ".cxx", ".hpp", ".hh"),
    "cpp": (".cc", ".cpp", ".cxx", ".hpp", ".hh"), "header": (".h", ".hpp", ".hh", ".hxx"),
    "ruby": (".rb",), "php": (".php",), "swift": (".swift",), "scala": (".scala",), "shell": (".sh", ".bash", ".zsh"),
    "script": (".sh", ".bash", ".py", ".pl", ".rb"), "perl": (".pl", ".pm"), "lua": (".lua",),
    "markdown": (".md", ".markdown"), "doc": (".md", ".rst", ".txt", ".adoc"), "documentation": (".md", ".rst", ".adoc"),
    "page": (".md", ".rst", ".html", ".htm"), "html": (".html", ".htm"), "template": (".html", ".j2", ".jinja", ".tmpl"),
    "stylesheet": (".css", ".scss", ".sass", ".less"), "css": (".css",), "style": (".css", ".scss", ".sass", ".less"),
    "image": (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico", ".bmp"), "picture": (".png", ".jpg", ".jpeg"),
    "icon": (".ico", ".svg", ".png"), "font": (".ttf", ".otf", ".woff", ".woff2"), "video": (".mp4", ".webm", ".mov"),
    "translation": (".po", ".mo", ".pot", ".xliff"), "locale": (".po", ".mo"), "catalog": (".po", ".mo", ".pot"),
    "archive": (".zip", ".tar", ".gz", ".tgz", ".xz", ".bz2", ".7z", ".whl", ".jar"),
    "json": (".json",), "yaml": (".yaml", ".yml"), "toml": (".toml",), "xml": (".xml",), "csv": (".csv", ".tsv"),
    "config": (".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".json"), "sql": (".sql",),
    "log": (".log",), "text": (".txt",), "binary": (".bin", ".so", ".dll", ".exe", ".o", ".a"),
    "library": (".so", ".a", ".dll", ".dylib", ".jar"), "object": (".o", ".obj"), "notebook": (".ipynb",),
    "protobuf": (".proto",), "certificate": (".pem", ".crt", ".cer"), "key": (".pem", ".key"),
}
_WORD = re.compile(r"[a-z][a-z+#]*")


@lru_cache(maxsize=256)
def suffixes_asked(question: str) -> tuple[str, ...]:
    """The path suffixes of the kinds of file the question names ("python modules",
    "translation files"), in no particular order; empty when it names none. A kind word
    counts before "file", "module", "page" or the like, or in its plural, so "key" in
    "which key" and "c" in "option c" name no files."""
    words = _WORD.findall(question.lower()[:2000])
    out: set[str] = set()
    for k, w in enumerate(words):
        base = w[:-1] if w.endswith("s") and w[:-1] in _KINDS else w
        if base not in _KINDS:
            continue
        nxt = words[k + 1] if k + 1 < len(words) else ""
        if base != w or nxt.rstrip("s") in _FILE_NOUNS or base in _KINDS_ALONE:
            out.update(_KINDS[base])
    return tuple(sorted(out))


# Nouns after a kind word that make it a kind of file ("python module", "font file").
_FILE_NOUNS = frozenset({"file", "module", "source", "page", "doc", "document", "sheet", "asset", "script",
                         "package", "member", "entry", "blob", "object", "artifact", "bundle", "catalog", "catalogue"})
# Kind words that name files even alone ("the biggest image", "which translation").
_KINDS_ALONE = frozenset({"python", "javascript", "typescript", "markdown", "stylesheet", "image", "picture",
                          "icon", "font", "video", "translation", "archive", "notebook", "certificate", "binary",
                          "library", "template"})
