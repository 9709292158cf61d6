"""Prompt-processing speed of a GGUF reader under llama.cpp settings, on one prompt.

    python benchmarks/reader_settings.py MODEL.gguf [SETTINGS_JSON]

The prompt is the smoke suite's first ``metrics`` question in full (5 718 tokens for
SmolLM2-135M), sent as the runner sends it. ``SETTINGS_JSON`` maps a label to
``xllamacpp.CommonParams`` fields (``a__b`` for ``a.b``), e.g.
``'{"1 thread": {"cpuparams__n_threads": 1, "cpuparams_batch__n_threads": 1},
"no flash attention": {"flash_attn_type": 0}, "ubatch 1024": {"n_ubatch": 1024},
"kv q8_0": {"cache_type_k": 8, "cache_type_v": 8}}'``; the default runs llama.cpp's
defaults. Each setting loads a fresh reader (nothing cached) and prints wall and
CPU-seconds, llama.cpp's own tokens/s for the prompt and the answer, and the answer's
start (settings that change the arithmetic can change it).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from headroom.eval.llm import LLMOptions, _body, answer_budget, reader_work
from headroom.eval.scenarios import build_suite


def process_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def one(model: str, request: dict, label: str, fields: dict) -> None:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.n_ctx = 8192
    params.use_jinja = True
    params.n_gpu_layers = 0
    params.warmup = False
    params.verbosity = -1
    for key, value in fields.items():
        *path, last = key.split("__")
        obj = params
        for part in path:
            obj = getattr(obj, part)
        setattr(obj, last, value)
    server = xllamacpp.Server(params)
    c, t = process_cpu_s(), time.time()
    res = server.handle_chat_completions(request)
    wall, cpu = time.time() - t, process_cpu_s() - c
    tm = res.get("timings", {})
    answer = (res["choices"][0]["message"].get("content") or "")[:48]
    print(f"{label:24s} {wall:6.1f} s {cpu:6.1f} CPU-s  prompt {tm.get('prompt_n')} tok "
          f"{tm.get('prompt_per_second', 0):6.1f} tok/s  answer {tm.get('predicted_n')} tok "
          f"{tm.get('predicted_per_second', 0):5.1f} tok/s  {answer!r}  load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> int:
    model = sys.argv[1]
    settings = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {"llama.cpp defaults": {}}
    scenario, probe = reader_work(build_suite("smoke", ["metrics"]))[0]
    body = _body(LLMOptions("local", "reader"), scenario.openai_messages(probe), answer_budget(probe, 256))
    request = {k: v for k, v in body.items() if k != "model"}
    for label, fields in settings.items():
        one(model, request, label, fields)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
