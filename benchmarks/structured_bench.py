"""Structured text benchmark (issue 33): config, build and query files, templates and
Markdown through ``compress()`` without a path argument, side by side with upstream.

    .venv/bin/python benchmarks/structured_bench.py
    .venv/bin/python benchmarks/structured_bench.py --upstream-python /tmp/upstream-venv/bin/python \
        --json benchmarks/results/structured.json

Inputs: every distinct file of the corpus sources ``config_files``, ``config_files_more``
(Dockerfiles, JSON with comments, ``.env`` files), ``config_files_packages`` (config
files and SQL of more packages) and ``markdown_docs`` with its corpus
question (the asked key's line or the asked command is the fact), plus SQL scripts,
Makefiles and Jinja templates installed on this machine (where present; no fact, a
generic question; taken round-robin over the packages that own them). A row's format is the file's known format (from the corpus case id or
the machine glob), never what detection said; the detected name is reported beside it. Per file, one process, ``--calls`` timed calls
(median): each call gets fresh content (a different number of trailing newlines, so no
content-keyed cache answers), a fresh pipeline, store and memo, and an emptied
token-count cache.

Every row names its package (the corpus fact's ``; package NAME`` note, or for a machine
file the package that owns its path), and per format the bench counts them. Per format
it prints: the parse rate (outputs, marker included, that parse with the
format's own parser, of those whose input parsed; Markdown: fences balanced and every
kept code block identical; Dockerfile: dockerfile-parse's instructions of the output are
instructions of the input, in order, each with the same text — a cut continuation
fails; JSONC: json5 loads it; ``.env``: python-dotenv parses every statement and every
key it returns is one the input had, with the same value), the asked-key-in-view rate, the median savings, and the
median and worst ``(call ms - 2) / tiktoken count ms``. With ``--upstream-python`` it
times upstream on the same contents and checks the decided speed rule per file: where
upstream passes the output through and we compress it, our call at most 2.5x tiktoken's
count time plus 2 ms; where both leave it unchanged, at most 2 ms more than upstream.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import io
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.compressors.structured import detect_format, sample_lines
from headroom.compressors.structured.formats import FORMATS
from headroom.compressors.structured.markdown import blocks, fences_balanced
from headroom.eval.corpus import load_cases
from headroom.tokens import counter_for
from headroom.transforms.router import CompressionMemo

sys.path.insert(0, str(Path(__file__).parent))
from bench_common import MODEL, UPSTREAM_PRELUDE, run_in_upstream

COMPRESS_VS_COUNT = 2.5
SLACK_MS = 2.0
MACHINE = {
    "sql": ("/usr/share/postgresql/*/extension/*.sql", "/usr/share/postgresql/*/*.sql"),
    "makefile": ("/usr/share/doc/git/contrib/*/Makefile", "/usr/share/doc/git/contrib/*/*/Makefile",
                 "/usr/share/groff/*/font/*/generate/Makefile", "/usr/share/gettext/po/Makefile.in.in",
                 "/usr/lib/google-cloud-sdk/platform/gsutil/third_party/*/docs/Makefile",
                 "/usr/lib/google-cloud-sdk/platform/gsutil/third_party/*/doc/Makefile",
                 "/usr/share/doc/libxmlsec1-dev/examples/Makefile", "/usr/lib/google-cloud-sdk/platform/bq/third_party/*/Makefile",
                 "/usr/share/postgresql-common/server/*.mk", "/usr/lib/postgresql/*/lib/pgxs/src/Makefile.*",
                 "/usr/share/dpkg/*.mk"),
    "jinja": ("/usr/lib/google-cloud-sdk/platform/google_appengine/**/templates/*.html",
              "/work/main/.venv/lib/python3.11/site-packages/torch/_inductor/kernel/templates/*.jinja",
              "/work/main/.venv/lib/python3.11/site-packages/sentence_transformers/*/model_card_template.md"),
}
MACHINE_PER_PACKAGE = 2  # machine files per package and format: the count is spread over packages
# Dockerfiles come from the corpus source config_files_more (with facts) since issue 33;
# config files of more packages and SQL from config_files_packages.
CORPUS_SOURCES = ("config_files", "config_files_more", "config_files_packages", "markdown_docs")
# The parser package each format's own check needs (dev extras); a missing one skips the
# check loudly instead of passing it.
OWN_PARSERS = {"dockerfile": "dockerfile_parse", "jsonc": "json5", "env": "dotenv"}
MACHINE_QUESTION = "Which steps does this file define, and what does the install part do?"


@dataclass
class Row:
    name: str
    fmt: str  # the file's known format
    detected: str  # what detect_format said
    package: str
    chars: int
    tokens_before: int
    tokens_after: int
    ms: float  # median of the timed calls
    count_ms: float
    min_ms: float  # fastest call: on a shared machine the median carries other people's load
    input_parses: bool | None  # None: the format's parser package is missing
    output_parses: bool | None
    facts: int
    facts_in_view: int
    upstream: dict[str, Any] = field(default_factory=dict)
    reason: str = ""  # why the output does not parse: the first offending line or the parser's error

    @property
    def savings(self) -> float:
        return 1 - self.tokens_after / self.tokens_before if self.tokens_before else 0.0

    @property
    def ratio(self) -> float:
        return max(0.0, self.ms - SLACK_MS) / self.count_ms if self.count_ms else 0.0


def known_format(case_id: str, source: str) -> str:
    """``config_files*/<fmt>_<file>_...`` names its format; markdown_docs is Markdown."""
    return "markdown" if source == "markdown_docs" else case_id.split("/", 1)[1].split("_", 1)[0]


def package_of(note: str) -> str:
    m = re.search(r"; package (\S+)", note)
    return m.group(1) if m else ""


def inputs(limit_per_format: int) -> list[dict[str, Any]]:
    out, seen = [], set()
    for c in load_cases(sources=list(CORPUS_SOURCES)):
        if c.content in seen:
            continue
        seen.add(c.content)
        out.append({"name": c.id, "content": c.content, "question": c.question, "facts": [f.text for f in c.facts],
                    "fmt": known_format(c.id, c.source), "package": package_of(c.facts[0].note)})
    for fmt, patterns in MACHINE.items():
        for path, package in machine_files(patterns, limit_per_format):
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if text in seen:
                continue
            seen.add(text)
            out.append({"name": str(path), "content": text, "question": MACHINE_QUESTION, "facts": [],
                        "fmt": fmt, "package": package})
    return out


def machine_files(patterns: tuple[str, ...], limit: int) -> list[tuple[Path, str]]:
    """Up to ``limit`` files of the patterns with their package (``dpkg -S``, the
    site-packages distribution, the vendored project: ``captures/_packages.py``), taken
    round-robin over the packages (at most ``MACHINE_PER_PACKAGE`` each), so the files
    come from as many packages as the machine has."""
    from headroom.eval.corpus.captures._packages import package_name

    by_package: dict[str, list[Path]] = {}
    per_pattern: list[list[str]] = []  # each pattern's packages, in order
    for pat in patterns:
        per_pattern.append([])
        for p in sorted(glob.glob(pat, recursive=True)):
            path = Path(p)
            if path.is_file() and not path.is_symlink() and 800 <= path.stat().st_size <= 60_000:
                package = package_name(path)
                files = by_package.setdefault(package, [])
                if path not in files:
                    files.append(path)
                if package not in per_pattern[-1]:
                    per_pattern[-1].append(package)
    # Packages round-robin over the patterns (one glob of many vendored copies must not
    # crowd out the next glob's packages), then files round-robin over the packages.
    order: list[str] = []
    for k in range(max(map(len, per_pattern), default=0)):
        for pkgs in per_pattern:
            if k < len(pkgs) and pkgs[k] not in order:
                order.append(pkgs[k])
    out: list[tuple[Path, str]] = []
    for k in range(MACHINE_PER_PACKAGE):
        for package in order:
            if k < len(by_package[package]) and len(out) < limit:
                out.append((by_package[package][k], package))
    return out


def messages_for(item: dict[str, Any], content: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": item["question"]},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "cat it"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": content}]


def parser_missing(fmt: str) -> str | None:
    """The module a format's own check needs, when it is not installed."""
    mod = OWN_PARSERS.get(fmt)
    return mod if mod and importlib.util.find_spec(mod) is None else None


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    from dockerfile_parse import DockerfileParser

    return [(s["instruction"], s["value"]) for s in DockerfileParser(fileobj=io.BytesIO(text.encode())).structure
            if s["instruction"] != "COMMENT"]


def dockerfile_ok(text: str, original: str) -> bool:
    """Every instruction dockerfile-parse reads in ``text`` is one of ``original``'s, in the
    same order and with the same value: elided instructions are fine, a continuation cut
    in two (a RUN whose tail became its own line) or a stray line is not."""
    want = iter(dockerfile_instructions(original))
    return all(any(ins == w for w in want) for ins in dockerfile_instructions(text))


def jsonc_ok(text: str) -> bool:
    import json5

    try:
        json5.loads(text)
    except ValueError:
        return False
    return True


def env_ok(text: str, original: str) -> bool:
    """python-dotenv parses every statement, and the keys it returns are the input's, each
    with the input's value."""
    from dotenv import dotenv_values
    from dotenv.parser import parse_stream

    if any(b.error for b in parse_stream(io.StringIO(text))):
        return False
    before = dotenv_values(stream=io.StringIO(original), interpolate=False)
    after = dotenv_values(stream=io.StringIO(text), interpolate=False)
    return all(k in before and before[k] == v for k, v in after.items())


def parse_failure(fmt: str, text: str, original: str) -> str:
    """Where the own-parser check of a failing output first goes wrong (for the report)."""
    try:
        if fmt == "dockerfile":
            want = dockerfile_instructions(original)
            it = iter(want)
            bad = next(i for i in dockerfile_instructions(text) if not any(i == w for w in it))
            return f"instruction not in the input, in order: {bad[0]} {bad[1][:80]!r}"
        if fmt == "jsonc":
            import json5

            json5.loads(text)
        if fmt == "env":
            from dotenv import dotenv_values
            from dotenv.parser import parse_stream

            err = next((b for b in parse_stream(io.StringIO(text)) if b.error), None)
            if err is not None:
                return f"line {err.original.line} does not parse: {err.original.string.strip()[:80]!r}"
            before = dotenv_values(stream=io.StringIO(original), interpolate=False)
            k, v = next((k, v) for k, v in dotenv_values(stream=io.StringIO(text), interpolate=False).items()
                        if k not in before or before[k] != v)
            return f"{k} reads {v!r}, the input had {before[k]!r}" if k in before else f"{k!r} is no key of the input"
    except (ValueError, StopIteration) as exc:
        return f"{type(exc).__name__}: {str(exc)[:120]}"
    lines = text.split("\n")
    return next((f"line {i + 1} is not an input line: {ln[:80]!r}" for i, ln in enumerate(lines)
                 if ln.strip() and ln not in original), "")


def parses(fmt: str, text: str, original: str) -> bool | None:
    """Whether ``text`` parses as ``fmt`` by the format's own parser; None when that
    parser is not installed (reported as skipped, never as a pass)."""
    if parser_missing(fmt):
        return None
    if fmt == "dockerfile":
        return dockerfile_ok(text, original)
    if fmt == "jsonc":
        return jsonc_ok(text)
    if fmt == "env":
        return env_ok(text, original)
    if fmt == "markdown":
        if not fences_balanced(text):
            return False
        lines = text.split("\n")
        return all("\n".join(lines[b.start:b.end]) in original for b in blocks(lines) if b.kind == "code")
    f = FORMATS.get(fmt)
    return True if f is None else f.check(text)


def bench_ours(item: dict[str, Any], calls: int, config: HeadroomConfig) -> Row:
    counter = counter_for(MODEL)
    enc = counter.encoding
    text = item["content"]
    fmt = item["fmt"]
    detected = detect_format(text, sample_lines(text)) or "none"
    times, counts, out = [], [], text
    for k in range(calls):
        content = text + "\n" * (k + 1)  # fresh bytes each call: no content-keyed cache answers
        pipeline = Pipeline(config, store=CompressionStore(max_entries=100))
        pipeline.memo = CompressionMemo(read_store=False)
        counter._cache.clear()
        t0 = time.perf_counter()
        r = compress(messages_for(item, content), model=MODEL, pipeline=pipeline)
        times.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        enc.encode(content, disallowed_special=())
        counts.append((time.perf_counter() - t0) * 1000)
        if k == 0:
            out = r.messages[-1]["content"]
            before = enc.encode(content, disallowed_special=())
            tokens_before, tokens_after = len(before), len(enc.encode(out, disallowed_special=()))
    in_ok = parses(fmt, text, text)
    out_ok = parses(fmt, out, text) if in_ok else in_ok
    return Row(item["name"], fmt, detected, item["package"], len(text), tokens_before,
               min(tokens_after, tokens_before), statistics.median(times), statistics.median(counts), min(times),
               in_ok, out_ok, len(item["facts"]), sum(f in out for f in item["facts"]),
               reason=parse_failure(fmt, out, text) if in_ok and out_ok is False else "")


UPSTREAM_RUNNER = UPSTREAM_PRELUDE + r"""
out = {}
for item in payload["items"]:
    times, unchanged = [], True
    for k in range(payload["calls"]):
        content = item["content"] + "\n" * (k + 1)
        msgs = [{"role": "user", "content": item["question"]},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "cat it"}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": content}]
        t0 = time.perf_counter()
        r = headroom.compress(msgs, model=payload["model"])
        times.append((time.perf_counter() - t0) * 1000)
        got = r.messages[-1]["content"]
        unchanged = unchanged and got == content
    times.sort()
    out[item["name"]] = {"ms": times[len(times) // 2], "unchanged": unchanged}
print(json.dumps(out))
"""


def speed_ok(r: Row) -> bool:
    """The decided rule for this issue's classes (see the module docstring)."""
    if not r.upstream:
        return True
    ours_unchanged = r.tokens_after >= r.tokens_before
    if r.upstream["unchanged"] and not ours_unchanged:
        return r.ms <= COMPRESS_VS_COUNT * r.count_ms + SLACK_MS
    if r.upstream["unchanged"] and ours_unchanged:
        return r.ms <= r.upstream["ms"] + SLACK_MS
    return True  # upstream compressed too: not this rule's case


def summarise(rows: list[Row]) -> dict[str, dict[str, Any]]:
    by: dict[str, list[Row]] = {}
    for r in rows:
        by.setdefault(r.fmt, []).append(r)
    out = {}
    for fmt, rs in sorted(by.items()):
        parsed = [r for r in rs if r.input_parses]
        facts = sum(r.facts for r in rs)
        out[fmt] = {
            "files": len(rs),
            "packages": len({r.package for r in rs if r.package}) or None,
            "package_names": sorted({r.package for r in rs if r.package}),
            "files_without_package": sum(not r.package for r in rs),
            "detected_as": dict(Counter(r.detected for r in rs).most_common()),
            "parser_missing": parser_missing(fmt),
            "parse_rate": sum(r.output_parses for r in parsed) / len(parsed) if parsed else None,
            "parsed_inputs": len(parsed),
            "key_in_view_rate": sum(r.facts_in_view for r in rs) / facts if facts else None,
            "facts": facts,
            "median_savings": statistics.median(r.savings for r in rs),
            "median_ratio": statistics.median(r.ratio for r in rs),
            "worst_ratio": max(r.ratio for r in rs),
            "median_ratio_fastest_call": statistics.median(max(0.0, r.min_ms - SLACK_MS) / r.count_ms
                                                           for r in rs if r.count_ms),
            "speed_rule_ok": sum(speed_ok(r) for r in rs) if any(r.upstream for r in rs) else None,
            "upstream_unchanged": sum(bool(r.upstream.get("unchanged")) for r in rs) if any(r.upstream for r in rs)
            else None,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=5, help="timed calls per file (median)")
    ap.add_argument("--per-format", type=int, default=8, help="machine files per extra format")
    ap.add_argument("--upstream-python", help="python of a venv with headroom-ai installed")
    ap.add_argument("--json", type=Path, help="write rows and summaries here")
    args = ap.parse_args(argv)
    items = inputs(args.per_format)
    config = HeadroomConfig()
    compress(messages_for(items[0], items[0]["content"][:2000]), model=MODEL)  # warm-up: imports, tokenizer
    rows = [bench_ours(it, args.calls, config) for it in items]
    if args.upstream_python:
        got = run_in_upstream(args.upstream_python, UPSTREAM_RUNNER,
                              {"model": MODEL, "calls": args.calls,
                               "items": [{k: it[k] for k in ("name", "content", "question")} for it in items]})
        for r in rows:
            r.upstream = got.get(r.name, {})
    summary = summarise(rows)
    print("| format | files | packages | detected as | parse rate | asked key in view | median savings |"
          " median (ms-2)/count | worst | speed rule ok | upstream unchanged |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for fmt, s in summary.items():
        pr = f"{s['parse_rate']:.0%} of {s['parsed_inputs']}" if s["parse_rate"] is not None else "-"
        if s["parser_missing"]:
            pr = f"SKIPPED: {s['parser_missing']} not installed"
        det = ", ".join(f"{k} {v}" for k, v in s["detected_as"].items())
        kv = f"{s['key_in_view_rate']:.0%} of {s['facts']}" if s["key_in_view_rate"] is not None else "-"
        print(f"| {fmt} | {s['files']} | {s['packages'] or '-'} | {det} | {pr} | {kv} | {s['median_savings']:.1%} | {s['median_ratio']:.2f} |"
              f" {s['worst_ratio']:.2f} | {s['speed_rule_ok'] if s['speed_rule_ok'] is not None else '-'} |"
              f" {s['upstream_unchanged'] if s['upstream_unchanged'] is not None else '-'} |")
    for fmt, s in summary.items():
        print(f"packages of {fmt}: {', '.join(s['package_names']) or '-'}"
              + (f" ({s['files_without_package']} files without one)" if s["files_without_package"] else ""))
    for r in rows:
        if r.input_parses and r.output_parses is False:
            print(f"OUTPUT DOES NOT PARSE ({r.fmt}, detected {r.detected}): {r.name}: {r.reason}")
    for r in rows:
        if r.facts_in_view < r.facts:
            print(f"ASKED KEY OUT OF VIEW ({r.fmt}): {r.name}")
    slow = [r for r in rows if not speed_ok(r)]
    for r in slow:
        print(f"SLOWER than the rule: {r.name} ours {r.ms:.1f} ms, count {r.count_ms:.2f} ms, upstream {r.upstream}")
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} CPUs; median (ms-2)/count of "
          f"each format's fastest calls: " + ", ".join(f"{k} {v['median_ratio_fastest_call']:.2f}"
                                                          for k, v in summary.items()))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "load_average": load, "cpus": os.cpu_count(),
                                         "rows": [asdict(r) for r in rows]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
