"""Build small LLMLingua-2-shaped checkpoints offline (tests, benchmarks, smoke checks).

The real checkpoints cannot be downloaded here, so we train a word-piece/unigram
tokenizer on a small corpus and save a randomly initialised token classifier of the
same architecture. The real loading and inference code then runs unchanged.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_CORPUS = [
    "The deployment failed because the database migration timed out after 30 seconds.",
    "User user_42 requested a refund for order ORD-991 on 2024-03-01.",
    "Error: connection refused while connecting to 10.0.0.12:5432 from api-server.",
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Please review the pull request and let me know if the tests pass on main.",
    "Traceback (most recent call last): File /app/server.py line 12 in handler",
    "We measured latency of 120 ms per request with a p99 of 480 ms under load.",
    "The meeting notes say the team agreed to ship the release on Friday afternoon.",
    "Warning: disk usage on /var/lib/postgres reached 91 percent of capacity.",
    "Configuration loaded from config.yaml with 14 services and 3 regions enabled.",
]


def _corpus(extra: list[str] | None) -> list[str]:
    lines = DEFAULT_CORPUS + (extra or [])
    # Repeat with variations so the trainer sees enough pairs to build a vocabulary.
    return [f"{line} {i}" for i in range(20) for line in lines]


def build_xlm_roberta(directory: str | Path, *, hidden: int = 32, layers: int = 2, heads: int = 2,
                      intermediate: int = 64, vocab: int = 2000, corpus: list[str] | None = None,
                      seed: int = 0) -> Path:
    """An ``XLMRobertaForTokenClassification`` (514 positions, 2 labels) with a unigram tokenizer."""
    import torch
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import (
        PreTrainedTokenizerFast,
        XLMRobertaConfig,
        XLMRobertaForTokenClassification,
    )

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(_corpus(corpus), trainers.UnigramTrainer(vocab_size=vocab, special_tokens=special,
                                                                     unk_token="<unk>"))
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   pad_token="<pad>", mask_token="<mask>", cls_token="<s>", sep_token="</s>",
                                   model_max_length=512)
    fast.save_pretrained(out)
    torch.manual_seed(seed)
    config = XLMRobertaConfig(vocab_size=tok.get_vocab_size(), hidden_size=hidden, num_hidden_layers=layers,
                              num_attention_heads=heads, intermediate_size=intermediate,
                              max_position_embeddings=514, pad_token_id=tok.token_to_id("<pad>"),
                              bos_token_id=tok.token_to_id("<s>"), eos_token_id=tok.token_to_id("</s>"),
                              num_labels=2)
    config.headroom_untrained = True  # random weights: the eval labels its results "untrained"
    XLMRobertaForTokenClassification(config).save_pretrained(out)
    return out


def build_bert(directory: str | Path, *, hidden: int = 32, layers: int = 2, heads: int = 2,
               intermediate: int = 64, vocab: int = 2000, corpus: list[str] | None = None, seed: int = 0) -> Path:
    """A ``BertForTokenClassification`` (512 positions, 2 labels) with a word-piece tokenizer."""
    import torch
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import BertConfig, BertForTokenClassification, PreTrainedTokenizerFast

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=False)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(_corpus(corpus), trainers.WordPieceTrainer(vocab_size=vocab, special_tokens=special))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]", model_max_length=512)
    fast.save_pretrained(out)
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=hidden, num_hidden_layers=layers,
                        num_attention_heads=heads, intermediate_size=intermediate, max_position_embeddings=512,
                        pad_token_id=tok.token_to_id("[PAD]"), num_labels=2)
    config.headroom_untrained = True  # random weights: the eval labels its results "untrained"
    BertForTokenClassification(config).save_pretrained(out)
    return out
