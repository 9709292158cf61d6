"""The cheap TOML refusal (structured/toml_refusal.py) only ever says "fails" of a text
tomllib rejects: it lets the structured compressor skip tomllib, so a wrong refusal
would change which candidate output is kept."""

from __future__ import annotations

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from hypothesis import example, given, settings
from hypothesis import strategies as st

from headroom.compressors.structured.formats import FORMATS
from headroom.compressors.structured.toml_refusal import surely_not_toml


def _parses(text: str) -> bool:
    try:
        tomllib.loads(text)
    except Exception:  # noqa: BLE001 - any complaint means "does not parse"
        return False
    return True


def test_sysctl_values_toml_has_no_word_for_are_refused():
    head = "net.ipv4.ip_forward = 0\nnet.ipv4.tcp_syncookies = 1\n"
    for bad in ("net.ipv4.ip_local_port_range = 20000\t29999", "net.ipv4.ip_local_reserved_ports = ",
                "net.ipv4.tcp_congestion_control = cubic", "kernel.printk = 4 4 1 7", "a = # nothing"):
        text = head + bad + "\nnet.core.somaxconn = 4096\n"
        assert surely_not_toml(text), bad
        assert not _parses(text)
        assert not FORMATS["toml"].check(text)


def test_lines_inside_a_multiline_string_or_array_are_not_refused():
    for text in ('a = """\nb = \nc = cubic\n"""\n', "a = '''\nb = 1 2\n'''\n", "a = [\n  1,\n]\nb = 2\n",
                 'a = "x" # b = \n', "x = 1979-05-27 07:32:00\n", "[t]\nk = true\nn = nan\ni = -inf # c\n"):
        assert not surely_not_toml(text), text


def test_a_failing_line_after_an_open_string_is_left_to_the_parser():
    # Whether the string closes decides where the parser is: the refusal does not guess.
    assert not surely_not_toml('a = """x\nb = \n')
    assert not surely_not_toml("a = [1,\nb = cubic\n")


def test_merge_conflict_markers_are_refused():
    head = "a = 1\n# c\n[t]\nb = 2\n"
    for marker in ("<<<<<<< HEAD", "=======", ">>>>>>> release", "||||||| 7338020", "  <<<<<<< HEAD"):
        text = head + marker + "\nb = 3\n"
        assert surely_not_toml(text), marker
        assert not _parses(text)
    # Inside a multi-line string the marker is text: left to the parser (which accepts it).
    text = 'a = """\n<<<<<<< HEAD\n"""\n'
    assert not surely_not_toml(text) and _parses(text)


_FRAGMENTS = st.sampled_from([
    "a", "b.c", "d-e", "1", " ", "\t", "=", " = ", "0", "12", "3.5", "true", "false", "inf", "nan", "-", "+",
    "cubic", "#", "# c", '"', "'", '"""', "'''", "[", "]", "[[", "]]", "{", "}", ",", "\r", ":",
    "1979-05-27", "07:32:00", "T", "x", "\\", "\n", "\n", "\n",
    "<<<<<<< HEAD", "=======", ">>>>>>> b", "|||||||", ".", "~", "@", "}", "é", "_",
])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40).map("".join))
@example("a = 1\nb = 2 3\n")
@example('a = """\nb = 2 3\n"""\n')
@example("[t]\nb =\n")
@example("a = [\n]\nb =\r\n")
def test_refusal_never_refuses_what_tomllib_accepts(text):
    if surely_not_toml(text):
        assert not _parses(text), text


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["k", "a.b", "x_y", "n-1", " k "]),
                          st.sampled_from(["1", "0 0", "12\t3", "", "cubic", "true", '"s"', '"""', "[1,", "]",
                                           "{a=1}", "1979-05-27 07:32:00", "1 # c", "# c", "'''", "-3", "nan"])),
                max_size=12))
def test_refusal_on_key_value_lines(pairs):
    text = "".join(f"{k}= {v}\n" for k, v in pairs)
    if surely_not_toml(text):
        assert not _parses(text), text

