"""What the wheel holds: repository tools (corpus capture scripts, the random test
checkpoints) stay out of installs, while the modules that read their output ship."""

from __future__ import annotations

from pathlib import Path

import tomllib
from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]


def _shipped_packages() -> set[str]:
    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    return set(find_packages(where=str(ROOT), include=find["include"], exclude=find.get("exclude", ())))


def test_repository_tools_are_not_shipped():
    shipped = _shipped_packages()
    assert "headroom.eval.corpus.captures" not in shipped
    assert "headroom.ml.testing" not in shipped
    # their neighbours, which installs need, still ship
    assert {"headroom.eval.corpus", "headroom.ml", "headroom.eval"} <= shipped


def test_tools_still_import_from_the_checkout():
    from headroom.eval.corpus.build import capture_modules
    from headroom.ml.testing import build_bert, build_xlm_roberta

    assert callable(build_bert) and callable(build_xlm_roberta)
    assert {m.SOURCE for m in capture_modules()}
