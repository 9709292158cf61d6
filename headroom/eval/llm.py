"""The LLM-backed runner: does the model still answer correctly from compressed context?

The reader is any OpenAI-compatible Chat Completions endpoint (``--llm-base-url``,
``--llm-model``, key from ``HEADROOM_EVAL_API_KEY`` or ``OPENAI_API_KEY``) or a local model
loaded in-process (``--reader PATH``, :mod:`headroom.eval.reader`). Each probe is asked in
these arms:

- ``original``: the uncompressed conversation;
- ``compressed``: compressed by headroom, no tool offered (what the reader sees in view);
- ``compressed_retrieve``: the conversation through headroom's own exchange loop
  (:func:`headroom.exchange.run`, the one the proxy runs): compressed, the
  ``headroom_retrieve`` tool offered when markers are present, retrieve calls answered
  from the CCR store, the last round without tools, the config's round cap;
- ``proxy``: the original conversation sent through a running headroom proxy
  (``--proxy-url``), so compression and the retrieve loop happen there.

Scores: exact match, contains, token F1; the accuracy delta of each arm against
``original`` with a paired bootstrap CI; tokens and cost. A reader must first answer from
the originals: below :data:`COMPETENCE_FLOOR` original-context accuracy its deltas are
marked "reader not competent" and the gate ignores them. Every family is asked, the
real-output corpus included: its answers are the facts themselves, scored by the share
the reader states (:func:`~headroom.eval.scoring.fact_recall`). Each question asks for
what its answer needs (:func:`answer_budget`), so short answers stop early.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ..ccr.store import CompressionStore
from ..config import HeadroomConfig
from ..exchange import Exchange, ExchangeCore, run, start
from ..formats import OPENAI_CHAT, openai_chat
from ..modes import OPTIMIZE, PASSTHROUGH
from ..transforms.router import CompressionMemo
from .compression import PipelineFactory, default_pipeline_factory
from .configs import with_context_budget
from .reader_pool import map_on_readers, members
from .scenarios import Probe, Scenario
from .scoring import bootstrap_delta, contains, exact_match, fact_recall, token_f1

# Appended to the system prompt in every arm alike: short extractive answers are what the
# scoring reads, and they stop generation early.
ANSWER_STYLE = "Answer in one short line: quote only the exact values or lines the question asks for."


@dataclass(frozen=True)
class LLMOptions:
    base_url: str
    model: str
    api_key: str | None = None
    proxy_url: str | None = None
    timeout_s: float = 120.0
    max_tokens: int = 256
    price_in_per_mtok: float = 0.0
    price_out_per_mtok: float = 0.0
    max_retrieve_rounds: int | None = None  # None: the config's ccr.max_retrieve_rounds (the proxy's)
    bootstrap_rounds: int = 2000
    competence_floor: float = 0.70  # see COMPETENCE_FLOOR
    # Questions asked side by side over HTTP (the one endpoint is shared); 1: one at a time.
    # A local ``endpoint`` ignores it: its pool decides (``--reader-workers``).
    concurrency: int = 4

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {self.concurrency}")

    @staticmethod
    def key_from_env() -> str | None:
        return os.environ.get("HEADROOM_EVAL_API_KEY") or os.environ.get("OPENAI_API_KEY")


class ChatEndpoint:
    """POST ``{base_url}/chat/completions``; ``transport`` lets tests swap the network."""

    def __init__(self, base_url: str, api_key: str | None, timeout_s: float, transport: Any = None):
        import httpx

        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout_s,
                                    transport=transport)

    RETRY_STATUS = (408, 409, 429, 500, 502, 503, 504)

    def complete(self, body: dict[str, Any], *, attempts: int = 3, backoff_s: float = 1.0) -> dict[str, Any]:
        """One completion; rate limits and transient server errors are retried with backoff."""
        for attempt in range(attempts):
            r = self._client.post("/chat/completions", json=body)
            if r.status_code in self.RETRY_STATUS and attempt + 1 < attempts:
                time.sleep(backoff_s * 2**attempt)
                continue
            if r.status_code >= 400:
                raise RuntimeError(f"HTTP {r.status_code} from {r.request.url}: {r.text[:300]}")
            return r.json()
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._client.close()


@dataclass
class Answer:
    text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    rounds: int = 0
    retrieve_calls: int = 0
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


def _message(resp: dict[str, Any]) -> dict[str, Any]:
    return (resp.get("choices") or [{}])[0].get("message") or {}


class EndpointTransport:
    """A chat endpoint as the exchange loop's transport (whole answers: the eval never
    streams); every round's usage is added to ``answer`` (the loop hands back only the
    last reply)."""

    def __init__(self, endpoint: Any, answer: Answer):
        self.endpoint = endpoint
        self.answer = answer

    def send(self, body: dict[str, Any]) -> dict[str, Any]:
        resp = self.endpoint.complete(body)
        usage = openai_chat.usage(resp)
        self.answer.rounds += 1
        self.answer.prompt_tokens += usage.input_tokens
        self.answer.completion_tokens += usage.output_tokens
        return resp

    def turn(self, reply: Any) -> dict[str, Any] | None:
        return reply if isinstance(reply, dict) else None


def ask_exchange(endpoint: Any, ex: Exchange, core: ExchangeCore) -> Answer:
    """Send the exchange ``ex`` through headroom's exchange loop: while the model calls
    only ``headroom_retrieve`` (when the exchange offered it) the loop answers and goes on."""
    out = Answer()
    try:
        msg = _message(run(core, ex, EndpointTransport(endpoint, out)))
        out.text = msg.get("content") or ""
        out.tool_calls = msg.get("tool_calls") or []
    except Exception as exc:  # noqa: BLE001 (one failing request is a scored miss, not a crashed run)
        out.error = f"{type(exc).__name__}: {exc}"
    out.retrieve_calls = ex.rounds
    return out


def ask(endpoint: Any, body: dict[str, Any]) -> Answer:
    """Send ``body`` as it is: one round, nothing of headroom's offered (so no core is needed)."""
    return ask_exchange(endpoint, Exchange(OPENAI_CHAT, PASSTHROUGH, body, body), None)  # type: ignore[arg-type]


def answer_budget(probe: Probe, ceiling: int) -> int:
    """Tokens a question's answer needs: its answer text (about 3 characters a token) plus
    room for a short lead-in, never above ``ceiling``."""
    need = sum(len(a) for a in probe.reader_answers) // 3 + 24
    return max(16, min(ceiling, need))


def _styled(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same messages with :data:`ANSWER_STYLE` in the system prompt (added when absent)."""
    if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
        return [{**messages[0], "content": f"{messages[0]['content']}\n{ANSWER_STYLE}"}, *messages[1:]]
    return [{"role": "system", "content": ANSWER_STYLE}, *messages]


def _body(options: LLMOptions, messages: list[dict[str, Any]], max_tokens: int | None = None) -> dict[str, Any]:
    return {"model": options.model, "messages": _styled(messages), "temperature": 0,
            "max_tokens": max_tokens or options.max_tokens}


def loop_config(config: HeadroomConfig, options: LLMOptions) -> HeadroomConfig:
    """``config`` with the options' retrieve-round cap, when they set one."""
    if options.max_retrieve_rounds is None:
        return config
    ccr = config.ccr.model_copy(update={"max_retrieve_rounds": options.max_retrieve_rounds})
    return config.model_copy(update={"ccr": ccr})


def _scores(ans: Answer, probe: Probe) -> dict[str, float]:
    if probe.answers:  # facts: the share stated, whole and normalised; exact when all are
        recall = fact_recall(ans.text, probe.answers)
        return {"exact": float(recall == 1.0), "contains": recall, "f1": token_f1(ans.text, " ".join(probe.answers))}
    return {"exact": float(exact_match(ans.text, probe.expected)), "contains": float(contains(ans.text, probe.expected)),
            "f1": token_f1(ans.text, probe.expected)}


def _arm_summary(rows: list[dict[str, Any]], options: LLMOptions) -> dict[str, Any]:
    n = len(rows)
    pt = sum(r["prompt_tokens"] for r in rows)
    ct = sum(r["completion_tokens"] for r in rows)
    return {
        "n": n,
        "exact": sum(r["exact"] for r in rows) / n if n else 0.0,
        "contains": sum(r["contains"] for r in rows) / n if n else 0.0,
        "f1": sum(r["f1"] for r in rows) / n if n else 0.0,
        "prompt_tokens": pt,
        "completion_tokens": ct,
        "retrieve_calls": sum(r["retrieve_calls"] for r in rows),
        "errors": sum(1 for r in rows if r["error"]),
        "cost_usd": (pt * options.price_in_per_mtok + ct * options.price_out_per_mtok) / 1e6,
    }


# Original-context accuracy (contains) a reader needs before its deltas say anything
# about compression: a reader that cannot answer from the originals fails for its own reasons.
COMPETENCE_FLOOR = 0.70


def summarize_arms(cases: list[dict[str, Any]], options: LLMOptions, metric: str = "contains") -> dict[str, Any]:
    arms: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        arms.setdefault(c["arm"], []).append(c)
    out = {arm: _arm_summary(rows, options) for arm, rows in arms.items()}
    for arm, rows in arms.items():  # every family is asked: say how each fared
        fams: dict[str, list[float]] = {}
        for r in rows:
            fams.setdefault(r["family"], []).append(r[metric])
        out[arm]["families"] = {f: {"n": len(v), metric: sum(v) / len(v)} for f, v in sorted(fams.items())}
    base = {r["case"]: r[metric] for r in arms.get("original", [])}
    for arm, rows in arms.items():
        if arm == "original" or not base:
            continue
        paired = [(base[r["case"]], r[metric]) for r in rows if r["case"] in base]
        out[arm][f"delta_{metric}"] = bootstrap_delta([p[0] for p in paired], [p[1] for p in paired],
                                                      rounds=options.bootstrap_rounds)
    return out


def run_llm(
    scenarios: list[Scenario],
    options: LLMOptions,
    *,
    config: HeadroomConfig | None = None,
    pipeline_factory: PipelineFactory = default_pipeline_factory,
    transport: Any = None,
    proxy_transport: Any = None,
    endpoint: Any = None,
    progress: bool = True,
    limit: int | None = None,
) -> dict[str, Any]:
    """Ask every probe in every arm; return the ``llm`` section of a results document.

    ``endpoint`` (anything with ``complete(body)`` and ``close()``, e.g. a local reader)
    replaces the HTTP endpoint at ``options.base_url``; a pool of readers
    (:class:`~headroom.eval.reader_pool.ReaderPool`) is asked whole questions side by side,
    the results in suite order. The HTTP endpoint is asked ``options.concurrency``
    questions side by side the same way. ``limit`` asks at most that many questions per
    family (the first ones, in suite order)."""
    config = loop_config(config or HeadroomConfig(), options)
    for s in scenarios:  # as in the compression runner: a fact outside the outputs proves nothing
        s.check_evidence_placement()
    store = CompressionStore(max_entries=1_000_000, ttl_seconds=config.ccr.store_ttl_seconds)
    cores: dict[int | None, ExchangeCore] = {}

    cores_lock = threading.Lock()

    def core_for(budget: int | None) -> ExchangeCore:
        with cores_lock:
            if budget not in cores:
                cores[budget] = ExchangeCore(pipeline_factory(with_context_budget(config, budget), store))
            return cores[budget]

    llm = endpoint or ChatEndpoint(options.base_url, options.api_key, options.timeout_s, transport)
    proxy = ChatEndpoint(options.proxy_url, options.api_key, options.timeout_s, proxy_transport) if options.proxy_url else None
    started = time.time()
    work = reader_work(scenarios, limit)
    # Compression shares one pipeline (its memo is reset per question): one question at a time.
    compressing = threading.Lock()

    def ask_one(item: tuple[Scenario, Probe], reader: Any) -> list[dict[str, Any]]:
        s, probe = item
        return _ask_probe(s, probe, options, reader, proxy, core_for(s.context_budget), compressing)

    bar = _progress_bar(len(work), "llm", progress)
    readers = members(llm)
    # One HTTP client serves every slot (httpx.Client is thread-safe): a question's arms
    # still go one after another, only whole questions overlap. Closed once, below.
    slots = readers if endpoint is not None else [llm] * options.concurrency
    try:
        per_question = map_on_readers(work, slots, ask_one, on_done=bar.update if bar else None,
                                      cost=_question_cost)
    finally:
        if bar:
            bar.close()
        llm.close()
        if proxy:
            proxy.close()
    cases = [row for rows in per_question for row in rows]
    arms = summarize_arms(cases, options)
    original = arms.get("original", {}).get("contains", 0.0)
    return {
        "model": options.model,
        "base_url": options.base_url,
        "proxy_url": options.proxy_url,
        "duration_s": round(time.time() - started, 2),
        "readers": len(readers),
        "concurrency": len(slots),  # questions asked side by side; the results do not depend on it
        # llama.cpp's answers at temperature 0 depend on its thread count: recorded with them.
        "reader_threads": getattr(readers[0], "threads", None),
        # Read first: the deltas below mean something only when the reader is competent.
        "original_accuracy": original,
        "competence_floor": options.competence_floor,
        "reader_competent": bool(cases) and original >= options.competence_floor,
        "arms": arms,
        "cases": cases,
    }


def reader_work(scenarios: list[Scenario], limit: int | None = None) -> list[tuple[Scenario, Probe]]:
    """Every (scenario, probe) a reader is asked, at most ``limit`` per family."""
    taken: dict[str, int] = {}
    out = []
    for s in scenarios:
        for p in s.probes:
            if not p.reader_answers or (limit is not None and taken.get(s.family, 0) >= limit):
                continue
            taken[s.family] = taken.get(s.family, 0) + 1
            out.append((s, p))
    return out


def _question_cost(item: tuple[Scenario, Probe]) -> float:
    """What asking a question costs a reader, roughly: the characters of its tool outputs,
    capped where a prompt stops fitting a small reader (longer originals are refused after
    tokenizing, but their compressed arms are long too)."""
    s, _ = item
    return min(sum(len(o) for o in s.tool_outputs()), 40_000)


def _ask_probe(s: Scenario, probe: Probe, options: LLMOptions, llm: Any, proxy: ChatEndpoint | None,
               core: ExchangeCore, compressing: threading.Lock) -> list[dict[str, Any]]:
    """One question in every arm, on one reader, in the order original, compressed,
    compressed + retrieve: each later prompt shares a prefix with the one before, which a
    local reader's prompt cache reuses. The first request is processed from scratch
    (``forget``), so the answers do not depend on the question asked before."""
    case_id = f"{s.id}/{probe.kind}/{probe.question}"
    rows = []

    def record(arm: str, ans: Answer) -> None:
        rows.append({"arm": arm, "case": case_id, "family": s.family, "question": probe.question,
                     "expected": probe.expected or list(probe.answers), "split": s.meta.get("split"),
                     **_scores(ans, probe),
                     **{k: v for k, v in asdict(ans).items() if k != "tool_calls"}})

    body = _body(options, s.openai_messages(probe), answer_budget(probe, options.max_tokens))
    forget = getattr(llm, "forget", None)
    if forget:
        forget()
    record("original", ask(llm, body))
    with compressing:
        core.pipeline.memo = CompressionMemo(read_store=False)  # judge each question on its own compressed form
        ex = start(core, body, OPENAI_CHAT, OPTIMIZE, copy_body=True)
    if ex.result is None:  # a compression crash is a scored failure of both compressed arms
        failed = Answer(error=f"compress failed: {ex.compression_error}")
        record("compressed", failed)
        record("compressed_retrieve", failed)
    else:
        # What the reader sees in view: the compressed body, no tool offered.
        plain = ask(llm, ex.result.body)
        record("compressed", plain)
        # Without markers no tool is offered: the request is the compressed arm's, byte for
        # byte, and a temperature-0 reader answers it the same, so it is not asked twice.
        record("compressed_retrieve", ask_exchange(llm, ex, core) if ex.injected else plain)
    if proxy is not None:
        record("proxy", ask(proxy, body))
    return rows


def _progress_bar(total: int, desc: str, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="q", file=sys.stderr)
