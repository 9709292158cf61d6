"""Typed settings dumps are properties (issue 33, twelfth session).

``cmake -N -LAH`` prints ``// help`` over each ``NAME:TYPE=value`` entry under a ``-- Cache
values`` heading; it read as a log, whose templates folded the one switch that was off
into "similar lines". Read as properties (a typed key, ``//`` and ``--`` comment lines), the
line the question names stays and the output still reads as the same grammar.

Real CMake over a project this test writes (``LANGUAGES NONE``: no compiler needed); the
facts are the test's own record of the options it declared and set.
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from headroom.compressors.structured.detect import detect_format

from .tool_rounds import tool_round


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
@pytest.mark.parametrize("flags", ["-LAH", "-LA"])
def test_a_cmake_cache_keeps_the_one_switch_that_is_off(tmp_path, flags):
    rng = random.Random(5)
    features = [f"WITH_{w}_{k}" for k in range(4) for w in ("AUDIT", "CACHE", "METRICS", "TRACING", "RETRIES",
                                                             "QUOTAS", "WEBHOOKS", "EXPORTS", "IMPORTS", "SEARCH")]
    off = features[23]
    lines = ["cmake_minimum_required(VERSION 3.16)", "project(shop LANGUAGES NONE)"]
    lines += [f'option({f} "Build with {f[5:].lower()} support" ON)' for f in features]
    lines += [f'set(SVC_{k}_TIMEOUT_MS {rng.randint(5, 90) * 100} CACHE STRING "Timeout of service {k}")' for k in range(40)]
    (tmp_path / "CMakeLists.txt").write_text("\n".join(lines) + "\n")
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(build), f"-D{off}=OFF"], check=True, capture_output=True)
    text = subprocess.run(["cmake", "-N", flags, str(build)], check=True, capture_output=True, text=True).stdout
    assert f"{off}:BOOL=OFF" in text
    assert detect_format(text, text.splitlines()[:200]) == "properties"
    out = tool_round(f"cmake -N {flags} build", text, "Which feature got switched off for this build?")
    assert f"{off}:BOOL=OFF" in out
    assert len(out) < len(text)
