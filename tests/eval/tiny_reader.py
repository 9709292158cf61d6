"""A tiny random causal LM saved to a directory, to prove the in-process reader's wiring.

Its answers are noise; what the tests check is that every probe goes through all three
arms, tokens are counted, and the report leads with original-context accuracy.
"""

from __future__ import annotations

from pathlib import Path

# A minimal chat template: role headers, tools listed in the system turn when offered.
CHAT_TEMPLATE = (
    "{% if tools %}<|system|>tools: {{ tools | tojson }}\n{% endif %}"
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def build_tiny_causal_lm(directory: str | Path, texts: list[str], *, vocab: int = 1500, hidden: int = 32,
                         layers: int = 2, context: int = 32768) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    specials = ["<unk>", "<pad>", "</s>", "<|system|>", "<|user|>", "<|assistant|>", "<|tool|>"]
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=vocab, special_tokens=specials,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    from tokenizers import decoders

    tok.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="</s>")
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out)
    config = LlamaConfig(vocab_size=len(fast), hidden_size=hidden, intermediate_size=hidden * 2,
                         num_hidden_layers=layers, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=context, pad_token_id=fast.pad_token_id,
                         eos_token_id=fast.eos_token_id, bos_token_id=None, tie_word_embeddings=True)
    import torch

    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(out)
    return out
