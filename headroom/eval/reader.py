"""A reader model that needs no server: a local instruction model answers in-process.

``load_reader(PATH, device)`` returns an object with the same two methods the HTTP
runner's :class:`~headroom.eval.llm.ChatEndpoint` has — ``complete(body) -> dict`` in
the OpenAI Chat Completions response shape, and ``close()`` — so the runner, its
``headroom_retrieve`` loop and its scoring are the same whether the reader is a server
or a file on disk.

- ``PATH`` a ``.gguf`` file: llama.cpp through ``xllamacpp`` (prebuilt CPU/GPU wheels,
  the ``reader`` extra); its built-in OpenAI handler applies the model's chat template
  and parses tool calls.
- ``PATH`` a transformers directory (``config.json`` + tokenizer): ``AutoModelForCausalLM``
  with the tokenizer's chat template; greedy decoding; a tool call is read from the text
  (``<tool_call>{...}</tool_call>`` or a bare ``{"name": ..., "arguments": ...}`` object).

A prompt longer than the reader's context window is not truncated (that would hide facts
from the reader and blame the compressor): the request fails and is scored as a miss
with the reason.

On a CPU a GGUF reader is loaded as a :class:`~headroom.eval.reader_pool.ReaderPool` of
single-thread copies, one per usable core (at most 4), which the runner asks whole
questions side by side (see :mod:`headroom.eval.reader_pool` for why and what stays the
same).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from .reader_pool import ReaderPool, split_cores, usable_cores

DEFAULT_GGUF_CONTEXT = 8192


class ReaderContextExceeded(RuntimeError):
    pass


def load_reader(path: str | Path, device: str = "cpu", *, context: int | None = None, verbose: bool = False,
                workers: int | None = None) -> Any:
    """A local reader for ``path`` (a .gguf file or a transformers model directory);
    llama.cpp logs only when ``verbose``. A GGUF file on the CPU gives ``workers`` copies
    sharing the usable cores (default: one single-thread copy per core, at most 4); on
    CUDA one copy. A transformers directory gives one reader (torch threads itself)."""
    if problem := reader_problem(path):
        raise ValueError(problem)
    p = Path(path)
    if p.is_file() and p.suffix.lower() == ".gguf":
        ctx = context or DEFAULT_GGUF_CONTEXT
        if device == "cuda":
            return GGUFReader(p, device, ctx, verbose=verbose)
        n, threads = split_cores(usable_cores(), workers)
        readers = [GGUFReader(p, device, ctx, verbose=verbose, threads=threads) for _ in range(n)]
        return readers[0] if n == 1 else ReaderPool(readers)
    return TransformersReader(p, device, context)


def reader_problem(path: str | Path) -> str | None:
    """Why ``path`` is no reader (neither a .gguf file nor a transformers model directory),
    or None: asked before a run's compression, so a mistyped path fails at once."""
    p = Path(path)
    if (p.is_file() and p.suffix.lower() == ".gguf") or (p.is_dir() and (p / "config.json").exists()):
        return None
    return f"--reader {p}: expected a .gguf file or a transformers model directory with config.json"


def _response(model: str, text: str, tool_calls: list[dict[str, Any]], prompt_tokens: int,
              completion_tokens: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text if not tool_calls else (text or None)}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": f"chatcmpl-local-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def parse_tool_calls(text: str, tool_names: set[str]) -> tuple[str, list[dict[str, Any]]]:
    """(remaining text, OpenAI tool_calls) from a model's raw output.

    Accepts the forms instruction models are trained to emit: ``<tool_call>{json}</tool_call>``
    (Qwen, Hermes) or a bare JSON object with ``name`` and ``arguments``/``parameters``
    (Llama 3). Only objects naming one of ``tool_names`` count.
    """
    calls: list[dict[str, Any]] = []
    spans: list[tuple[int, int]] = []
    decoder = json.JSONDecoder()
    i = 0
    while True:
        start = text.find("{", i)
        if start < 0:
            break
        try:
            obj, end = decoder.raw_decode(text, start)
        except ValueError:
            i = start + 1
            continue
        i = end
        if not isinstance(obj, dict) or obj.get("name") not in tool_names:
            continue
        args = obj.get("arguments", obj.get("parameters", {}))
        calls.append({"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                      "function": {"name": obj["name"],
                                   "arguments": args if isinstance(args, str) else json.dumps(args)}})
        spans.append((start, end))
    rest = text
    for start, end in reversed(spans):
        rest = rest[:start] + rest[end:]
    rest = rest.replace("<tool_call>", "").replace("</tool_call>", "").strip()
    return rest, calls


def _plain_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages every chat template accepts: string content, tool calls and tool results as text.

    Templates differ in how (and whether) they render ``tool_calls`` and ``tool`` roles; the
    text forms below are the ones :func:`parse_tool_calls` reads back, so a model sees its
    own earlier calls the way it wrote them.
    """
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
        content = content or ""
        role = m.get("role", "user")
        if role == "assistant" and m.get("tool_calls"):
            calls = "\n".join(
                "<tool_call>" + json.dumps({"name": c["function"]["name"],
                                            "arguments": json.loads(c["function"].get("arguments") or "{}")})
                + "</tool_call>" for c in m["tool_calls"])
            content = f"{content}\n{calls}".strip()
        if role == "tool":
            role, content = "user", f"<tool_response>\n{content}\n</tool_response>"
        if out and out[-1]["role"] == role and role == "user":  # some templates require alternation
            out[-1]["content"] += "\n\n" + content
            continue
        out.append({"role": role, "content": content})
    return out


class TransformersReader:
    """A causal LM directory run with transformers (CPU or CUDA), greedy decoding."""

    def __init__(self, path: Path, device: str, context: int | None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.name = path.name
        self.device = "cuda" if device == "cuda" else "cpu"
        self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        dtype = torch.bfloat16 if self.device == "cuda" else torch.float32
        self.model = AutoModelForCausalLM.from_pretrained(str(path), dtype=dtype).to(self.device).eval()
        self.context = context or int(getattr(self.model.config, "max_position_embeddings", 4096))
        self._lock = threading.Lock()

    def _prompt_ids(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> list[int]:
        plain = _plain_messages(messages)
        if self.tokenizer.chat_template:
            ids = self.tokenizer.apply_chat_template(plain, tools=tools or None, add_generation_prompt=True,
                                                     tokenize=True, return_dict=False)
            return list(ids["input_ids"] if isinstance(ids, dict) else ids)
        # No template: a plain transcript, tools described up front.
        head = ""
        if tools:
            head = ("You may call a tool by answering with <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>.\n"
                    "Tools: " + json.dumps([t.get("function", t) for t in tools]) + "\n\n")
        text = head + "".join(f"{m['role']}: {m['content']}\n" for m in plain) + "assistant:"
        return self.tokenizer(text)["input_ids"]

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        import torch

        tools = body.get("tools")
        ids = self._prompt_ids(body.get("messages", []), tools)
        max_new = int(body.get("max_tokens") or 256)
        if len(ids) + max_new > self.context:
            raise ReaderContextExceeded(f"prompt of {len(ids)} tokens + {max_new} to generate exceeds the reader's "
                                        f"context of {self.context}")
        with self._lock, torch.inference_mode():
            inp = torch.tensor([ids], device=self.device)
            out = self.model.generate(inp, attention_mask=torch.ones_like(inp), max_new_tokens=max_new,
                                      do_sample=False, pad_token_id=self.tokenizer.pad_token_id
                                      if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id)
        new = out[0, len(ids):].tolist()
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        names = {t.get("function", {}).get("name") for t in tools or []}
        text, calls = parse_tool_calls(text, names) if names else (text, [])
        return _response(self.name, text, calls, len(ids), len(new))

    def close(self) -> None:
        self.model = None


class GGUFReader:
    """A GGUF file run by llama.cpp in-process (xllamacpp); its OpenAI handler does the rest."""

    def __init__(self, path: Path, device: str, context: int, *, verbose: bool = False, threads: int | None = None):
        try:
            import xllamacpp
        except ImportError as exc:  # pragma: no cover - depends on the optional extra
            raise ImportError("a .gguf reader needs xllamacpp: pip install 'headroom[reader]'") from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = context
        params.use_jinja = True  # the model's own chat template, tool calls included
        params.n_gpu_layers = -1 if device == "cuda" else 0
        params.warmup = False
        # llama.cpp keeps earlier prompts' states in RAM (8 GiB by default) to restore the best
        # match for a later one; the runner reuses only the prompt just before (a question's
        # arms in turn, the cache forgotten between questions), so that copy is memory only
        # (6.5 GB peak on the smoke suite with it).
        params.cache_ram_mib = 0
        if threads:  # prompt processing and generation alike; llama.cpp's default counts the machine's cores
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
        if not verbose:
            # llama.cpp's load report and per-request slot timings would bury the progress bar.
            params.verbosity = -1
            params.show_timings = False
        self.name = path.name
        self.context = context
        self.threads = threads
        self._fresh = False
        self._server = xllamacpp.Server(params)

    def forget(self) -> None:
        """Process the next request from scratch, reusing nothing of the prompt cache.

        llama.cpp keeps the last prompt's KV cache and reuses the longest shared prefix;
        at temperature 0 the answer can still shift with how much was reused (the rest is
        processed in differently aligned batches). The runner calls this before each
        question's first request, so an answer depends on its question alone, not on which
        question this reader answered before."""
        self._fresh = True

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        req = {k: v for k, v in body.items() if k in ("messages", "tools", "max_tokens", "temperature")}
        if self._fresh:
            req["cache_prompt"] = False
            self._fresh = False
        res = self._server.handle_chat_completions(req)
        if isinstance(res, (str, bytes)):
            res = json.loads(res)
        if not isinstance(res, dict) or "error" in res or "choices" not in res:
            err = res.get("error") if isinstance(res, dict) else res
            message = err.get("message") if isinstance(err, dict) else err
            if "context" in str(message).lower():
                raise ReaderContextExceeded(str(message))
            raise RuntimeError(f"llama.cpp: {message}")
        return res

    def close(self) -> None:
        self._server = None
