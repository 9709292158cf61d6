"""A Parquet file's metadata as parquet-tools prints it: ``parquet-tools inspect orders.parquet``
(the file's metadata, the column list, then per column a block of ``key: value`` lines: path,
definition and repetition levels, physical and logical type, compression with the space saved;
~520 lines, ~12 kB) and ``parquet-tools inspect --detail orders.parquet`` (the footer's Thrift
structures as an indented tree: the schema elements, then each column chunk's metadata with its
encodings, sizes, offsets and statistics; ~1,560 lines, ~65 kB), of an order export the capture
writes with pyarrow: 2,847 rows of 46 columns (amounts, counts, weights, codes) in one row
group. parquet-tools 0.2.16 and pyarrow run from a throwaway venv (PyPI at build time).

Most columns are 64-bit integers, doubles or strings compressed with Snappy; in the middle, five
columns each use a codec no other does (ZSTD, GZIP, Brotli, LZ4, none) and six carry a logical
type no other has (a decimal, a date, a timestamp, a time of day, an 8-bit and an unsigned
32-bit integer); every string column draws codes of its own, and two columns have nulls. Facts
come from the capture's own record of the table it wrote (each column's codec and type, its
values read by ``max``, ``min`` and a count of ``None``), checked against pyarrow's reading of
the file's footer; never from parquet-tools' text; a fact is kept only where it stands once (a
column's name stands on several lines, so names are asked about, never answered). Held out
(issue 33, twenty-second round): dev holds CSV files and their profiles, SQLite and PostgreSQL
catalogues, but no columnar file's metadata.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import pinned_tool, run

SOURCE = "parquet_inspect"
PARQUET_TOOLS = "parquet-tools==0.2.16"
ROWS = 2847
NAMES = ("order_id", "line_count", "gross_cents", "net_cents", "tax_cents", "fee_cents", "weight_g", "volume_cm3",
         "carrier_code", "depot_code", "picker_code", "packer_code", "route_code", "zone_code", "bay_code",
         "pallet_count", "crate_count", "box_count", "return_count", "split_count", "discount_rate", "margin_rate",
         "fx_rate", "duty_rate", "promo_code", "channel_code", "device_code", "locale_code", "aisle_code",
         "shelf_code", "retry_count", "hold_count", "scan_count", "touch_count", "distance_km", "dwell_min",
         "priority_code", "batch_code", "wave_code", "dock_code")
# the columns of a logical type of their own (ODD_TYPES), set among the middle ones
TYPED = {"unit_price": "decimal", "ship_day": "date", "packed_at": "timestamp", "cutoff_time": "time",
         "priority_level": "int8", "scan_seq": "uint32"}
# codec -> how parquet-tools names it
ODD_CODECS = {"zstd": "ZSTD", "gzip": "GZIP", "brotli": "BROTLI", "lz4": "LZ4", "none": "UNCOMPRESSED"}
# the logical type given to one column -> how parquet-tools prints it
ODD_TYPES = {"decimal": "Decimal(precision=12, scale=2)", "date": "Date",
             "timestamp": "Timestamp(isAdjustedToUTC=true, timeUnit=milliseconds, is_from_converted_type=false, "
                          "force_set_converted_type=false)",
             "time": "Time(isAdjustedToUTC=false, timeUnit=milliseconds)",
             "int8": "Int(bitWidth=8, isSigned=true)", "uint32": "Int(bitWidth=32, isSigned=false)"}
NULLS = (137, 211)  # the null counts of the two nullable columns


@dataclass
class Table:
    """The capture's record: each column's kind, codec and values, the odd ones."""

    kinds: dict[str, str] = field(default_factory=dict)  # name -> int64 | double | string | an ODD_TYPES key
    codecs: dict[str, str] = field(default_factory=dict)
    values: dict[str, list[Any]] = field(default_factory=dict)
    nullable: dict[str, int] = field(default_factory=dict)  # name -> its null count


def plan(rnd: random.Random) -> Table:
    t = Table()
    names = list(NAMES)
    for name in TYPED:
        names.insert(rnd.randint(12, 28), name)
    middle = names[10:36]
    for name in names:
        kind = TYPED.get(name) or ("string" if name.endswith("_code") else
                                   "double" if name.endswith(("_rate", "_km", "_min")) else "int64")
        t.kinds[name], t.codecs[name] = kind, "snappy"
    plain = [n for n in middle if n not in TYPED]
    for codec, name in zip(ODD_CODECS, rnd.sample(plain, len(ODD_CODECS)), strict=False):
        t.codecs[name] = codec
    for name, kind in t.kinds.items():
        if kind == "string":
            # each column's codes carry its own name as a prefix, so no code stands in two columns
            prefix = name.removesuffix("_code").upper()
            t.values[name] = [f"{prefix}-{rnd.randint(1000, 9999)}" for _ in range(ROWS)]
        elif kind in ("int64", "int8", "uint32"):
            top = {"int64": 10 ** 7, "int8": 120, "uint32": 4 * 10 ** 9}[kind]
            t.values[name] = [rnd.randint(0, top) for _ in range(ROWS)]
        elif kind == "double":
            t.values[name] = [round(rnd.uniform(0, 50), 4) for _ in range(ROWS)]
        elif kind == "decimal":
            t.values[name] = [f"{rnd.randint(0, 10 ** 8) / 100:.2f}" for _ in range(ROWS)]
        elif kind == "date":
            t.values[name] = [rnd.randint(20400, 20800) for _ in range(ROWS)]  # days since 1970
        elif kind == "timestamp":
            t.values[name] = [1_780_000_000_000 + rnd.randint(0, 10 ** 10) for _ in range(ROWS)]
        else:  # time of day in milliseconds
            t.values[name] = [rnd.randint(0, 86_399_999) for _ in range(ROWS)]
    strings = [n for n in middle if t.kinds[n] == "string"]
    for count, name in zip(NULLS, rnd.sample(strings, len(NULLS)), strict=True):
        for i in rnd.sample(range(ROWS), count):
            t.values[name][i] = None
        t.nullable[name] = count
    return t


# Run by the throwaway venv's Python (pyarrow lives there): writes the file from the capture's
# record, then reads its footer back with pyarrow, each column chunk's codec and null count.
WRITER = """
import datetime, decimal, json, sys
import pyarrow as pa, pyarrow.parquet as pq
spec = json.load(open(sys.argv[1]))
make = {
    "int64": lambda v: pa.array(v, pa.int64()), "double": lambda v: pa.array(v, pa.float64()),
    "string": lambda v: pa.array(v, pa.string()), "int8": lambda v: pa.array(v, pa.int8()),
    "uint32": lambda v: pa.array(v, pa.uint32()),
    "decimal": lambda v: pa.array([decimal.Decimal(x) for x in v], pa.decimal128(12, 2)),
    "date": lambda v: pa.array(v, pa.date32()), "timestamp": lambda v: pa.array(v, pa.timestamp("ms", tz="UTC")),
    "time": lambda v: pa.array(v, pa.time32("ms")),
}
table = pa.table({n: make[k](spec["values"][n]) for n, k in spec["kinds"].items()})
pq.write_table(table, "orders.parquet", compression=spec["codecs"], store_schema=False)
meta = pq.ParquetFile("orders.parquet").metadata
chunks = [meta.row_group(0).column(i) for i in range(meta.num_columns)]
print(json.dumps({"rows": meta.num_rows, "groups": meta.num_row_groups,
                  "codecs": {c.path_in_schema: c.compression for c in chunks},
                  "nulls": {c.path_in_schema: c.statistics.null_count for c in chunks}}))
"""


def _asks(t: Table) -> list[Ask]:
    note = "the capture's record of the table it wrote (checked against pyarrow's reading of the footer)"
    asks = [Ask("rows", "named", "named_item", (str(ROWS),), note,
                ("How many rows does the file hold?", "What's the file's row count?"), ("inspect",))]
    for name, codec in t.codecs.items():
        if codec != "snappy":
            asks.append(Ask(f"codec_{name}", "named", "named_item", (ODD_CODECS[codec],), note,
                            (f"Which compression codec does the {name} column use?",
                             f"How is {name} compressed?"), ("inspect",)))
    for name, kind in t.kinds.items():
        if kind in ODD_TYPES:
            asks.append(Ask(f"type_{name}", "named", "named_item", (ODD_TYPES[kind],), note,
                            (f"What logical type does {name} have?", f"Which logical type is {name} stored as?"),
                            ("inspect",)))
    names = list(t.kinds)
    strings = [n for n in names[10:36] if t.kinds[n] == "string" and n not in t.nullable]
    for i, name in enumerate(strings[:6]):
        present = [v for v in t.values[name] if v is not None]
        pick, word = (max(present), "largest") if i % 2 == 0 else (min(present), "smallest")
        asks.append(Ask(f"{word}_{name}", "extreme", "extreme", (pick,), note,
                        (f"What is the {word} value in the {name} column's statistics?",
                         f"Per the footer statistics, what's the {word} {name}?"), ("detail",)))
    for name, count in t.nullable.items():
        asks.append(Ask(f"nulls_{name}", "named", "named_item", (str(count),), note,
                        (f"How many nulls does {name} have?", f"What's the null count of the {name} column?"),
                        ("detail",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2204)
    t = plan(rnd)
    tool = pinned_tool(work / "tool", PARQUET_TOOLS, "parquet-tools")
    src = work / "src"
    src.mkdir()
    (src / "spec.json").write_text(json.dumps({"kinds": t.kinds, "codecs": t.codecs, "values": t.values}))
    (work / "write.py").write_text(WRITER)
    back = json.loads(run([str(tool.parent / "python"), str(work / "write.py"), "spec.json"], cwd=src).stdout)
    (src / "spec.json").unlink()  # only the Parquet file stays beside the commands
    assert back["rows"] == ROWS and back["groups"] == 1
    assert back["codecs"] == {n: ODD_CODECS.get(c, "SNAPPY") for n, c in t.codecs.items()}
    assert {n: c for n, c in back["nulls"].items() if c} == t.nullable
    commands = {"inspect": "parquet-tools inspect orders.parquet",
                "detail": "parquet-tools inspect --detail orders.parquet"}
    env = {"PATH": f"{tool.parent}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "NO_COLOR": "1"}
    return shell_cases(SOURCE, commands, _asks(t), cwd=src, env=env)
