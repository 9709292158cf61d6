"""Round 20's misses, read by class (issue 33, nineteenth session), on outputs of real tools
over inputs this test makes (other names, sizes and wordings than the corpus), or on shapes
drawn here by a real library with other words; the facts are the test's own record of what
it made.

- A rare value of a position of few values is a rare event, however much the rest of its
  line repeats: ``git ls-files --format`` printing ``key="value"`` records, where one file
  of 120 is executable and one a symbolic link, keeps their lines in view instead of
  counting their modes in the note of what varies.
- A part of a question's term names nothing more exactly than the whole: "the blob of
  part-217" is the line of ``part-217``, not the many lines holding "217" in a hash.
- A drawn tree keeps a node whose label holds a word of the question anywhere (a value, a
  setting's name), not only as its name, with the nodes that hold it.
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest
from rich.console import Console
from rich.tree import Tree

from headroom.compressors.logs import _Lowered
from headroom.query.anchors import extract_anchors

from .tool_rounds import tool_round


def _git(repo, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _files(tmp_path) -> tuple[str, dict[str, str], dict[str, str]]:
    """A repository of 120 data files ``data/part-N.bin``, one of them executable and one a
    symbolic link, listed by ``git ls-files --format`` in key="value" form; the odd files
    by kind, and each file's blob id (read back with ``git rev-parse``, not from the
    listing)."""
    repo = tmp_path / "repo"
    _git(tmp_path, "init", "-q", str(repo))
    rng = random.Random(20)
    data = repo / "data"
    data.mkdir()
    names = [f"part-{k}.bin" for k in rng.sample(range(1, 400), 120)]
    for name in names:
        (data / name).write_bytes(rng.randbytes(64))
    odd = {"executable": names[41], "symlink": names[77]}
    (data / odd["executable"]).chmod(0o755)
    (data / odd["symlink"]).unlink()
    (data / odd["symlink"]).symlink_to(names[3])
    _git(repo, "add", "-A")
    # The mode last: a kind in a line's leading fields is read as such already.
    fmt = 'path="%(path)" object="%(objectname)" mode="%(objectmode)"'
    text = _git(repo, "ls-files", f"--format={fmt}")
    blobs = {n: _git(repo, "rev-parse", f":data/{n}").strip() for n in names}
    return text, {k: f"data/{v}" for k, v in odd.items()}, blobs


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_rare_value_among_repeated_key_value_records_stays_in_view(tmp_path):
    text, odd, blobs = _files(tmp_path)
    if not text.startswith("path="):
        pytest.skip("this git has no ls-files --format")
    assert text.count('mode="100644"') == 118
    asked = {"symlink": ("Which file is a symbolic link?", "Is one of these entries a symlink? Which?"),
             "executable": ("Which file is executable?", "What file has its exec bit set?")}
    for kind, questions in asked.items():
        for question in questions:
            out = tool_round("git ls-files --format=...", text, question)
            assert len(out) < 0.6 * len(text)
            assert odd[kind] in out, question
    # Files whose number many other lines hold too (in a hash, in another name).
    common = [n for n in sorted(blobs) if text.count(n.removeprefix("part-").removesuffix(".bin")) >= 12]
    assert len(common) >= 4
    for name in random.Random(7).sample(common, 4):
        for question in (f"What blob is {name}?", f"Object id of {name.removesuffix('.bin')}?"):
            out = tool_round("git ls-files --format=...", text, question)
            assert blobs[name] in out, question


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_part_of_an_asked_term_does_not_name_the_lines_holding_it(tmp_path):
    text, _, _ = _files(tmp_path)
    raw = text.splitlines()
    lowered = _Lowered.of(raw)
    for name in ("part-12.bin", "part-79.bin", "part-43.bin"):
        stem = name.removesuffix(".bin")
        anchors = extract_anchors(f"Object id of {stem}?")
        assert stem.split("-")[1] in anchors.terms  # the number alone is a term too
        assert sum(stem.split("-")[1] in ln for ln in raw) > 3
        assert lowered.anchored(anchors, 60) == {k for k, ln in enumerate(raw) if stem in ln}


def _fleet() -> tuple[str, dict[str, str]]:
    """A fleet drawn as a tree by rich: depots, bays, vehicles, each vehicle with its
    settings as leaves; one vehicle with an axle load no other has, one overriding its
    ``route_code``, and one bay whose shift (set on the bay and on each of its vehicles)
    starts at a time no other bay's does. Returns the drawing and the answers."""
    rng = random.Random(31)
    tree = Tree("fleet")
    vehicles = []
    bays = []
    for d in ("north", "south", "east", "west"):
        depot = tree.add(f"depot_{d}")
        for b in range(5):
            bay = depot.add(f"bay_{d}_{b}")
            bays.append((bay, f"bay_{d}_{b}"))
            members = []
            for _ in range(rng.randrange(5, 9)):
                v = f"van-{d[0]}{len(vehicles):03d}"
                node = bay.add(v)
                node.add(f"(plate = {rng.randrange(100, 999)}-{rng.choice('KLMNP')}{rng.randrange(10, 99)})")
                node.add(f"(fuel = {rng.choice(['diesel', 'electric'])})")
                vehicles.append((v, node))
                members.append(node)
            bay.members = members  # type: ignore[attr-defined]
    answers = {}
    heavy_name, heavy = vehicles[47]
    heavy.add("(axle_load = 11500)")
    answers["heavy"] = heavy_name
    relief_name, relief = vehicles[88]
    relief.add("(route_code = relief)")
    answers["relief"] = relief_name
    for k, (bay, name) in enumerate(bays):
        start = "05:30" if k == 13 else "07:00"
        bay.add(f"(shift_start = {start})")
        for node in bay.members:  # type: ignore[attr-defined]
            node.add(f"(shift_start = {start})")
        if k == 13:
            answers["early"] = name
    console = Console(width=200, record=True, file=open("/dev/null", "w"), color_system=None)  # noqa: SIM115
    console.print(tree)
    return console.export_text(), answers


def test_a_drawn_tree_keeps_the_nodes_whose_labels_hold_a_word_the_question_names():
    text, answers = _fleet()
    assert text.count("11500") == 1 and text.count("route_code") == 1
    asked = {
        "heavy": ("Which van carries an axle load of 11500?", "What vehicle is rated 11500 on the axle?"),
        "relief": ("Which vehicle overrides route_code?", "Who has a route_code setting of its own?"),
        "early": ("Which bay's shift starts at 05:30?", "The 05:30 shift belongs to which bay?"),
    }
    for key, questions in asked.items():
        for question in questions:
            out = tool_round("fleet show --tree", text, question)
            assert len(out) < 0.5 * len(text)
            assert answers[key] in out, question


def test_a_cells_value_is_read_without_its_key_quotes_or_brackets():
    from headroom.compressors.logs import _measures, _value_of

    assert [_value_of(c) for c in ("omem=20504", "(30),", 'FLAGS="0x4"', "plain")] == ["20504", "30", "0x4", "plain"]
    assert _value_of("'" * 50_000 + "x") == "x"  # string methods only: no regex to backtrack on a long run
    assert _measures(tuple(f"took={n}ms" for n in range(40))) is False  # "40ms" is no plain number
    assert _measures(tuple(f"size={n}" for n in range(40))) is True  # forty sizes measure
    assert _measures(("mode=100644",) * 30 + ("mode=100755",)) is False  # two codes of one width
