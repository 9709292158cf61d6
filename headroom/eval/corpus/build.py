"""Regenerate the real-output corpus by running real programs on this machine.

    python -m headroom.eval.corpus.build                 # every source, into the package's data/
    python -m headroom.eval.corpus.build --only redis_server --out /tmp/corpus

Each source is a module under ``captures/`` with ``SOURCE`` and ``build(workdir)``; it runs
its program(s) in a fresh temporary directory and returns case records (content, question,
facts). The committed files are the reference: outputs carry timestamps, pids and ports
as the programs wrote them, so a rebuild differs in those and is reviewed like any diff.
"""

from __future__ import annotations

import argparse
import importlib
import json
import lzma
import sys
import tempfile
from pathlib import Path

from . import DATA_SUFFIX, case_from_record

CAPTURES = ("redis", "postgres", "dpkg_log", "apt_term", "ruff", "pytest_run", "datasets", "git_history",
            "uvicorn_access", "pip_install", "pip_list", "pip_inspect", "alternatives_log", "du_tree",
            "headroom_proxy", "statsmodels_csv", "pylint_report",
            "gcc_warnings", "npm_view", "commander_releases", "click_releases",
            "npm_install", "pipdeptree_json", "mypy_report", "penguins_csv", "aligned_tables", "node_dep_tree",
            "python_importtime", "python_cprofile", "strace_trace", "x509_text",
            "pypi_simple_files", "pytest_report_json", "npm_version_docs", "pypi_project_json",
            "pg_sessions_jsonlog", "postgres_multifile", "postgres_dash_prefix", "postgres_debug_log",
            "pg_category_prefix", "uvicorn_json_logger", "postgres_table_rows",
            "read_python", "python_site_packages", "read_js", "read_cpp", "read_shell", "grep_symbols",
            "config_files", "config_files_more", "config_files_packages", "markdown_docs",
            # held out by issue 33, measured once (2026-11-29), dev since
            "elf_readelf", "elf_disassembly", "dpkg_status", "gpg_keyring", "tz_transitions",
            "man_pages",
            # issue 33's second round, measured once (2026-11-29, round 2), dev since
            "redis_replies", "process_table", "socket_table", "pg_controldata", "sqlite_query",
            "open_files",
            # issue 33's third round, measured once (2026-11-29, round 3), dev since
            "pg_explain", "pg_schema_dump", "ip_links", "mount_table", "tls_ciphers",
            "curl_trace",
            # issue 33's fourth round, measured once (2026-11-29, round 4), dev since
            "jvm_diagnostics", "ext4_dumpe2fs", "git_status", "hex_dump", "valgrind_memcheck",
            "git_blame",
            # issue 33's fifth round, measured once (2026-11-29, round 5), dev (known gaps) since
            "cpu_topology", "pip_show", "make_database", "ssh_config_dump", "proc_status", "apt_policy",
            "tls_handshake",
            # issue 33's sixth round, measured once (2026-11-29, round 6), dev (known gaps) since
            "ssh_key_fingerprints", "stat_files", "sysv_ipc", "ldd_deps", "file_types", "coverage_report",
            # issue 33's seventh round, measured once (2026-11-29, round 7), dev (known gaps) since
            "memory_maps", "time_verbose", "gdb_threads", "git_refs", "file_locks", "vm_series",
            # issue 33's eighth round, measured once (2026-11-30, round 8), dev (known gaps) since
            "archive_members", "git_objects", "net_counters", "kernel_params", "process_limits", "macro_dump",
            # issue 33's ninth round, measured once (2026-11-30, round 9), dev (known gaps) since
            "checksum_listings", "dir_listings", "asn1_dumps", "java_classes", "gettext_catalogs",
            "pkg_config",
            # issue 33's tenth round, measured once (2026-11-30, round 10), dev (known gaps) since
            "source_tags", "perl_config", "locale_dumps", "library_cache", "terminfo_dumps", "include_trees",
            # issue 33's eleventh round, measured once (2026-11-30, round 11), dev (known gaps) since
            "syntax_trees", "frequency_tables", "json_paths", "byte_diffs", "tree_diffs", "cmake_cache",
            # issue 33's twelfth round, measured once (2026-11-30, round 12), dev (known gaps) since
            "compiler_params", "link_maps", "shell_traces", "pickle_disassembly", "patch_reports", "git_reflogs",
            # issue 33's thirteenth round, measured once (2026-11-30, round 13), dev (known gaps) since
            "merge_conflicts", "range_diffs", "commit_graphs", "sqlite_plans", "pydoc_pages", "trace_counts",
            # issue 33's fourteenth round, measured once (2026-11-30, round 14), dev (known gaps) since
            "set_comparisons", "git_config_origins", "shell_declarations", "doctest_runs", "word_diffs",
            "compression_listings",
            # issue 33's fifteenth round, measured once (2026-11-30, round 15), dev (known gaps) since
            "git_stashes", "merged_columns", "git_notes", "git_worktrees", "html_tables", "login_history",
            # issue 33's sixteenth round, measured once (2026-11-30, round 16), dev (known gaps) since
            "git_bisects", "pytest_collections", "wal_records", "git_submodules", "account_checks",
            "branch_matrices",
            # issue 33's seventeenth round, measured once (2026-11-30, round 17), dev (known gaps) since
            "schema_errors", "font_tables", "fk_checks", "ignore_rules", "acl_users", "ninja_explain",
            # issue 33's eighteenth round, measured once (2026-12-01, round 18), dev (known gaps) since
            "tc_classes", "pip_tags", "dwarf_dies", "rust_mir", "jfr_events", "nginx_config",
            # issue 33's nineteenth round, measured once (2026-12-01, round 19), dev (known gaps) since
            "redis_streams", "pg_restore_toc", "ubsan_reports", "esbuild_analyze", "meson_setup", "radon_metrics",
            # issue 33's twentieth round, measured once (2026-12-01, round 20), dev (known gaps) since
            "csv_stats", "ansible_inventory", "gpt_partitions", "deprecated_apis", "namespace_listing",
            "tmux_bindings",
            # issue 33's twenty-first round, measured once (2026-12-01, round 21), dev (known gaps) since
            "commit_signatures", "logical_decoding", "path_resolution", "redis_cluster", "file_capabilities",
            "query_statistics",
            # issue 33's twenty-second round, measured once (2026-12-01, round 22), dev (known gaps) since
            "link_errors", "django_migrations", "redis_functions", "parquet_inspect", "fsck_report",
            "fstab_verify",
            # issue 33's twenty-third round, measured once (2026-12-01, round 23), dev (known gaps) since
            "push_report", "classifier_report", "module_tree", "blkid_probe", "json_patch_diff",
            "addr_symbolize",
            # issue 33's twenty-fourth round, measured once (2026-12-01, round 24), dev (known gaps) since
            "drop_dependents", "exception_groups", "hardlink_dedupe", "precommit_hooks", "symbols_check",
            "regression_summary",
            # held out (issue 33's twenty-fifth round): kinds no dev source has; measured once, at the end
            "import_contracts", "system_checks", "release_notes", "ocsp_status", "supervisor_status")
DEFAULT_OUT = Path(__file__).parent / "data"


def capture_modules():
    try:
        return [importlib.import_module(f".captures.{name}", __package__) for name in CAPTURES]
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.captures":
            raise
        # The capture scripts are repository tools; the wheel leaves them out (pyproject.toml).
        raise SystemExit("the corpus capture scripts ship only in a repository checkout") from exc


def write_source(out_dir: Path, source: str, cases: list[dict]) -> Path:
    for rec in cases:
        case_from_record(rec)  # the loader's checks, at build time
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), f"duplicate case ids in {source}"
    doc = {"source": source, "cases": cases}
    path = out_dir / f"{source}{DATA_SUFFIX}"
    # xz (not gzip): its large window shares the text and JSON forms of one capture.
    path.write_bytes(lzma.compress(json.dumps(doc, ensure_ascii=False, indent=0).encode(), preset=9))
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--only", action="append", help="a source name (repeatable)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    mods = capture_modules()
    known = {m.SOURCE for m in mods}
    if args.only and set(args.only) - known:
        ap.error(f"unknown sources {sorted(set(args.only) - known)}; expected some of {sorted(known)}")
    for mod in mods:
        if args.only and mod.SOURCE not in args.only:
            continue
        with tempfile.TemporaryDirectory(prefix=f"corpus-{mod.SOURCE}-") as tmp:
            cases = mod.build(Path(tmp))
        path = write_source(args.out, mod.SOURCE, cases)
        lines = sum(len(c["content"].splitlines()) for c in cases)
        print(f"{mod.SOURCE}: {len(cases)} cases, {sum(len(c['facts']) for c in cases)} facts, {lines} lines, "
              f"{path.stat().st_size / 1024:.0f} KiB -> {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
