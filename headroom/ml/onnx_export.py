"""Export MiniLM (a sentence-transformers checkpoint) to the files the onnxruntime path reads.

Run in a subprocess (``python -m headroom.ml.onnx_export SRC DST``) so the process that
asked for it never imports torch: keeping torch out of proxy workers is the point
(issue 26, ~650 MB per worker with torch, see docs/proxy.md "RSS").

What it writes into DST (a fresh directory):

- ``encoder.onnx`` + ``encoder.data``: the transformer from *input embeddings* to the
  last hidden state, its weights in a separate file that onnxruntime memory-maps (file
  pages: shared by every worker through the page cache, not copied into each). The
  word-embedding lookup is left out of the graph on purpose: that table is half the
  model (30522 x 384 fp32 = 47 MB) and a question touches a few dozen of its rows;
- ``word_embeddings.npy``: that table, which the runtime memory-maps, so only the rows
  of tokens actually seen become resident;
- ``tokenizer.json`` (copied) and ``meta.json`` (pooling, sequence limit, checks).

Only mean pooling is supported (what all-MiniLM-L6-v2 uses); any other pooling
configuration is refused, and the caller falls back to sentence-transformers.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

FORMAT_VERSION = 2
OPSET = 17


class ExportRefused(RuntimeError):
    """The checkpoint is not one the onnxruntime path reproduces exactly."""


def pooling_config(src: Path) -> dict:
    """Check the sentence-transformers pipeline is Transformer -> mean Pooling [-> Normalize]."""
    modules = json.loads((src / "modules.json").read_text())
    kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
    if kinds[:2] != ["Transformer", "Pooling"] or set(kinds[2:]) - {"Normalize"}:
        raise ExportRefused(f"unsupported sentence-transformers modules {kinds}")
    pooling_dir = next(m["path"] for m in modules if m["type"].endswith("Pooling"))
    pooling = json.loads((src / pooling_dir / "config.json").read_text())
    others = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v and k != "pooling_mode_mean_tokens"]
    if not pooling.get("pooling_mode_mean_tokens") or others:
        raise ExportRefused(f"only mean pooling is exported, not {pooling}")
    return pooling


def export(src: Path, dst: Path) -> None:
    import numpy as np
    import torch
    from transformers import AutoModel

    pooling_config(src)
    bert_config = json.loads((src / "sentence_bert_config.json").read_text())
    model = AutoModel.from_pretrained(str(src)).eval()

    class Encoder(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module):
            super().__init__()
            self.inner = inner

        def forward(self, inputs_embeds, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            return self.inner(inputs_embeds=inputs_embeds, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    hidden = model.config.hidden_size
    # Two rows of different lengths, so the traced graph handles padding and batches.
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
    example = (torch.randn(2, 4, hidden), mask, torch.zeros_like(mask))
    dst.mkdir(parents=True, exist_ok=False)
    axes = {"batch": 0, "tokens": 1}
    dynamic = {name: {i: n for n, i in axes.items()}
               for name in ("inputs_embeds", "attention_mask", "token_type_ids", "last_hidden_state")}
    traced = dst / "traced.onnx"
    with torch.inference_mode():
        torch.onnx.export(Encoder(model), example, str(traced), opset_version=OPSET,
                          input_names=["inputs_embeds", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state"], dynamic_axes=dynamic, dynamo=False)
    import onnx

    onnx.save_model(onnx.load(str(traced)), str(dst / "encoder.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="encoder.data", size_threshold=1024)
    traced.unlink()
    table = model.get_input_embeddings().weight.detach().float().numpy()
    np.save(dst / "word_embeddings.npy", np.ascontiguousarray(table, dtype=np.float32))
    shutil.copy2(src / "tokenizer.json", dst / "tokenizer.json")
    meta = {"format": FORMAT_VERSION, "source": str(src), "hidden_size": hidden,
            "max_seq_length": int(bert_config.get("max_seq_length", 256)),
            "pad_token_id": int(model.config.pad_token_id or 0), "pooling": "mean", "normalize": True}
    (dst / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m headroom.ml.onnx_export SRC_MODEL_DIR DST_DIR", file=sys.stderr)
        return 2
    try:
        export(Path(argv[0]), Path(argv[1]))
    except ExportRefused as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
