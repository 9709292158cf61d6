"""The compression-only runner: no LLM, runs in CI.

For each configuration, a fresh :class:`Pipeline` (own CCR store) compresses every probe
of every scenario in each wire shape, and we record token savings, whether each
evidence string is kept / recoverable / lost, latency, and what each transform did.
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..version import __version__
from ..api import compress
from ..ccr.markers import find_hashes
from ..ccr.store import CompressionStore
from ..config import HeadroomConfig
from ..pipeline import Pipeline
from ..transforms.router import CompressionMemo
from .configs import CONFIGS, EvalConfig, EvalOptions, with_context_budget
from .corpus import GAPS_SPLIT
from .evidence import by_basis, check_evidence, recoverable_text, visible_text, with_image_evidence
from .scenarios import Probe, Scenario

FORMATS = ("openai_chat", "anthropic")
PipelineFactory = Callable[[HeadroomConfig, CompressionStore], Pipeline]


def default_pipeline_factory(config: HeadroomConfig, store: CompressionStore) -> Pipeline:
    return Pipeline(config, store=store)


@dataclass
class CaseResult:
    config: str
    family: str
    scenario: str
    size: int
    seed: int
    format: str
    probe_kind: str
    question: str
    tokens_before: int
    tokens_after: int
    latency_ms: float
    evidence_total: int
    kept: int
    recoverable: int
    lost: int
    lost_strings: list[str]
    markers: int
    transforms: dict[str, dict[str, float]] = field(default_factory=dict)
    error: str | None = None
    # Real-output corpus cases: "dev" or "heldout" (sources measured once, at the end); else None.
    split: str | None = None
    # Per fact basis (headroom.eval.corpus.FACT_BASES): {"kept", "recoverable", "lost"} counts.
    by_basis: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def never_worse(self) -> bool:
        return self.tokens_after <= self.tokens_before


# The model a case is measured with, per wire format (its tokenizer and context window).
MODELS = {"openai_chat": "gpt-4o", "anthropic": "claude-sonnet-4-5"}


def _transform_stats(decisions: Iterable[Any]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for d in decisions:
        s = out[d.transform]
        s[d.action] += 1
        s["tokens_saved"] += d.tokens_before - d.tokens_after if d.action != "skipped" else 0
        s["duration_ms"] += d.duration_ms
        if d.strategy and d.action not in ("kept", "skipped"):
            s[f"via {d.strategy}"] += 1  # which compressor did the work (e.g. llmlingua2 vs text)
    return {k: dict(v) for k, v in out.items()}


class _ConfigRun:
    """Pipelines for one configuration: one per context budget, sharing one store."""

    def __init__(self, ec: EvalConfig, options: EvalOptions, factory: PipelineFactory):
        self.ec = ec
        # TOIN off: one pipeline serves every case of a configuration, and a learner would
        # carry what it saw in earlier cases into later ones (results would depend on case
        # order). Each case is judged on its own; benchmarks/toin_replay.py measures TOIN.
        built = ec.build(options)
        self.config = built.model_copy(update={"toin": built.toin.model_copy(update={"enabled": False})})
        self.store = CompressionStore(max_entries=1_000_000, ttl_seconds=self.config.ccr.store_ttl_seconds)
        self.factory = ec.pipeline or factory
        self._pipelines: dict[int | None, Pipeline] = {}

    def pipeline(self, budget: int | None) -> Pipeline:
        p = self._pipelines.get(budget)
        if p is None:
            p = self.factory(with_context_budget(self.config, budget), self.store)
            self._pipelines[budget] = p
        return p

    def preflight(self) -> None:
        """Build what the pipeline needs now, so a missing part is a skip, not a crash."""
        p = self.pipeline(None)
        _ = p.transforms
        p.relevance()

    def run_case(self, scenario: Scenario, probe: Probe, fmt: str) -> CaseResult:
        p = self.pipeline(scenario.context_budget)
        # Each case is judged on its own question: a shared memo would serve the form
        # compressed for an earlier question (right in production, wrong for measuring).
        p.memo = CompressionMemo(read_store=False)
        body = scenario.body(probe, fmt, MODELS[fmt])
        base = {"config": self.ec.name, "family": scenario.family, "scenario": scenario.id, "size": scenario.size,
                "seed": scenario.seed, "format": fmt, "probe_kind": probe.kind, "question": probe.question,
                "split": scenario.meta.get("split")}
        t0 = time.perf_counter()
        try:
            result = compress(body, format=fmt, pipeline=p)
        except Exception as exc:  # noqa: BLE001 (a crash is a finding, reported per case)
            return CaseResult(**base, tokens_before=0, tokens_after=0, latency_ms=0.0,
                              evidence_total=len(probe.evidence), kept=0, recoverable=0,
                              lost=len(probe.evidence), lost_strings=list(probe.evidence), markers=0,
                              error=f"{type(exc).__name__}: {exc}",
                              by_basis=by_basis(probe.evidence, probe.basis, "", ""))
        latency = (time.perf_counter() - t0) * 1000
        visible = visible_text(result.conversation, probe.question)
        rec = recoverable_text(visible, self.store)
        if scenario.has_image:
            visible, rec = with_image_evidence(probe.evidence, result.conversation, visible, rec)
        ev = check_evidence(probe.evidence, visible, rec)
        before, after = result.tokens_before, result.tokens_after
        if scenario.has_image:
            # Image tokens are provider estimates the image transform records in its
            # decisions; the text token count of the conversation does not include them.
            img = [d for d in result.decisions if d.transform == "image" and d.action in ("kept", "compressed")]
            before += sum(d.tokens_before for d in img)
            after += sum(d.tokens_after for d in img)
        return CaseResult(**base, tokens_before=before, tokens_after=after,
                          latency_ms=latency, evidence_total=ev.total, kept=ev.kept, recoverable=ev.recoverable,
                          lost=ev.lost, lost_strings=ev.lost_strings, markers=len(find_hashes(visible)),
                          transforms=_transform_stats(result.decisions),
                          by_basis=by_basis(probe.evidence, probe.basis, visible, rec))


def summarize(cases: list[CaseResult]) -> dict[str, Any]:
    """Aggregate cases: savings over total tokens, retention over all evidence strings."""
    if not cases:
        return {}
    before = sum(c.tokens_before for c in cases)
    after = sum(c.tokens_after for c in cases)
    ev = sum(c.evidence_total for c in cases)
    kept = sum(c.kept for c in cases)
    rec = sum(c.recoverable for c in cases)
    lat = sorted(c.latency_ms for c in cases)
    return {
        "cases": len(cases),
        "errors": sum(1 for c in cases if c.error),
        "tokens_before": before,
        "tokens_after": after,
        "savings": (before - after) / before if before else 0.0,
        "evidence": ev,
        "kept": kept,
        "recoverable": rec,
        "lost": ev - kept - rec,
        # Two numbers, never summed into one: what the reader sees, and what it could only
        # get back by calling headroom_retrieve (a bare marker scores 0 in view, 1 here).
        "in_view_retention": kept / ev if ev else 1.0,
        "recoverable_only": rec / ev if ev else 0.0,
        "never_worse": all(c.never_worse for c in cases),
        "latency_ms_median": statistics.median(lat),
        "latency_ms_p95": lat[min(len(lat) - 1, round(0.95 * (len(lat) - 1)))],
    }


def summarize_basis(cases: list[CaseResult], basis: str) -> dict[str, Any]:
    """The facts of one basis across cases (the independent-fact split): retention over
    those facts only; tokens and latency of the cases that carry at least one."""
    mine = [c for c in cases if sum(c.by_basis.get(basis, {}).values())]
    if not mine:
        return {}
    out = summarize(mine)
    kept = sum(c.by_basis[basis]["kept"] for c in mine)
    rec = sum(c.by_basis[basis]["recoverable"] for c in mine)
    ev = sum(sum(c.by_basis[basis].values()) for c in mine)
    out.update(evidence=ev, kept=kept, recoverable=rec, lost=ev - kept - rec, in_view_retention=kept / ev,
               recoverable_only=rec / ev)
    return out


# The corpus split made of facts (not cases): those defined independently of the compressor.
INDEPENDENT_SPLIT = "independent"


def summarize_transforms(cases: list[CaseResult]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for c in cases:
        for name, stats in c.transforms.items():
            for k, v in stats.items():
                out[name][k] += v
    return {k: dict(v) for k, v in sorted(out.items())}


def run_compression(
    scenarios: list[Scenario],
    config_names: Iterable[str],
    *,
    options: EvalOptions | None = None,
    formats: Iterable[str] = FORMATS,
    pipeline_factory: PipelineFactory = default_pipeline_factory,
    extra_configs: dict[str, EvalConfig] | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run every scenario probe through every configuration (real-corpus probes in the
    first format only); return the results document."""
    options = options or EvalOptions()
    formats = list(formats)
    for s in scenarios:  # a fact the request carries outside the tool outputs cannot be lost
        s.check_evidence_placement()
    known = {**CONFIGS, **(extra_configs or {})}
    started = time.time()
    configs_out: list[dict[str, Any]] = []
    cases: list[CaseResult] = []
    # Real outputs are judged in the first wire shape only: they are large (most of the
    # suite's time) and the wire shapes' handling is covered by the generated families.
    work = [(s, p, f) for s in scenarios for p in s.probes
            for f in (formats[:1] if s.meta.get("split") else formats)]
    for name in config_names:
        ec = known.get(name)
        if ec is None:
            raise ValueError(f"unknown configuration {name!r}; expected one of {', '.join(known)}")
        entry: dict[str, Any] = {"name": name, "description": ec.description, "status": "ok", "reason": None,
                                 "label": ec.label(options)}
        configs_out.append(entry)
        reason = ec.precondition(options)
        if reason:
            entry.update(status="skipped", reason=reason)
            continue
        try:
            run = _ConfigRun(ec, options, pipeline_factory)
            t0 = time.perf_counter()
            run.preflight()
            entry["setup_ms"] = (time.perf_counter() - t0) * 1000
        except Exception as exc:  # noqa: BLE001 (any missing part makes the config a reported skip)
            entry.update(status="skipped", reason=f"unavailable: {type(exc).__name__}: {exc}")
            continue
        entry["config"] = run.config.model_dump(mode="json")
        if work:  # warm-up (model loading, first tokenizer use) stays out of the latencies
            t0 = time.perf_counter()
            # Load every model the configuration enables first, as the proxy does before it
            # serves: a model still loading in an overdue compressor thread made the first
            # cases of relevance_hybrid time out one after another (seen on CUDA).
            run.pipeline(None).warm_up()
            run.run_case(*work[0])
            entry["warmup_ms"] = (time.perf_counter() - t0) * 1000
        for s, p, f in _progress(work, f"{name:>20}", progress):
            cases.append(run.run_case(s, p, f))
    by_config: dict[str, Any] = {}
    for entry in configs_out:
        mine = [c for c in cases if c.config == entry["name"]]
        if not mine:
            continue
        fams: dict[str, list[CaseResult]] = defaultdict(list)
        kinds: dict[str, list[CaseResult]] = defaultdict(list)
        splits: dict[str, list[CaseResult]] = defaultdict(list)
        for c in mine:
            fams[c.family].append(c)
            kinds[c.probe_kind].append(c)
            if c.split:
                splits[c.split].append(c)
        # Sources of the "gaps" split are gated on their own and kept out of every pooled
        # figure (headroom.eval.corpus.GAP_SOURCES); "overall_with_gaps" shows the pool with them.
        pooled = [c for c in mine if c.split != GAPS_SPLIT]
        by_config[entry["name"]] = {
            "overall": summarize(pooled),
            **({"overall_with_gaps": summarize(mine)} if len(pooled) < len(mine) else {}),
            "families": {f: summarize([c for c in cs if c.split != GAPS_SPLIT]) for f, cs in fams.items()
                         if any(c.split != GAPS_SPLIT for c in cs)},
            # Which kind of fact suffers first: spikes, errors, anomalies, looked-up items.
            "probe_kinds": {k: summarize(cs) for k, cs in sorted(kinds.items())},
            # The real-output corpus per split; "heldout" sources are measured once, at the end.
            # The independent-fact split: facts defined from a signal the compressor never sees.
            "corpus_splits": {**{k: summarize(cs) for k, cs in sorted(splits.items())},
                              **({INDEPENDENT_SPLIT: ind} if (ind := summarize_basis(pooled, "independent")) else {})},
            "transforms": summarize_transforms(mine),
        }
    return {
        "meta": {
            "kind": "compression",
            "headroom_version": __version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "device": options.device,
            "formats": formats,
            "scenarios": len(scenarios),
            "families": sorted({s.family for s in scenarios}),
            **_corpus_loader_notes(scenarios),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
            "duration_s": round(time.time() - started, 2),
        },
        "configs": configs_out,
        "summary": by_config,
        "cases": [{**asdict(c), "never_worse": c.never_worse} for c in cases],
    }


def _corpus_loader_notes(scenarios: list[Scenario]) -> dict[str, Any]:
    """What the corpus loader left out, so a report says which facts were not judged."""
    sources = sorted({s.meta["source"] for s in scenarios if s.meta.get("split")})
    if not sources:
        return {}
    from .corpus import available_sources, rejected_cases

    sources = [s for s in sources if s in set(available_sources())]  # a case built in memory has no file
    dropped = {s.meta["case_id"]: s.meta["dropped_facts"] for s in scenarios if s.meta.get("dropped_facts")}
    return {"corpus_rejected_cases": rejected_cases(sources), "corpus_dropped_facts": dropped}


def _progress(items: list, desc: str, enabled: bool):
    if not enabled:
        return items
    try:
        from tqdm import tqdm
    except ImportError:
        return items
    return tqdm(items, desc=desc, unit="case", leave=True, file=sys.stderr)
