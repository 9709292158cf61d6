"""Source text with its strings and comments removed, line breaks kept.

Blocks are found on this masked text, so a brace, a colon, a ``def`` or a quote inside a
string or comment never counts. One regex matches every string and comment of the
language in a left-to-right pass (so a ``#`` inside a string, or a quote inside a comment,
is consumed by the right token), splitting the text at them in C; tokens that cannot hold
a line break are dropped, tokens that can (triple-quoted strings, block comments, template
literals, heredocs) become as many line breaks as they held, by C-level maps over the
list the split returned. (A second regex pass over the joined text used to find those
tokens again: as costly as the first, and for C's preprocessor lines more.)

Line *numbers* of the masked text are those of the original; offsets are not.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import chain, repeat

# Every token is written as its first character, consumed by the pattern's leading class
# (_FIRST), then the rest behind a lookbehind naming that character: a pattern that opens
# with a character class lets the engine skip to the next candidate in C, where one that
# opened with a lookahead (or a "^", or a lookbehind) ran the matcher at every character.
_FIRST = {"python": "[\"'#]", "js": "[/`\"']", "c": "[/\"'#]", "go": "[/`\"']", "rust": "[/r\"']",
          "shell": "[<'\"#]"}
# Tokens that may span lines, per string syntax (group "keep" in the first pass).
_MULTI = {
    # String prefixes (r, b, f) are left in place: masking only needs the quotes.
    "python": r"""(?<=")""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*\"\"\"|(?<=')''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*''\'""",
    "js": r"(?<=/)\*[\s\S]*?\*/|(?<=`)(?:[^`\\]|\\[\s\S])*`",
    # Preprocessor lines (a "#" that starts its line, with their backslash continuations):
    # braces in macros never count.
    "c": r"(?<=/)\*[\s\S]*?\*/|(?<=\#)(?<![^\n]\#)(?:[^\n\\]|\\[\s\S])*",
    "go": r"(?<=/)\*[\s\S]*?\*/|(?<=`)[^`]*`",
    "rust": r"(?<=/)\*[\s\S]*?\*/|(?<=r)(?P<hashes>\#*)\"[\s\S]*?\"(?P=hashes)|(?<=\")(?:[^\"\\]|\\[\s\S])*\"",
    "shell": r"(?<=<)<-?[ \t]*(?P<q>['\"]?)(?P<tag>\w+)(?P=q)[^\n]*\n[\s\S]*?\n[ \t]*(?P=tag)(?=\n|$)"
             r"|(?<=')[^']*'|(?<=\")(?:[^\"\\]|\\[\s\S])*\"",
}
# Tokens confined to one line (removed by the first pass).
_SINGLE = {
    "python": r"""(?<=\#)[^\n]*|(?<=")[^"\\\n]*(?:\\.[^"\\\n]*)*"|(?<=')[^'\\\n]*(?:\\.[^'\\\n]*)*'""",
    # A regex literal ("/%.*\\//") is a "/" where an operand starts: after an operator or
    # opening bracket (or that and one space, or "return "); its "//" is no comment.
    "js": r"""(?:(?<=[(,=:\[!&|?{};]/)|(?<=[(,=:\[!&|?{};] /)|(?<=return /))(?![/*])"""
          r"""(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/"""
          r"""|(?<=/)/[^\n]*|(?<=")[^"\\\n]*(?:\\.[^"\\\n]*)*"|(?<=')[^'\\\n]*(?:\\.[^'\\\n]*)*'""",
    "c": r"""(?<=/)/[^\n]*|(?<=")[^"\\\n]*(?:\\.[^"\\\n]*)*"|(?<=')[^'\\\n]*(?:\\.[^'\\\n]*)*'""",
    "go": r"""(?<=/)/[^\n]*|(?<=")[^"\\\n]*(?:\\.[^"\\\n]*)*"|(?<=')[^'\\\n]*(?:\\.[^'\\\n]*)*'""",
    "rust": r"""(?<=/)/[^\n]*|(?<=')(?:[^'\\\n]|\\.[^'\n]{0,9})'""",
    # A "#" that starts a word is a comment ("$#", "${#x}" and "a#b" are not).
    "shell": r"""(?<=\#)(?<![\w$#{]\#)[^\n]*""",
}


@lru_cache(maxsize=None)
def _pattern(syntax: str) -> re.Pattern:
    return re.compile(f"{_FIRST[syntax]}(?:(?P<keep>{_MULTI[syntax]})|{_SINGLE[syntax]})", re.M)


def mask(text: str, syntax: str) -> str:
    """``text`` without strings and comments (their line breaks kept)."""
    if syntax not in _MULTI:
        return text
    first = _pattern(syntax)
    # re.split keeps the text between tokens and each token's groups, all in C (a
    # substitution template with a group reference runs Python code per token): the
    # "keep" group (a multi-line token but its first character, never a line break) is
    # the first of each token's groups; single-line tokens leave it None.
    step = first.groups + 1
    pieces = first.split(text)
    kept = [k or "" for k in pieces[1::step]]
    breaks = map("\n".__mul__, map(str.count, kept, repeat("\n")))  # each token's line breaks
    between = pieces[0::step]
    return "".join(chain.from_iterable(zip(between, breaks))) + between[-1]
