"""Build hook: ship the small trained artifacts under models/ inside the wheel.

models/ stays at the repository root (training writes there, the docs point there); a
wheel copies its files to ``headroom/_models/`` so that ``pip install headroom[image]``
finds the image router head without a checkout (``headroom.ml.registry`` looks there).
Everything else is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

MODEL_FILES = {".npz", ".json", ".md"}  # weights, labels/metrics, model cards; not plots


class BuildPyWithModels(build_py):
    def run(self) -> None:
        super().run()
        src = Path(__file__).resolve().parent / "models"
        if self.dry_run or not src.is_dir():
            return
        dest = Path(self.build_lib) / "headroom" / "_models"
        for f in sorted(src.rglob("*")):
            if f.is_file() and f.suffix in MODEL_FILES:
                target = dest / f.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, target)


setup(cmdclass={"build_py": BuildPyWithModels})
