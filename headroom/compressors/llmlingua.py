"""LLMLingua-2 prose compression, run directly with transformers.

LLMLingua-2 is a token classifier: for every sub-word token it predicts the probability
that the token should be *kept* (label 1). We average that probability over each word,
add what the heuristics know (identifiers, numbers, paths, URLs, error words and the
question's anchors are always kept; words the question names get a boost) and keep the
best words up to a rate that depends on the content type.

Why transformers directly rather than the ``llmlingua`` package: the package picks its
word splitter from the model *directory name*, pads every chunk to 512 tokens, needs
tiktoken's BPE file at run time and imports in about 4 s; the inference itself is a
forward pass and a mean per word. Doing it here keeps loading under our registry
(explicit paths, no downloads, one copy per device), batches chunks of any length, and
lets the deadline be checked between batches.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..ml.registry import ModelLocation, get_model, resolve, resolve_device
from ..relevance.bm25 import tokenize
from .base import Compressed, CompressInput
from .detect import ContentType, detect_content_type

if TYPE_CHECKING:
    from ..config import LLMLinguaConfig
    from ..query.anchors import Anchors

log = logging.getLogger("headroom.llmlingua")

XLM_ROBERTA = "llmlingua-2-xlm-roberta-large"
MBERT = "llmlingua-2-bert-base-multilingual"
KEEP_LABEL = 1

# A fast tokenizer keeps its truncation and padding settings on the shared Rust object and
# each call resets them, so two threads encoding at once (one padded batch, one plain word
# split) corrupt each other's batch ("expected sequence of length 509, got 89"). Encoding
# takes milliseconds: one lock for every LLMLingua tokenizer.
_TOKENIZER_LOCK = threading.Lock()
_WORD = re.compile(r"\S+")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_PATH = re.compile(r"[\w.-]+/[\w./-]+|^~?/[\w.-]")
_NUMBER = re.compile(r"\d")
# Identifier-like: snake_case, camelCase, dotted names, ACRONYMS (hex ids contain digits).
_IDENT = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|[A-Za-z]\.[A-Za-z]|^[A-Z]{2,}[-_]?\w*$")
_ERROR_WORDS = frozenset(
    ["error", "errors", "exception", "failed", "failure", "fail", "fatal", "panic", "traceback", "warning", "warn", "denied", "refused", "timeout", "timed", "crash", "crashed", "abort", "aborted", "critical", "invalid", "missing", "unauthorized", "forbidden", "cannot", "can't", "not", "never", "no"]
)
_STRIP = ".,;:!?()[]{}\"'`<>"


def force_kept(word: str) -> bool:
    """Words no keep probability may drop: they are what answers are made of."""
    bare = word.strip(_STRIP)
    if not bare:
        return False
    return bool(
        _NUMBER.search(bare)
        or _URL.match(bare)
        or _PATH.search(bare)
        or _IDENT.search(bare)
        or bare.lower() in _ERROR_WORDS
    )


def family_for(model_name: str, model_path: str | None = None) -> str:
    """Registry name of the checkpoint: its config's ``model_type`` when a path is given."""
    if model_path:
        try:
            model_type = json.loads((Path(model_path) / "config.json").read_text()).get("model_type", "")
        except (OSError, ValueError):
            model_type = ""
        if model_type:
            return MBERT if model_type == "bert" else XLM_ROBERTA
    return MBERT if "bert-base-multilingual" in model_name.lower() else XLM_ROBERTA


@dataclass
class _Loaded:
    tokenizer: Any
    model: Any
    max_tokens: int  # content tokens per chunk, special tokens excluded


def _load(location: ModelLocation, device: str) -> _Loaded:
    from transformers import AutoModelForTokenClassification, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    tokenizer = AutoTokenizer.from_pretrained(str(location.path))
    if not getattr(tokenizer, "is_fast", False):
        raise RuntimeError(f"{location.path}: LLMLingua-2 needs a fast tokenizer (tokenizer.json) for word alignment")
    model = AutoModelForTokenClassification.from_pretrained(str(location.path))
    if device.startswith("cuda"):
        model = model.half()  # the classifier is robust to fp16 and it halves memory and latency
    model = model.to(device).eval()
    positions = int(getattr(model.config, "max_position_embeddings", 512))
    # RoBERTa-family position ids start after the padding index, so 514 positions hold 512 tokens.
    if model.config.model_type in ("xlm-roberta", "roberta"):
        positions -= 2
    limit = min(positions, 512, int(tokenizer.model_max_length or 512))
    inference_thread(device).submit(_warm_forward, tokenizer, model, device).result()
    return _Loaded(tokenizer, model, limit - tokenizer.num_special_tokens_to_add())


_threads: dict[str, ThreadPoolExecutor] = {}
_threads_lock = threading.Lock()


def inference_thread(device: str) -> ThreadPoolExecutor:
    """The one long-lived thread that runs every forward pass on ``device``.

    Callers come from many threads (the router gives each compression a thread of its own,
    transforms/deadline.py). On an H100 a forward pass in a thread that had never run one
    took 150-250 ms instead of 30-45 ms for the tiny model, and up to 1.9 s the first time
    after start-up (per-thread CUDA library state), so the proxy's first request passed the
    1.5 s budget and fell back (docs/gpu.md). Inference was serialised by a lock already;
    one thread per device serialises it the same way and keeps that state warm.
    """
    with _threads_lock:
        pool = _threads.get(device)
        if pool is None:
            pool = _threads[device] = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"llmlingua-{device}")
        return pool


def _forward(model: Any, inputs: dict[str, Any], device: str) -> list[list[float]]:
    import torch

    with torch.inference_mode():
        logits = model(**{k: v.to(device) for k, v in inputs.items()}).logits
        return torch.softmax(logits.float(), dim=-1)[..., KEEP_LABEL].cpu().tolist()  # type: ignore[no-any-return]


def _warm_forward(tokenizer: Any, model: Any, device: str) -> None:
    """One tiny forward pass at load time, on the inference thread.

    On CUDA the first forward after ``.to("cuda")`` creates the cuBLAS state and loads
    kernels; doing it here moves that fixed cost to start-up (``warm_up()``). It is not
    the whole story: on an H100 the proxy's first request still missed the router's 2 s
    deadline with it (later requests: 55-61 ms), and in a fresh process the first real
    call after ``warm_up()`` cost ~270-335 ms against ~35 ms after; a full-size warm-up
    batch (8 x 512 tokens) changed neither (docs/gpu.md). Two words cost milliseconds
    even for the large model on a CPU.
    """
    import torch

    with _TOKENIZER_LOCK:
        enc = tokenizer([["warm", "up"]], is_split_into_words=True, return_tensors="pt")
    with torch.inference_mode():
        model(**{k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask")})
    if device.startswith("cuda"):
        torch.cuda.synchronize()


class DeadlineExceeded(Exception):
    pass


def _in_a_thread(fn: Any, arg: Any) -> Any:
    """``fn(arg)`` on a new thread, as the router runs each compression (transforms/deadline.py);
    an exception comes back as its text (warm-up reports, never raises)."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(fn(arg))
        except Exception as exc:  # noqa: BLE001 - logged by warm_up as the outcome
            out.append(f"error: {type(exc).__name__}: {exc}")

    t = threading.Thread(target=run, name="headroom-compress-warm-up", daemon=True)
    t.start()
    t.join()
    return out[0] if out else "error: no result"


_WARM_SENTENCES = (
    "the review covered why the nightly export slowed down after the schema change in week {n}",
    "several people argued that the cache should be rebuilt before anyone touched the indexes again",
    "in the end the group agreed to roll back on thursday and to measure the export for {n} more days",
    "a note was added that customers in the second region had seen timeouts during the same window",
)


def _warm_prose(words: int) -> str:
    """Meeting-note prose of about ``words`` words (numbers vary, so no two lines are equal)."""
    out: list[str] = []
    n = 0
    while sum(len(s.split()) for s in out) < words:
        out.append(_WARM_SENTENCES[n % len(_WARM_SENTENCES)].format(n=n).capitalize() + ".")
        n += 1
    return " ".join(out)


class LLMLinguaCompressor:
    """The ContentRouter's prose compressor when ``config.llmlingua.enabled``."""

    name = "llmlingua2"

    def __init__(self, config: LLMLinguaConfig):
        self.config = config
        self.family = family_for(config.model_name, config.model_path)
        # Fail here, once, with the registry's instructions, rather than at 0 % later.
        self.location = resolve(self.family, config.model_path)
        self.device = resolve_device(config.device)

    # --- model --------------------------------------------------------------------------

    def _model(self) -> _Loaded:
        return get_model(self.family, _load, self.device, self.location.path)

    def warm_up(self) -> None:
        """Load the model, then compress prose through the path a request takes.

        Loading and a two-word forward were not enough: on an H100 the proxy's first
        request still missed the router's 2 s deadline and later ones took ~35-60 ms
        (docs/gpu.md). What a first request pays beyond the load is lazy work along its
        path: the hand-off from a compression thread, the padded batch encoding, forward
        passes of full-size shapes on the inference thread (CUDA loads kernels and picks
        GEMM algorithms on first use of a shape), the percentile selection, the cl100k
        weights. So warm-up runs :meth:`compress` itself, in a thread of its own (as the
        router runs each compression), on a full batch of chunks and on a short text (two
        padded shapes); on a CPU one short text (a full batch of XLM-R-large there takes
        seconds, and CPUs have no lazy kernels).
        """
        self._model()
        from ..config import HeadroomConfig
        from ..tokens import counter_for, get_encoding

        get_encoding("cl100k_base")  # the selection's token weights (_above_threshold); ~0.1-0.5 s on first use
        m = self._model()
        config = HeadroomConfig(llmlingua=self.config.model_copy(update={"min_tokens": 0}))
        full = self.config.batch_size * m.max_tokens if self.device.startswith("cuda") else 0
        for words in (w for w in (full, 300) if w):
            t0 = time.perf_counter()
            inp = CompressInput(_warm_prose(words), config, counter_for("gpt-4o"), query="what was decided?")
            got = _in_a_thread(self._warm_compress, inp)
            log.info("llmlingua2 warm-up on %s: %d words through the request path in %.0f ms (%s)", self.device,
                     words, (time.perf_counter() - t0) * 1000, got if isinstance(got, str) else "compressed")

    def _warm_compress(self, inp: CompressInput) -> Compressed | None:
        """``compress`` without the router's deadline (warm-up may take what it needs)."""
        return self.compress(inp, budget_ms=600_000)

    def keep_probabilities(self, words: list[str], deadline: float | None = None) -> list[float]:
        """P(keep) per word: label-1 probability averaged over the word's sub-tokens."""
        if not words:
            return []
        m = self._model()
        with _TOKENIZER_LOCK:
            split = m.tokenizer(words, add_special_tokens=False)["input_ids"]
        lengths = [max(1, len(ids)) for ids in split]
        chunks: list[tuple[int, int]] = []
        start, used = 0, 0
        for i, n in enumerate(lengths):
            if used + n > m.max_tokens and i > start:
                chunks.append((start, i))
                start, used = i, 0
            used += n
        chunks.append((start, len(words)))
        probs = [0.0] * len(words)
        bs = self.config.batch_size
        for b in range(0, len(chunks), bs):
            if deadline is not None and time.perf_counter() > deadline:
                raise DeadlineExceeded(f"deadline passed after {b} of {len(chunks)} chunks")
            batch = chunks[b : b + bs]
            with _TOKENIZER_LOCK:
                enc = m.tokenizer([words[s:e] for s, e in batch], is_split_into_words=True, truncation=True,
                                  max_length=m.max_tokens + m.tokenizer.num_special_tokens_to_add(),
                                  padding=True, return_tensors="pt")
            inputs = {k: v for k, v in enc.items() if k in ("input_ids", "attention_mask")}
            keep = inference_thread(self.device).submit(_forward, m.model, inputs, self.device).result()
            for row, (s, _e) in enumerate(batch):
                sums: dict[int, list[float]] = {}
                for pos, wid in enumerate(enc.word_ids(row)):
                    if wid is not None:
                        sums.setdefault(wid, []).append(keep[row][pos])
                for wid, vals in sums.items():
                    probs[s + wid] = sum(vals) / len(vals)
        return probs

    # --- selection ----------------------------------------------------------------------

    def compress_text(self, text: str, rate: float, anchors: Anchors | None = None, query: str = "",
                      deadline: float | None = None) -> tuple[str, int, int]:
        """Keep about ``rate`` of the words of ``text``; returns (text, words before, after).

        Line breaks survive (a line whose words all go disappears), so logs and lists keep
        their shape.
        """
        lines = text.split("\n")
        words: list[str] = []
        line_of: list[int] = []
        for li, line in enumerate(lines):
            for w in _WORD.findall(line):
                words.append(w)
                line_of.append(li)
        if not words:
            return text, 0, 0
        probs = self.keep_probabilities(words, deadline)
        query_terms = set(tokenize(query)) if query else set()
        forced = [force_kept(w) or bool(anchors and anchors.matches(w)) for w in words]
        # Forced words count as certain keeps, as the reference's force_tokens do.
        score = [1.0 if f else p for p, f in zip(probs, forced)]
        if query_terms:
            # Question-aware: a word the question uses is worth more than the classifier thinks.
            for i, w in enumerate(words):
                if query_terms.intersection(tokenize(w)):
                    score[i] += 0.5
        keep = {i for i in range(len(words)) if forced[i]} | set(self._above_threshold(words, score, rate))
        out_lines: dict[int, list[str]] = {}
        for i in sorted(keep):
            out_lines.setdefault(line_of[i], []).append(words[i])
        rendered = "\n".join(" ".join(out_lines[li]) for li in sorted(out_lines))
        return rendered, len(words), len(keep)

    def _above_threshold(self, words: list[str], score: list[float], rate: float) -> list[int]:
        """The words LLMLingua-2's reference (``llmlingua.PromptCompressor``) keeps at ``rate``.

        Its rule, followed exactly so results are comparable with the paper's numbers: each
        word's probability is repeated once per GPT tokenizer (cl100k) token of the word
        as the classifier's tokenizer spells it (XLM-R word pieces carry the "▁" prefix),
        the threshold is that distribution's ``int(100 * (1 - rate) + 1)``-th percentile, and
        a word is kept when its probability is above it (or equal, when the threshold is 1).
        One difference: the reference thresholds each 512-token chunk separately; we
        threshold the whole output once. tests/eval/test_llmlingua_conformance.py checks it.
        """
        if rate >= 1:  # the reference returns everything at rate 1
            return list(range(len(words)))
        import numpy as np

        from ..tokens import get_encoding

        enc = get_encoding("cl100k_base")
        prefix = "\u2581" if self.family == XLM_ROBERTA else ""
        weights = [len(enc.encode(prefix + w)) for w in words]
        expanded = np.repeat(np.asarray(score, dtype=np.float64), weights)
        threshold = float(np.percentile(expanded, min(100, int(100 * max(0.0, 1 - rate) + 1))))
        return [i for i, p in enumerate(score) if p > threshold or (threshold == 1.0 and p == threshold)]

    def _rate(self, ctype: ContentType, aggressiveness: float) -> float:
        cfg = self.config
        base = {ContentType.LOG: cfg.log_rate, ContentType.DIAGNOSTICS: cfg.log_rate, ContentType.CODE: cfg.code_rate,
                ContentType.JSON_ARRAY: cfg.json_rate, ContentType.JSON_OBJECT: cfg.json_rate}.get(ctype, cfg.rate)
        # Retrieval feedback: 0.5 is neutral; a tool whose outputs get retrieved a lot
        # (aggressiveness -> 0) keeps up to 25 % more words, one never retrieved 25 % fewer.
        return min(1.0, max(0.05, base * (1.25 - 0.5 * aggressiveness)))

    def _compress_json(self, data: Any, rate: float, anchors: Anchors | None, query: str,
                       deadline: float | None, counts: list[int]) -> Any:
        """Compress long string values in place; keys, numbers and structure stay exact."""
        if isinstance(data, dict):
            return {k: self._compress_json(v, rate, anchors, query, deadline, counts) for k, v in data.items()}
        if isinstance(data, list):
            return [self._compress_json(v, rate, anchors, query, deadline, counts) for v in data]
        if isinstance(data, str) and len(data.split()) >= 20:
            out, before, after = self.compress_text(data, rate, anchors, query, deadline)
            counts[0] += before
            counts[1] += after
            return out
        return data

    def compress(self, inp: CompressInput, budget_ms: float | None = None) -> Compressed | None:
        if inp.text_tokens() < self.config.min_tokens:
            return None
        router_ms = inp.config.router.timeout_ms
        # Leave a quarter of the router's deadline for the deterministic fallback.
        budget_ms = budget_ms or min(self.config.timeout_ms, router_ms * 0.75)
        deadline = time.perf_counter() + budget_ms / 1000
        ctype = detect_content_type(inp.text)
        rate = self._rate(ctype, inp.aggressiveness)
        try:
            if ctype in (ContentType.JSON_ARRAY, ContentType.JSON_OBJECT):
                counts = [0, 0]
                data = self._compress_json(json.loads(inp.text), rate, inp.anchors, inp.query, deadline, counts)
                if counts[0] == 0:
                    return None
                text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
                before, after = counts
            else:
                text, before, after = self.compress_text(inp.text, rate, inp.anchors, inp.query, deadline)
        except DeadlineExceeded as exc:
            return self._fallback(inp, f"llmlingua2 {exc}")
        if after >= before:
            return None
        return Compressed(text, before, after, f"{ctype.value}@{rate:.2f}",
                          summary=f"LLMLingua-2 kept {after}/{before} words.")

    def _fallback(self, inp: CompressInput, why: str) -> Compressed | None:
        """The deterministic TextCrusher path, used when the model misses its deadline."""
        try:
            from .text import TextCrusher
        except ImportError:
            return None
        result = TextCrusher().compress(inp)
        if result is None:
            return None
        result.strategy = f"fallback:{result.strategy}"
        result.summary = (f"{result.summary} ({why}; deterministic fallback)").strip()
        return result
