"""The ``python_importtime`` corpus source: CPython's ``-X importtime`` table parsed into
rows the way its facts are computed, and the aligned-table path keeping the extreme and
named rows in view on the real captures."""

from __future__ import annotations

import subprocess
import sys

import headroom
from headroom import HeadroomConfig, Pipeline
from headroom.ccr.store import CompressionStore
from headroom.eval.corpus import load_cases
from headroom.eval.corpus.captures.python_importtime import rows_of
from headroom.tokens import counter_for
from headroom.transforms.router import CompressionMemo
from tests.eval.bench_scripts import load_bench


def test_rows_of_reads_cpython_output():
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", "import json"], capture_output=True,
                         text=True, check=True).stderr
    rows = rows_of(err)
    assert rows and any(r["package"] == "json" and r["depth"] == 0 for r in rows)
    top = next(r for r in rows if r["package"] == "json")
    assert top["cumulative_us"] >= top["self_us"] and top["line"] in err
    assert all(r["depth"] >= 0 for r in rows)
    assert not rows_of("import time: self [us] | cumulative | imported package\n")  # the header is no row


def test_importtime_facts_in_view_and_saved():
    cases = load_cases(sources=["python_importtime"])
    assert len(cases) >= 8 and all(c.split == "dev" for c in cases)
    bench = load_bench("real_corpus_bench")
    counter = counter_for("gpt-4o")
    for c in cases:  # a fresh pipeline per case: cases share outputs, the memo would too
        pipeline = Pipeline(HeadroomConfig(), store=CompressionStore(max_entries=100))
        pipeline.memo = CompressionMemo(read_store=False)
        result = headroom.compress(bench.case_messages(c), model="gpt-4o", pipeline=pipeline)
        view = bench.tool_texts(result.messages)
        missing = [f.text for f in c.facts if f.text not in view]
        assert not missing, (c.id, missing)
        assert counter.count(view) < 0.2 * counter.count(c.content), c.id
