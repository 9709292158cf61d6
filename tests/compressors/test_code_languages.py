"""Code detection and the code compressor on real files of each language installed here
(never the Python standard library): outputs parse where the originals do, with each
language's own parser (javac stopped after parsing, rustfmt, yaml, tomllib)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import zipfile

import pytest

import headroom
from headroom.compressors.code import CodeCompressor
from headroom.compressors.detect import ContentType, detect_content_type, is_source_file

from .test_code import assert_lines_are_original, compress, python_file

JAVA_SRC = sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip"))
JAVA_FILES = ("java.base/java/util/ArrayList.java", "java.base/java/util/HashMap.java",
              "java.base/java/util/regex/Pattern.java")


def _files(pattern: str, limit: int, low: int = 3_000, high: int = 300_000) -> list[str]:
    found = sorted(f for f in glob.glob(pattern, recursive=True) if low < os.path.getsize(f) < high)
    return found[:: max(1, len(found) // limit)][:limit]


def _run_ok(cmd: list[str]) -> bool:
    return subprocess.run(cmd, capture_output=True, timeout=120).returncode == 0


# -- Detection ---------------------------------------------------------------------------------

def test_a_script_with_a_shebang_is_code() -> None:
    script = "#!/bin/sh\n# Release helper: tags and uploads.\nset -e\nVERSION=$1\necho \"tagging $VERSION\"\n"
    assert detect_content_type(script * 3) == ContentType.CODE


def test_a_cat_n_listing_of_code_is_code() -> None:
    listing = "".join(f"{i:6d}\t{ln}\n" for i, ln in enumerate(python_file().split("\n"), 1))
    assert detect_content_type(listing) == ContentType.CODE


def test_a_module_behind_a_long_docstring_is_code_and_prose_is_not() -> None:
    doc = "\n".join(f"This module explains part {i} of the billing process in plain words." for i in range(150))
    module = f'"""{doc}\n"""\n\nimport json\n\n\n' + python_file().split("\n", 1)[1]
    assert detect_content_type(module) == ContentType.CODE
    assert detect_content_type(doc + "\n") == ContentType.TEXT


@pytest.mark.parametrize("path", _files("/usr/lib/node_modules/npm/node_modules/*/lib/*.js", 6)
                         + _files("/usr/include/c++/12/bits/stl_*.h", 4) + _files("/usr/share/cargo/registry/**/*.rs", 4))
def test_real_source_files_are_detected_as_code(path: str) -> None:
    assert detect_content_type(open(path, encoding="utf-8").read()) == ContentType.CODE


def test_a_path_argument_names_a_source_file() -> None:
    assert is_source_file('{"path": "src/app.ts"}', ContentType.TEXT)
    assert is_source_file({"file_path": "/etc/app/config.yaml"}, ContentType.LISTING)
    assert not is_source_file('{"path": "notes.md"}', ContentType.TEXT)
    assert not is_source_file('{"path": "src/app.py"}', ContentType.SEARCH)  # grep hits stay grep hits
    assert not is_source_file(None, ContentType.TEXT)


def test_prose_compressor_never_gets_a_source_file_read_by_path() -> None:
    # Mostly docstring: detection alone says TEXT; the call's path says Python.
    doc = "\n".join(f"Sentence {i} of a long explanation about how the ledger is reconciled." for i in range(120))
    src = f'"""{doc}\n"""\n' + "".join(f"def f{i}(x):\n" + "".join(f"    y{k} = x + {k}\n" for k in range(9)) + "    return y1\n\n\n"
                                    for i in range(12))
    messages = [{"role": "user", "content": "what does f3 return?"},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {
                    "name": "read_file", "arguments": '{"path": "ledger.py"}'}}]},
                {"role": "tool", "tool_call_id": "c", "content": src}]
    result = headroom.compress(messages, model="gpt-4o")
    out = result.messages[2]["content"]
    import ast

    ast.parse(out)
    assert "def f3(x):\n    y0 = x + 0" in out  # the function the question names, whole
    assert any("code:" in (d.strategy or "") for d in result.decisions if getattr(d, "strategy", None))


# -- Real files per language -------------------------------------------------------------------

@pytest.mark.skipif(not JAVA_SRC or shutil.which("javac") is None, reason="no JDK sources or javac")
@pytest.mark.parametrize("member", JAVA_FILES)
def test_real_java_stays_valid(member: str, tmp_path) -> None:
    with zipfile.ZipFile(JAVA_SRC[-1]) as z:
        src = z.read(member).decode("utf-8")
    parse = ["javac", "-XDshould-stop.ifNoError=PARSE", "-XDshould-stop.ifError=PARSE", "-d", str(tmp_path / "out")]
    f = tmp_path / os.path.basename(member)
    f.write_text(src)
    if not _run_ok([*parse, str(f)]):
        pytest.skip("the original does not parse")
    out = compress(src, query="how does it grow the backing array?", path=member)
    assert out is not None and out.strategy == "java_outline"
    f.write_text(out.text + "\n// [marker]")
    assert _run_ok([*parse, str(f)])
    assert_lines_are_original(src, out.text)


@pytest.mark.skipif(shutil.which("rustfmt") is None, reason="rustfmt is not installed")
@pytest.mark.parametrize("path", _files("/usr/share/cargo/registry/**/*.rs", 8, low=8_000))
def test_real_rust_stays_valid(path: str, tmp_path) -> None:
    src = open(path, encoding="utf-8").read()
    check = ["rustfmt", "--edition", "2021", "--emit", "stdout"]
    f = tmp_path / "x.rs"
    f.write_text(src)
    if not _run_ok([*check, str(f)]):
        pytest.skip("the original does not parse on its own")
    out = compress(src, query="how is the remainder computed?", path=path)
    if out is not None:
        f.write_text(out.text + "\n// [marker]")
        assert _run_ok([*check, str(f)])
        assert_lines_are_original(src, out.text)


@pytest.mark.parametrize("path", _files("/usr/share/gocode/src/**/*.go", 4, low=1_500))
def test_real_go_keeps_its_structure(path: str) -> None:
    src = open(path, encoding="utf-8").read()
    out = compress(src, path=path)
    if out is not None:
        assert out.strategy == "go_outline"
        assert_lines_are_original(src, out.text)
        # Whole lines between "{" and "}" went: the braces still balance.
        assert out.text.count("{") - out.text.count("}") == src.count("{") - src.count("}") or "`" in src


@pytest.mark.parametrize("path", _files(f"{os.path.dirname(os.path.dirname(pytest.__file__))}/torchgen/**/*.yaml", 3))
def test_real_yaml_stays_valid(path: str) -> None:
    yaml = pytest.importorskip("yaml")
    src = open(path, encoding="utf-8").read()
    yaml.safe_load(src)
    out = compress(src, path=path)
    if out is not None:
        assert out.strategy == "yaml_outline"
        yaml.safe_load(out.text + "\n# [marker]")
        assert_lines_are_original(src, out.text)


@pytest.mark.parametrize("path", _files("/usr/lib/node_modules/npm/node_modules/*/*/pyproject.toml", 2, low=1_000) + _files("/usr/lib/google-cloud-sdk/platform/gsutil/third_party/*/pyproject.toml", 2, low=1_000))
def test_real_toml_stays_valid(path: str) -> None:
    tomllib = pytest.importorskip("tomllib")
    src = open(path, encoding="utf-8").read()
    tomllib.loads(src)
    out = compress(src, path=path)
    if out is not None:
        tomllib.loads(out.text + "\n# [marker]")
        assert_lines_are_original(src, out.text)


def test_code_compressor_is_exported() -> None:
    assert CodeCompressor.name == "code"
