"""Perl configuration dumps: ``perl -V`` (the build summary: platform, compiler, sizes,
linker, compile-time options, the locally applied Debian patches, the compile date and the
module search path ``@INC``), ``perl -V:'.*'`` (every one of the ~1,270 ``name='value';``
settings ``Configure`` recorded) and ``perl -V:'.*size'`` (the size settings alone), of the
perl Debian installs here.

Facts come from another reader of the same configuration, never from ``-V``'s text: perl's
``Config`` module asked from a script of the capture's (the ``%Config`` hash as JSON,
``Config::compile_date``, ``Config::local_patches``, the compile-time option lists) and the
running interpreter's ``@INC``. The answer is a value, a patch, an option or a directory;
settings are spelled as each dump writes them (``name='value'`` or the summary's
``name=value``). A fact is kept only where its text stands once in the output. Held out
(issue 33, tenth round): no dev source holds perl configuration dumps.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "perl_config"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
# One script, one interpreter: what Config and @INC hold, as JSON (JSON::PP is a core module).
READER = r"""
use Config; use JSON::PP;
print JSON::PP->new->canonical->encode({
    config => \%Config, compiled => Config::compile_date(), patches => [Config::local_patches()],
    options => [Config::bincompat_options(), Config::non_bincompat_options()], inc => \@INC});
"""
COMMANDS = {"summary": "perl -V", "all": "perl -V:'.*'", "sizes": "perl -V:'.*size'"}


def read_config() -> dict[str, Any]:
    return json.loads(run(["perl", "-e", READER], env=ENV).stdout)


def patch_about(patches: list[str], words: str) -> str:
    """The name (first field) of the one patch whose description holds ``words``."""
    found = [p.split()[0] for p in patches if words in p]
    assert len(found) == 1, (words, found)
    return found[0]


def setting(config: dict[str, Any], name: str) -> Any:
    """``name``'s answer as each dump spells it: quoted in ``-V:``; in the summary a number
    stands bare and a word quoted."""
    value = config[name]
    bare = f"{name}={value}" if value.isdigit() else f"{name}='{value}'"
    return lambda output: (bare,) if output == "summary" else (f"{name}='{value}'",)


def _asks(state: dict[str, Any]) -> list[Ask]:
    config, patches = state["config"], state["patches"]
    option = [o for o in state["options"] if "THREAD_SAFE" in o]
    assert len(option) == 1
    note = "perl's Config module read by the capture's script"
    asks = [
        Ask("compiled", "named", "named_item", (state["compiled"],), "Config::compile_date()",
            ("When was this perl binary compiled?", "What's the build date of the installed perl?"), ("summary",)),
        Ask("thread_locale", "named", "named_item", tuple(option), "Config's compile-time option lists",
            ("Which compile-time option says locale handling is safe across threads?",
             "Was perl built with thread-safe locales? Which option shows it?"), ("summary",)),
        Ask("inc_first", "named", "named_item", (state["inc"][0],), "the interpreter's @INC",
            ("Which directory does perl search first for modules?",), ("summary",)),
        Ask("inc_last", "extreme", "extreme", (state["inc"][-1],), "the interpreter's @INC",
            ("Which directory comes last in perl's module search path?",), ("summary",)),
        Ask("gcc", "named", "named_item", (config["gccversion"],), note,
            ("Which GCC version was perl compiled with?", "What compiler version built this perl?")),
        Ask("long_double", "named", "named_item", setting(config, "longdblsize"), note,
            ("How many bytes does a long double take in this perl build?",
             "What's the size of long double according to perl's configuration?")),
        Ask("integer_type", "named", "named_item", setting(config, "ivtype"), note,
            ("Which C type backs perl's integers here?", "What native type does perl use for its IVs?"),
            ("summary", "all")),
        Ask("configured", "named", "named_item", (config["cf_time"],), note,
            ("When was Configure run for this perl?", "What time did perl's Configure step run?"), ("all",)),
        Ask("rand_bits", "named", "named_item", setting(config, "randbits"), note,
            ("How many random bits does perl's rand() give?",), ("all",)),
        Ask("signals", "named", "named_item", setting(config, "sig_count"), note,
            ("How many signals does perl know about?",), ("all",)),
        Ask("float_exact", "named", "named_item", setting(config, "nv_preserves_uv_bits"), note,
            ("How many bits of an unsigned integer survive conversion to a floating-point number?",), ("all",)),
        Ask("signal_struct", "named", "named_item", setting(config, "sig_size"), note,
            ("How many entries does perl's signal table hold?",), ("sizes",)),
    ]
    for n, (words, wordings) in enumerate((
            ("@INC ordering", ("Which Debian patch changes the order of perl's module search path?",)),
            ("perlbug editor", ("Which patch makes perlbug use the system's default editor?",)),
            ("libnet.cfg", ("Which patch moves libnet's config file under /etc?",)))):
        asks.append(Ask(f"patch_{n}", "named", "named_item", (patch_about(patches, words),),
                        "Config::local_patches()", wordings, ("summary",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    state = read_config()
    return shell_cases(SOURCE, COMMANDS, _asks(state), cwd=work, env=ENV)
