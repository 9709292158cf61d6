"""Build a tiny random SigLIP checkpoint (32-wide towers, 64x64 images, patch 16) offline.

The weights are random, so its signals mean nothing; what the tests check is that the
real loading (SiglipModel.from_pretrained, sentencepiece tokenizer, Pil image processor)
and inference code paths run end to end.
"""

from __future__ import annotations

from pathlib import Path

_SENTENCES = [
    "a picture containing written text", "a picture with no text at all",
    "a scanned document or a screenshot of a page", "a photograph of a real scene",
    "a busy, cluttered picture with many objects", "a simple picture with a plain background",
    "a picture full of tiny fine details", "a picture of a few large simple shapes",
    "the quick brown fox jumps over the lazy dog", "an image of a cat sitting on a red mat",
] * 20


def build_tiny_siglip(directory: Path) -> Path:
    import sentencepiece as spm
    import torch
    from transformers import SiglipConfig, SiglipImageProcessorPil, SiglipModel, SiglipTokenizer

    directory.mkdir(parents=True, exist_ok=True)
    corpus = directory / "corpus.txt"
    corpus.write_text("\n".join(_SENTENCES) + "\n")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(directory / "spiece"), vocab_size=120, hard_vocab_limit=False,
        model_type="unigram", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, minloglevel=2,
    )
    corpus.unlink()
    tokenizer = SiglipTokenizer(vocab_file=str(directory / "spiece.model"), model_max_length=16)
    tokenizer.save_pretrained(str(directory))
    torch.manual_seed(0)
    config = SiglipConfig(
        text_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
                     "vocab_size": len(tokenizer), "max_position_embeddings": 16, "projection_size": 32,
                     "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 1},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
                       "image_size": 64, "patch_size": 16},
    )
    SiglipModel(config).eval().save_pretrained(str(directory))
    SiglipImageProcessorPil(size={"height": 64, "width": 64}).save_pretrained(str(directory))
    (directory / "spiece.vocab").unlink(missing_ok=True)
    return directory
