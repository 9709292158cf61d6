"""Is this hit line a definition site of the searched symbol? By the line's shape, per
language family.

The family comes from the hit's file extension; a file without one (shell scripts,
bash-completion files) is tried against every family's strong shapes and shell's weak
ones; a file with an extension of no known language (docs, data) defines nothing. Only
the first ``_HEAD`` characters of a line are looked at: a definition opens its line, and a
minified JavaScript line may run for hundreds of kilobytes.

Strong shapes are definitions by the language's own keywords (``def``, ``class``, ``fn``,
``func``, ``struct``, ``#define``, ``typedef``, ``function``, a C function header). Weak
ones are looser (assignments, enumerators, C prototypes, Rust ``impl`` blocks) and are
kept after the strong ones, within a smaller cap. A line whose first mention of the
symbol comes after ``_NAME_WITHIN`` characters defines nothing.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

STRONG, WEAK = 0, 1
_HEAD = 400
_NAME_WITHIN = 160

_FAMILY_OF_EXT = {
    **dict.fromkeys(("py", "pyi", "pyx"), "python"),
    **dict.fromkeys(("js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "vue", "svelte"), "js"),
    "go": "go",
    "rs": "rust",
    **dict.fromkeys(("c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "ipp", "inl", "tcc", "m", "mm", "cu"), "c"),
    **dict.fromkeys(("java", "kt", "kts", "scala", "groovy", "cs", "swift", "dart"), "java"),
    **dict.fromkeys(("rb", "rake", "gemspec"), "ruby"),
    **dict.fromkeys(("sh", "bash", "zsh", "ksh", "bats"), "shell"),
}
FAMILIES = ("python", "js", "go", "rust", "c", "java", "ruby", "shell")

# "{S}" is where the name goes (the mark that replaced the symbol, see below).
_C_TYPE_DEF = (  # a function or method header: a return type, the name, "(", and no ";" on the line
    # (Every character before the name is one of the shape's own: the lookahead says so in
    # one scan, where a line like "int f(EC_KEY *k);" would otherwise be backtracked over
    # position by position. The two weak C shapes below open the same way.)
    r"^(?=[\w:<>,\s\*&~]*{S})(?:[A-Za-z_][\w:<>,\s\*&]*[\s\*&])?(?:[\w:<>]+::)?~?{S}\s*\((?!.*;\s*$)",
    (r"^\s+(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:static|inline|virtual|constexpr|explicit|const|unsigned|signed|struct|"
    r"extern|friend|public|private|protected|final|abstract|synchronized|native|override|async|default)\s+)*"
    r"(?:<[^>]*>\s*)?(?!(?:return|else|case|new|delete|throw|goto|sizeof|co_return|co_yield|do|await|yield|in|is|"
    r"not|and|or|if|while|for|switch)\b)[A-Za-z_][\w:<>,.\[\]\*&?]*(?:\s*[\*&]+\s*|\s+)~?{S}\s*\([^;]*$"),
    # GNU / libstdc++ style: the return type on the line above, the name and its whole
    # parameter list alone on an indented line (a call statement would end with ";").
    r"^\s+(?:[\w:<>]+::)?~?{S}\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?$",
    # ... or its parameter list continued on the next line: a first parameter with a type and
    # a name ("_Iterator __first,"), which a call's arguments do not have.
    r"^\s+(?:[\w:<>]+::)?~?{S}\s*\(\s*(?:const\s+)?[\w:<>\[\]]+(?:\s*[\*&]+\s*|\s+)\w+[^;{}]*,\s*$",
)
_SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "python": (
        (r"^\s*(?:async\s+)?def\s+{S}\s*[(\[]",
         r"^\s*class\s+{S}",
         r"^\s*type\s+{S}[^=]*="),
        (r"^{S}\s*(?::[^=]+)?=(?!=)",
         r"^(?:[A-Za-z_]\w*\s*,\s*)+{S}\s*(?:,\s*[A-Za-z_]\w*\s*)*=(?!=)",
         r"^\s+self\.{S}\s*(?::[^=]+)?=(?!=)"),
    ),
    "js": (
        (r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\b\s*\*?\s*{S}\s*[(<]",
         r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+{S}",
         r"^\s*(?:export\s+)?(?:declare\s+)?(?:interface|type|enum|namespace|module)\s+{S}",
         (r"^\s*(?:export\s+)?(?:const|let|var)\s+{S}\s*(?::[^=]+)?=\s*(?:async\s+)?"
         r"(?:function\b|class\b|(?:<[^>]*>\s*)?\((?:[^()]|\([^()]*\))*\)\s*(?::[^=]+)?=>|[\w$]+\s*=>)"),
         (r"^\s*(?:(?:static|async|get|set|public|private|protected|readonly|override|abstract)\s+)*\*?\s*#?{S}\s*"
         r"(?:<[^>]*>)?\s*\((?:[^(){};]|\([^()]*\))*\)\s*(?::\s*[^{};=]+)?\{"),
         r"^\s*(?:[\w$]+\.)*{S}\s*[:=]\s*(?:async\s+)?(?:function\b|\((?:[^()]|\([^()]*\))*\)\s*=>|[\w$]+\s*=>)"),
        (r"^\s*(?:export\s+)?(?:const|let|var)\s+{S}\s*(?::[^=]+)?=(?!=)",
         r"^\s*(?:(?:public|private|protected|readonly|static|declare)\s+)+{S}\s*[?!]?\s*[:=]"),
    ),
    "go": (
        (r"^func\s+(?:\([^)]*\)\s*)?{S}\s*[(\[]",
         r"^\s*type\s+{S}",
         r"^\s*(?:const|var)\s+{S}"),
        (r"^\s+{S}\s+(?:struct|interface)\b",
         r"^\t+{S}\s*(?:[\w.\[\]*]+\s*)?=(?!=)"),
    ),
    "rust": (
        (r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|default|extern\s*(?:\"[^\"]*\")?)\s+)*fn\s+{S}",
         r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:struct|enum|union|trait|type|mod|static(?:\s+mut)?|const)\s+{S}",
         r"^\s*macro_rules!\s*{S}"),
        (r"^\s*(?:unsafe\s+)?impl\b[^{;]*{S}",),
    ),
    "c": (
        (r"^\s*#\s*define\s+{S}",
         (r"^\s*(?:template\s*<[^>]*>\s*)?(?:typedef\s+)?(?:struct|union|enum(?:\s+class)?|class)\s+(?:\w+\s+)*{S}"
         r"\s*(?:[:{]|$)"),
         r"^\s*typedef\b[^;]*[\s*]{S}\s*(?:\[[^\]]*\]\s*)*;",
         r"^\s*typedef\b.*\(\s*\*\s*{S}\s*\)",
         r"^\s*\}\s*{S}\s*;",
         r"^\s*(?:template\s*<[^>]*>\s*)?using\s+{S}\s*=",
         *_C_TYPE_DEF),
        ((r"^(?=[\w\s\*&:<>,]*{S})\s*(?:extern\s+)?(?!(?:return|else|case|throw|goto|delete|co_return)\b)"
          r"[A-Za-z_][\w\s\*&:<>,]*[\s\*&]{S}"
         r"\s*\(.*\)\s*(?:const\s*)?;"),
         r"^\s+{S}\s*(?:=[^,;]*)?,?\s*(?:/[/*].*)?$",
         r"^(?=[\w\s\*]*{S})(?:(?:static|const|extern)\s+)*[A-Za-z_][\w\s\*]*[\s\*]{S}\s*(?:\[[^\]]*\]\s*)*(?:=|;)"),
    ),
    "java": (
        ((r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|internal|static|final|abstract|sealed|open|"
         r"data|inline|value|override|suspend|partial|virtual|async|enum|annotation|inner|companion|lateinit|const|"
         r"case|implicit|lazy)\s+)*(?:class|interface|enum|record|object|trait|struct|fun|def|val|var|typealias|"
         r"type|func)\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?{S}"),
         *_C_TYPE_DEF),
        (r"^\s*(?:(?:public|private|protected|static|final|readonly|const)\s+)+[\w<>\[\],.? ]+\s+{S}\s*(?:=|;)",),
    ),
    "ruby": (
        (r"^\s*def\s+(?:self\.|[\w:]+\.)?{S}",
         r"^\s*(?:class|module)\s+(?:[\w:]+::)?{S}"),
        (r"^\s*{S}\s*=(?!=)",
         r"^\s*(?:attr_(?:reader|writer|accessor)|define_method|alias_method)\b.*:{S}"),
    ),
    "shell": (
        (r"^\s*(?:function\s+)?{S}\s*\(\s*\)",
         r"^\s*function\s+{S}"),
        (r"^\s*(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)*)?{S}=",
         r"^\s*alias\s+{S}="),
    ),
}


def family_of(path: str) -> str | None:
    """The language family of a hit's file: by extension; "" for a file without one (its
    lines are judged by shape); None for an extension of no known language."""
    name = path.rsplit("/", 1)[-1]
    if "." not in name.lstrip("."):
        return ""
    return _FAMILY_OF_EXT.get(name.rsplit(".", 1)[-1].lower())


# Each occurrence of a searched symbol is replaced by one private-use character before the
# shapes look at the line, and the shapes expect that character where the name goes. So a
# family's shapes compile once per process into one alternation, not once per searched
# symbol (Python compiles regexes in Python: ~15 ms for a family's shapes), and a line costs
# one substitution and at most two searches.
_MARK = "\ue000"


def _compile(shapes: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p.replace('{S}', _MARK)})" for p in shapes))


@cache
def _shapes(family: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(strong, weak) shapes of ``family``; "" is a file without an extension: every
    family's strong shapes, shell's weak ones."""
    if family:
        strong, weak = _SHAPES[family]
    else:
        strong, weak = tuple(p for st, _ in _SHAPES.values() for p in st), _SHAPES["shell"][1]
    return _compile(strong), _compile(weak)


@lru_cache(maxsize=64)
def _symbol_rx(symbols: frozenset[str]) -> re.Pattern[str]:
    """Every occurrence of one of ``symbols`` with no ``[\\w$]`` character on either side,
    the longest symbol first. Each alternative opens with its symbol's text and looks behind
    afterwards (``X(?<![\\w$]X)`` is ``(?<![\\w$])X``): a pattern that starts with a literal
    is searched for as a string, not tried at every position of the text."""
    alts = "|".join(f"{e}(?<![\\w$]{e})" for e in (re.escape(s) for s in sorted(symbols, key=len, reverse=True)))
    return re.compile(rf"(?:{alts})(?![\w$])")


def definition_rank(text: str, family: str | None, symbols: frozenset[str]) -> int | None:
    """STRONG or WEAK when ``text`` (a hit line's content) defines one of ``symbols`` in
    ``family`` (see :func:`family_of`), else None."""
    if family is None or not symbols:
        return None
    return DefinitionFinder(symbols).rank(text, family)


class DefinitionFinder:
    """:func:`definition_rank` for many lines and one set of symbols (the symbols' regex
    and the families' shapes are looked up once)."""

    def __init__(self, symbols: frozenset[str]):
        self.symbols = tuple(symbols)
        self._mark = _symbol_rx(symbols).sub
        self.shapes: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {}

    def _first(self, head: str) -> int:
        """Where the first occurrence of a symbol starts (part of a longer word or not), or -1."""
        if len(self.symbols) == 1:
            return head.find(self.symbols[0])
        return min((i for sym in self.symbols if (i := head.find(sym)) >= 0), default=-1)

    def rank(self, text: str, family: str | None) -> int | None:
        return self.ranks([(text, family)])[0]

    def ranks(self, lines: list[tuple[str, str | None]]) -> list[int | None]:
        """:meth:`rank` of each (text, family). The lines' heads are marked in one
        substitution over them all, joined by line breaks (which no symbol touches)."""
        heads = [text[:_HEAD] if family is not None else "" for text, family in lines]
        joined = "\n".join(heads)
        if joined.count("\n") == len(heads) - 1:
            marked = self._mark(_MARK, joined).split("\n")
        else:  # a line holding a line break: one by one
            marked = [self._mark(_MARK, head) for head in heads]
        out: list[int | None] = []
        shapes_of = self.shapes
        for (_, family), head, m in zip(lines, heads, marked):
            # A definition names itself early in its line; a symbol first seen further in is
            # a use, and skipping it bounds the shapes' backtracking over what precedes the name.
            # The first mark is never before the first occurrence: within the bound, so is that.
            p = m.find(_MARK)
            if p < 0 or family is None:
                out.append(None)
                continue
            if p > _NAME_WITHIN or _MARK in head:
                first = self._first(head)
                if first < 0 or first > _NAME_WITHIN or m.count(_MARK) == head.count(_MARK):
                    out.append(None)  # a use; or no mark but the text's own mark character
                    continue
            shapes = shapes_of.get(family)
            if shapes is None:
                shapes = shapes_of[family] = _shapes(family)
            if shapes[0].match(m):  # every shape starts with "^": match, not search
                out.append(STRONG)
            elif shapes[1].match(m):
                out.append(WEAK)
            else:
                out.append(None)
        return out
