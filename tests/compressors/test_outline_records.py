"""Records nested in an outline (issue 33, eleventh session).

``javap -v`` and ``openssl asn1parse`` print one node with many children, each a small
subtree of the same sort (a method, a revoked certificate, a registry entry). Read as an
aligned table, thousands of rows of three columns kept their first and last rows; the
method with the deepest stack, the one entry on hold, the one disabled device left view.
Now each child subtree is a record (:mod:`headroom.compressors.tables.outline`) and the
table row selection picks records: named, extreme in an asked field, rare in a field.

The outputs here are real runs of ``openssl`` and ``javap`` over files this test builds;
the facts are the builder's own record, not read back from the output.
"""

from __future__ import annotations

import datetime
import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.base import CompressInput
from headroom.compressors.tables.csv_compressor import TableCompressor
from headroom.compressors.tables.outline import infer, parse
from headroom.config import HeadroomConfig
from headroom.tokens import counter_for

from .tool_rounds import tool_round

# --- a DER builder of our own: tag, length, contents -------------------------------------

def _der(tag: int, body: bytes) -> bytes:
    n = len(body)
    if n < 0x80:
        head = bytes([n])
    else:
        size = n.to_bytes((n.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(size)]) + size
    return bytes([tag]) + head + body


def _int(v: int) -> bytes:
    return _der(0x02, v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big"))


def _inventory(rng: random.Random) -> tuple[bytes, dict]:
    """A certificate inventory: per host its name, key size, status, expiry and alternative
    names. One host keeps a 1024-bit key, one is suspended, one has far more names."""
    hosts = [f"{rng.choice(['api', 'db', 'cache', 'queue', 'web'])}-{k:02d}.corp" for k in range(70)]
    weak, suspended, wide = rng.sample(range(15, 55), 3)
    expiries = {}
    entries = []
    for k, host in enumerate(hosts):
        when = datetime.datetime(2027, 1, 1) + datetime.timedelta(minutes=rng.randrange(1, 400_000))
        expiries[host] = when
        names = [f"alt{j}.{host}" for j in range(rng.randint(1, 3) if k != wide else 14)]
        entries.append(_der(0x30, b"".join([
            _der(0x16, host.encode()),
            _int(1024 if k == weak else rng.choice([2048, 4096])),
            _der(0x0A, bytes([2 if k == suspended else 0])),
            _der(0x17, when.strftime("%y%m%d%H%M%SZ").encode()),
            _der(0x30, b"".join(_der(0x16, n.encode()) for n in names)),
        ])))
    first = min(expiries, key=expiries.get)
    doc = _der(0x30, _int(3) + _der(0x30, b"".join(entries)))
    return doc, {"hosts": hosts, "weak": hosts[weak], "suspended": hosts[suspended], "wide": hosts[wide],
                 "first": first, "expiries": expiries}


def _asn1parse(tmp_path, doc: bytes) -> str:
    path = tmp_path / "inventory.der"
    path.write_bytes(doc)
    return subprocess.run(["openssl", "asn1parse", "-inform", "DER", "-in", str(path)], check=True,
                          capture_output=True, text=True).stdout


def _record_of(out: str, host: str) -> list[str]:
    """The kept lines from ``host``'s line to the next record's head."""
    lines = out.split("\n")
    at = next(k for k, ln in enumerate(lines) if ln.endswith(":" + host))
    return lines[at:at + 8]


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")
@pytest.mark.parametrize("seed", [3, 11, 29])
def test_asn1parse_records_keep_the_rare_the_extreme_and_the_named(tmp_path, seed):
    doc, facts = _inventory(random.Random(seed))
    text = _asn1parse(tmp_path, doc)
    assert infer(text.split("\n")) is not None
    cmd = "openssl asn1parse -inform DER -in inventory.der"
    out = tool_round(cmd, text, "Which host is still on a 1024-bit key?")
    assert facts["weak"] in out and len(out) < len(text) / 4
    out = tool_round(cmd, text, "Is any certificate suspended? Which host?")
    assert facts["suspended"] in out
    out = tool_round(cmd, text, "Which certificate expires first?")
    assert facts["first"] in out
    out = tool_round(cmd, text, "Which host lists the most alternative names?")
    assert facts["wide"] in out
    host = facts["hosts"][40]
    out = tool_round(cmd, text, f"When does the certificate of {host} expire?")
    stamp = facts["expiries"][host].strftime("%y%m%d%H%M%SZ")
    assert any(stamp in ln for ln in _record_of(out, host))


_JAVA = """
public class Ledger{n} {{
    static final long RETENTION_MS = {retention}L;
    static final int MAX_SEGMENTS = {segments};
    private long total;
{methods}
}}
"""


def _java_source(rng: random.Random, n: int) -> tuple[str, dict]:
    names = [f"{rng.choice(['scan', 'fold', 'merge', 'emit', 'probe'])}{k:02d}" for k in range(36)]
    deep, wide, thrower = rng.sample(range(8, 30), 3)
    methods = []
    for k, name in enumerate(names):
        if k == deep:  # a long chain of nested products: the operand stack grows with it
            body = "return " + "".join(f"(a * {j + 2} + " for j in range(40)) + "b" + ")" * 40 + ";"
        elif k == wide:
            decl = " ".join(f"long v{j} = a + {j};" for j in range(45))
            body = decl + " return " + " + ".join(f"v{j}" for j in range(45)) + ";"
        else:
            body = f"return a * {rng.randint(2, 9)} + b;"
        throws = " throws java.io.IOException" if k == thrower else ""
        methods.append(f"    long {name}(long a, long b){throws} {{ {body} }}")
    src = _JAVA.format(n=n, retention=rng.randint(10**8, 10**9), segments=rng.randint(1000, 9999),
                       methods="\n".join(methods))
    return src, {"deep": names[deep], "wide": names[wide], "thrower": names[thrower]}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("javac") is None or shutil.which("javap") is None, reason="needs a JDK")
def test_javap_methods_are_records(tmp_path):
    src, facts = _java_source(random.Random(5), 7)
    (tmp_path / "Ledger7.java").write_text(src)
    subprocess.run(["javac", "-g", "Ledger7.java"], cwd=tmp_path, check=True, capture_output=True)
    text = subprocess.run(["javap", "-v", "-p", "Ledger7.class"], cwd=tmp_path, check=True,
                          capture_output=True, text=True).stdout
    cmd = "javap -v -p Ledger7.class"
    out = tool_round(cmd, text, "Which method needs the deepest operand stack?")
    assert f" {facts['deep']}(long, long)" in out and len(out) < len(text) / 3
    out = tool_round(cmd, text, "Which method has the most locals?")
    assert f" {facts['wide']}(long, long)" in out
    out = tool_round(cmd, text, "Does any method declare a checked exception?")
    assert f" {facts['thrower']}(long, long)" in out
    out = tool_round(cmd, text, "What is MAX_SEGMENTS set to?")
    segments = src.split("MAX_SEGMENTS = ")[1].split(";")[0]
    assert f"int {segments}" in out


# --- shape, not names: the same records whatever the fields are called ------------------

def _outline_text(rng: random.Random, labels: list[str], indent: str) -> tuple[str, int, int]:
    """An indented dump of 60 records; one record has a rare state, one the largest
    count. Returns the text, the rare record's number and the largest one's."""
    rare, big = rng.sample(range(10, 50), 2)
    out = ["inventory", f"{indent}version: 4"]
    for k in range(60):
        out.append(f"{indent}unit u{k:03d}")
        out.append(f"{indent * 2}{labels[0]}: team-{rng.choice('abc')}")
        out.append(f"{indent * 2}{labels[1]}: {'halted' if k == rare else 'running'}")
        out.append(f"{indent * 2}{labels[2]}: {900 if k == big else rng.randint(1, 400)}")
        out.append(f"{indent * 2}{labels[3]}:")
        out += [f"{indent * 3}slot-{j}" for j in range(rng.randint(1, 3))]
    return "\n".join(out) + "\n", rare, big


def _kept_units(text: str, query: str) -> set[str]:
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=query)
    got = TableCompressor().compress(inp)
    assert got is not None and got.strategy == "table_outline"
    return {ln.strip() for ln in got.text.split("\n") if ln.strip().startswith("unit u")}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), indent=st.sampled_from(["  ", "    ", "\t"]),
       names=st.lists(st.from_regex(r"[a-z]{3,9}", fullmatch=True), min_size=4, max_size=4, unique=True))
def test_renaming_every_field_keeps_the_same_records(seed, indent, names):
    plain = ["owner", "state", "load", "slots"]
    if set(names) & set(plain):
        return
    text, rare, _big = _outline_text(random.Random(seed), plain, indent)
    renamed, _, _ = _outline_text(random.Random(seed), names, indent)
    query = "Which unit is not like the others?"
    kept = _kept_units(text, query)
    assert f"unit u{rare:03d}" in kept
    assert _kept_units(renamed, query) == kept


def test_fields_are_what_a_kept_record_shows():
    text, _rare, big = _outline_text(random.Random(1), ["owner", "state", "load", "slots"], "  ")
    lines = text.split("\n")
    records = parse(lines, infer(lines))
    assert len(records.rows) == 61  # "version: 4" is a child of the root too
    assert records.names[:5] == ["record", "owner", "state", "load", "slots"]
    assert "slots size" in records.names  # how many lines the field heads
    load = records.names.index("load")
    assert max(range(1, 61), key=lambda k: int(records.rows[k][load])) == big + 1


def test_a_flat_listing_is_no_outline():
    lines = [f"file{k:03d}.txt  {k * 17} bytes" for k in range(100)]
    assert infer(lines) is None
    # A few indented continuation lines do not make a record set either.
    lines[10] = "    (continued)"
    assert infer(lines) is None


def test_a_line_of_names_over_a_line_of_values_gives_named_fields():
    from headroom.compressors.tables.outline import _named_values
    got = _named_values("    TX:  bytes packets errors dropped carrier collsns",
                        "       3605042    2501      0       0       0       0 ")
    assert got == [("TX bytes", "3605042"), ("TX packets", "2501"), ("TX errors", "0"), ("TX dropped", "0"),
                   ("TX carrier", "0"), ("TX collsns", "0")]
    assert _named_values("    link/ether 8e:86 brd ff:ff", "      x y") is None  # not names over values


def test_unnamed_extremes_start_with_columns_sharing_a_word_with_the_question():
    from headroom.compressors.tables.select import Table, select_rows
    names = [f"counter{k}" for k in range(10)] + ["TX bytes"]
    rows = [[str(k + 100 * j) for j in range(10)] + [str(1000 + k)] for k in range(60)]  # extremes: rows 0, 59
    rows[33][-1] = "999999"
    table = Table(names=names, rows=rows, costs=[10.0] * 60, strings=True)
    sel = select_rows(table, query="which link sent the most data (in bytes)?", anchors=None, budget=0)
    assert 33 in sel.kept


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("javap") is None, reason="needs a JDK")
def test_javap_of_a_jdk_class_read_as_code_falls_back_to_records():
    """``javap -v`` of java.util.HashMap reads as code line by line (braces, semicolons),
    but no language unit is in it: the outline's records are read instead of passing the
    211 kB through. The expected method is found by reading the dump's own ``locals=``."""
    import re

    text = subprocess.run(["javap", "-v", "-p", "java.util.HashMap"], check=True, capture_output=True,
                          text=True).stdout
    lines = text.split("\n")
    best, head = -1, ""
    for i, ln in enumerate(lines):
        if ln.startswith("  ") and not ln.startswith("   ") and ln.rstrip().endswith(";"):
            head = ln
        m = re.search(r"\blocals=(\d+)", ln)
        if m and int(m.group(1)) > best:
            best, best_head = int(m.group(1)), head
    out = tool_round("javap -v -p java.util.HashMap", text, "Which method needs the most local variable slots?")
    assert best_head in out and len(out) < len(text) / 5
