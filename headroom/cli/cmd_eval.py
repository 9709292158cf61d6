"""`headroom eval run|report|gate`: quality against savings, before every release."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _csv(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _at_least_one(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {value!r}")
    return n


def register(subparsers: argparse._SubParsersAction) -> None:
    from ..eval.configs import DEFAULT_CONFIGS
    from ..eval.scenarios import family_names

    p = subparsers.add_parser("eval", help="measure task quality against token savings",
                              description="Run the eval suite, write reports, or gate a release on them.")
    sub = p.add_subparsers(dest="eval_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])

    run = sub.add_parser("run", help="run scenarios through each configuration (and an LLM when given)")
    run.add_argument("--suite", default="standard", help="smoke | standard | full (default: standard)")
    run.add_argument("--families", help="comma-separated scenario families (default: all): " + ", ".join(family_names()))
    run.add_argument("--seeds", help="comma-separated seeds (default: the suite's)")
    run.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                     help=f"comma-separated configurations (default: {','.join(DEFAULT_CONFIGS)})")
    run.add_argument("--formats", default="openai_chat,anthropic", help="wire shapes to test")
    run.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "mps"],
                     help="device for the ML configurations")
    run.add_argument("--llmlingua-model", help="directory of an LLMLingua-2 checkpoint (enables llmlingua2)")
    run.add_argument("--out", default="eval-results", help="output directory (default: eval-results)")
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    run.add_argument("-v", "--verbose", action="store_true", help="let the local reader (llama.cpp) log to the console")
    run.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    run.add_argument("--fresh", action="store_true",
                     help="recompute the compression results even when --out holds a run of the same code, corpus, "
                          "dependencies and options (reused otherwise, e.g. before a reader run)")
    llm = run.add_argument_group("reader-backed runner (a local model in-process, or any OpenAI-compatible server)")
    llm.add_argument("--reader", metavar="PATH",
                     help="a local instruction model: a .gguf file (llama.cpp via xllamacpp, the reader extra) or a "
                          "transformers directory; runs on --device (cpu or cuda)")
    llm.add_argument("--reader-context", type=int, help="reader context window in tokens (default: the model's; "
                                                        "8192 for GGUF); longer prompts are scored misses")
    llm.add_argument("--reader-workers", type=int, metavar="N",
                     help="GGUF reader on the CPU: N single-model copies sharing the usable cores, each asked whole "
                          "questions (default: one single-thread copy per core, at most 4)")
    llm.add_argument("--llm-base-url", help="e.g. http://127.0.0.1:8000/v1")
    llm.add_argument("--llm-model", help="model name to send")
    llm.add_argument("--llm-concurrency", type=_at_least_one, metavar="N",
                     help="questions asked side by side at --llm-base-url (one connection pool); the results do "
                          "not depend on it (default: 4; 1 asks one at a time)")
    llm.add_argument("--llm-api-key-env", default=None,
                     help="env var holding the key (default: HEADROOM_EVAL_API_KEY, then OPENAI_API_KEY)")
    llm.add_argument("--llm-config", default="deterministic", help="configuration for the compressed arm")
    llm.add_argument("--llm-max-tokens", type=int, default=256,
                     help="ceiling on answer tokens; each question asks for what its answer needs (default: 256)")
    llm.add_argument("--limit", type=int, metavar="N",
                     help="ask the reader at most N questions per family (every family still asked)")
    llm.add_argument("--proxy-url", help="a running headroom proxy's OpenAI base URL, adds the proxy arm")
    llm.add_argument("--price-in", type=float, default=0.0, help="USD per million prompt tokens")
    llm.add_argument("--price-out", type=float, default=0.0, help="USD per million completion tokens")
    run.set_defaults(func=cmd_run)

    rep = sub.add_parser("report", help="write report.md, report.html and plots from DIR/results.json")
    rep.add_argument("dir")
    rep.add_argument("--no-plots", action="store_true")
    rep.set_defaults(func=cmd_report)

    gate = sub.add_parser("gate", help="exit 1 when results miss the release thresholds")
    gate.add_argument("dir")
    gate.add_argument("--gate-config", help="thresholds TOML (default: the gate.toml shipped in headroom/eval/)")
    gate.add_argument("--min-in-view-retention", type=float,
                      help="share of facts verbatim in what the reader sees (question excluded)")
    gate.add_argument("--max-recoverable-only", type=float,
                      help="ceiling on the share of facts reachable only through headroom_retrieve")
    gate.add_argument("--min-savings", type=float)
    gate.add_argument("--max-lost", type=float)
    gate.add_argument("--max-latency-ms-median", type=float)
    gate.add_argument("--min-reader-delta", type=float,
                      help="floor on the lower 95%% CI bound of the reader's accuracy delta (compressed - original)")
    gate.add_argument("--allow-skip", metavar="CONFIGS",
                      help="comma-separated configurations whose skip is accepted (a skip fails otherwise)")
    gate.add_argument("--allow-missing", metavar="NAMES",
                      help="comma-separated required families/corpus splits whose absence is accepted "
                           "(e.g. independent)")
    gate.set_defaults(func=cmd_gate)


def cmd_run(args: argparse.Namespace) -> int:
    from ..eval.compression import run_compression
    from ..eval.configs import CONFIGS, EvalOptions, resolve_device
    from ..eval.report import save_results, write_reports
    from ..eval.reuse import RESULTS_KEY, fingerprint, reusable
    from ..eval.scenarios import build_suite

    if args.reader and args.llm_concurrency is not None:  # before the compression run, not after it
        raise ValueError("--llm-concurrency is for --llm-base-url; a local --reader takes --reader-workers")
    if args.reader:
        from ..eval.reader import reader_problem

        if problem := reader_problem(args.reader):  # a mistyped path: said at once, not after minutes
            raise ValueError(problem)
    seeds = tuple(int(s) for s in _csv(args.seeds) or ()) or None
    device = resolve_device(args.device)
    options = EvalOptions(device=device, llmlingua_model=args.llmlingua_model)
    fp = fingerprint({"suite": args.suite, "families": _csv(args.families), "seeds": seeds,
                      "configs": _csv(args.configs) or [], "formats": _csv(args.formats) or [], "device": device},
                     args.llmlingua_model)
    results = None if args.fresh else reusable(args.out, fp)
    if results is not None:
        print(f"compression results reused from {Path(args.out) / 'results.json'}: same code, corpus, dependencies "
              "and options (--fresh recomputes them)", file=sys.stderr)
    reader = bool(args.reader or args.llm_base_url)
    # The suite is built only for what runs: reused results without a reader need none.
    scenarios = build_suite(args.suite, _csv(args.families), seeds) if results is None or reader else []
    if results is None:
        results = run_compression(scenarios, _csv(args.configs) or [], options=options,
                                  formats=_csv(args.formats) or [], progress=not args.quiet)
        results["meta"]["suite"] = args.suite
        results["meta"][RESULTS_KEY] = fp
    if reader:
        results["llm"] = _run_reader(args, scenarios, CONFIGS[args.llm_config].build(options), device)
    path = save_results(results, args.out)
    written = write_reports(results, args.out, plots=not args.no_plots)
    from ..eval.report import config_table, markdown

    print(markdown(config_table(results)))
    print(f"\nwrote {path}, " + ", ".join(str(p) for p in written.values()), file=sys.stderr)
    return 0


def _run_reader(args: argparse.Namespace, scenarios: list, config, device: str) -> dict:
    import os

    from ..eval.llm import LLMOptions, run_llm

    common = dict(proxy_url=args.proxy_url, max_tokens=args.llm_max_tokens, price_in_per_mtok=args.price_in,
                  price_out_per_mtok=args.price_out)
    if args.reader:
        from pathlib import Path

        from ..eval.reader import load_reader

        endpoint = load_reader(args.reader, device, context=args.reader_context, verbose=args.verbose,
                               workers=args.reader_workers)
        lo = LLMOptions(f"local:{args.reader}", args.llm_model or Path(args.reader).name, None, **common)
        return run_llm(scenarios, lo, config=config, endpoint=endpoint, progress=not args.quiet, limit=args.limit)
    if not args.llm_model:
        raise ValueError("--llm-model is required with --llm-base-url")
    key = os.environ.get(args.llm_api_key_env) if args.llm_api_key_env else LLMOptions.key_from_env()
    if args.llm_concurrency:
        common["concurrency"] = args.llm_concurrency
    lo = LLMOptions(args.llm_base_url, args.llm_model, key, **common)
    return run_llm(scenarios, lo, config=config, progress=not args.quiet, limit=args.limit)


def cmd_report(args: argparse.Namespace) -> int:
    from ..eval.report import load_results, write_reports

    results = load_results(args.dir)
    written = write_reports(results, Path(args.dir), plots=not args.no_plots)
    for p in written.values():
        print(p)
    return 0


def cmd_gate(args: argparse.Namespace) -> int:
    from ..eval.gate import evaluate, format_checks, load_thresholds
    from ..eval.report import load_results

    thresholds = load_thresholds(args.gate_config)
    if args.min_reader_delta is not None:
        thresholds = {**thresholds, "reader": {**thresholds.get("reader", {}), "min_reader_delta": args.min_reader_delta}}
    checks = evaluate(load_results(args.dir), thresholds, {
        "min_in_view_retention": args.min_in_view_retention, "max_recoverable_only": args.max_recoverable_only,
        "min_savings": args.min_savings,
        "max_lost": args.max_lost, "max_latency_ms_median": args.max_latency_ms_median},
        allow_skip=_csv(args.allow_skip) or (), allow_missing=_csv(args.allow_missing) or ())
    failed = [c for c in checks if c.fails_gate]
    print(format_checks(checks))
    if failed:
        print(f"\ngate FAILED: {len(failed)} of {len(checks)} checks", file=sys.stderr)
        return 1
    print(f"\ngate passed: {len(checks)} checks")
    return 0
