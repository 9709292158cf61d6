"""The eval harness: task quality against token savings, before every release.

>>> from headroom.eval import build_suite, run_compression, write_reports
>>> results = run_compression(build_suite("standard"), ["deterministic"])
>>> write_reports(results, "eval-results/")

``headroom eval run|report|gate`` is the command-line face of the same functions. Heavy
parts (matplotlib, tqdm, httpx, torch, llama.cpp, OCR) are imported only when used.
"""

from .compression import FORMATS, run_compression
from .configs import CONFIGS, DEFAULT_CONFIGS, EvalConfig, EvalOptions
from .gate import evaluate, format_checks, load_thresholds
from .llm import COMPETENCE_FLOOR, LLMOptions, run_llm
from .reader import load_reader
from .report import load_results, save_results, write_reports
from .scenarios import FAMILIES, SUITES, Probe, Scenario, build_suite
from .scoring import bootstrap_delta, contains, exact_match, token_f1

__all__ = [
    "COMPETENCE_FLOOR",
    "CONFIGS",
    "DEFAULT_CONFIGS",
    "FAMILIES",
    "FORMATS",
    "SUITES",
    "EvalConfig",
    "EvalOptions",
    "LLMOptions",
    "Probe",
    "Scenario",
    "bootstrap_delta",
    "build_suite",
    "contains",
    "evaluate",
    "exact_match",
    "format_checks",
    "load_reader",
    "load_results",
    "load_thresholds",
    "run_compression",
    "run_llm",
    "save_results",
    "token_f1",
    "write_reports",
]
