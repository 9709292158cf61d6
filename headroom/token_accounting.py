"""Token accounting: what a conversation costs in tokens, per block and in total, before
and after the transforms, with each count taken once.

:class:`~headroom.tokens.TokenCounter` counts a text; this module counts a request. The
walk from a parsed request to its numbers lives here and nowhere else:

- ``block_tokens`` / ``message_tokens`` / ``conversation_tokens``: the count of a block,
  a message (with its per-message overhead) and of everything the transforms can change
  (system, messages, tool calls and results);
- the memo on the block: a count is remembered on the block for as long as its text is
  the very same string object (``known_tokens``, ``remember_tokens``), and the count of
  the text a block arrived with survives a stage replacing it (``set_block_text``,
  ``original_tokens``), so the stages that each need a count (input total, router,
  context budget, output total) count a large tool output once;
- ``model_counter``: the shared counter for a model, with the tokenizer correction of
  the provider that serves it (its adapter's ``TOKEN_FACTOR``);
- :class:`RequestTokens`: the request's "before" and "after" totals for the pipeline,
  leaving long texts to be counted while their compressor runs (``counted_later``).
"""

from __future__ import annotations

from .formats import token_factor
from .formats.model import Block, Conversation, Message
from .tokens import MESSAGE_OVERHEAD, LazyTokens, TokenCounter, counter_for, exact

# Texts at least this long (a few hundred tokens and up) are counted while their
# compressor runs (transforms/router.py) rather than before the transforms: BPE releases
# the GIL, so the count overlaps detection and compression; shorter texts cost less to
# count than to hand over. The pipeline's input total and the cache aligner's size check
# leave them for last for the same reason.
COUNT_ALONGSIDE_CHARS = 1024

# Key in ``Block.meta`` of the block's last token count: (counter, text object, tokens).
_TOKENS_KEY = "_tokens"
# The same for the text the block arrived with, once a stage has replaced it: the
# "tokens before" total reads it instead of counting the original again.
_ORIGINAL_KEY = "_tokens_original"


def model_counter(model: str | None) -> TokenCounter:
    """The shared counter for ``model``: tiktoken's encoding for the model, times the
    correction its provider's adapter declares (Claude: cl100k x 1.1)."""
    return counter_for(model, token_factor(model))


def block_tokens(block: Block, counter: TokenCounter) -> int:
    """Tokens of one block, counted at most once per text object (see the module doc).
    A block without text (an image, an opaque part) costs its ``token_text`` or the
    ``tokens`` estimate its parser recorded."""
    if block.text is not None:
        n = known_tokens(block, counter)
        if n is None:
            n = counter.count(block.text)
            remember_tokens(block, counter, n)
        return n
    tok = block.meta.get("token_text")
    if tok:
        return counter.count(tok)
    est = block.meta.get("tokens")
    return int(est) if est else 0


def known_tokens(block: Block, counter: TokenCounter) -> int | None:
    """The block's token count if some stage already took it for its current text."""
    cached = block.meta.get(_TOKENS_KEY)
    if cached is not None and cached[0] is counter and cached[1] is block.text:
        return exact(cached[2])
    return None


def counted_later(block: Block, counter: TokenCounter) -> bool:
    """A long text not counted yet: left for the router to take alongside compression
    (COUNT_ALONGSIDE_CHARS) rather than counted up front. Its count is one BPE call, exact
    or the sampled estimate's, so it overlaps the compressor's Python work."""
    text = block.text
    return text is not None and len(text) >= COUNT_ALONGSIDE_CHARS and known_tokens(block, counter) is None


def remember_tokens(block: Block, counter: TokenCounter, tokens: int | LazyTokens) -> None:
    """Record a count of the block's current text taken (or known) elsewhere; a
    LazyTokens is counted by the first reader."""
    block.meta[_TOKENS_KEY] = (counter, block.text, tokens)


# Key in ``Block.meta`` of (counter, text object, cache key) where a stage hashed a text
# for the count cache but took only an estimate (the router, above QUICK_EXACT_CHARS): the
# exact count, when a total is read, reuses the hash instead of hashing the text again.
_HASHED_KEY = "_tokens_hashed"


def remember_hash(block: Block, counter: TokenCounter, text: str, key: str) -> None:
    """Record ``counter.cache_key(text)`` for a text whose exact count is left for later."""
    block.meta[_HASHED_KEY] = (counter, text, key)


def original_tokens(block: Block, text: str, counter: TokenCounter) -> int:
    """Tokens of ``text``, the block's text before any stage replaced it: the count a
    stage took of it on the way, else counted now."""
    for key in (_ORIGINAL_KEY, _TOKENS_KEY):
        cached = block.meta.get(key)
        if cached is not None and cached[0] is counter and cached[1] is text:
            return exact(cached[2])
    hashed = block.meta.get(_HASHED_KEY)
    if hashed is not None and hashed[0] is counter and hashed[1] is text:
        n = counter.cached(hashed[2])
        return n if n is not None else counter.count_uncached(text, hashed[2])
    return counter.count(text)


def set_block_text(block: Block, text: str, tokens: int | LazyTokens, counter: TokenCounter) -> None:
    """Replace a block's text with one whose token count the caller already knows."""
    old = block.meta.get(_TOKENS_KEY)
    if old is not None and old[1] is block.text and _ORIGINAL_KEY not in block.meta:
        block.meta[_ORIGINAL_KEY] = old
    block.text = text
    block.meta[_TOKENS_KEY] = (counter, text, tokens)


def message_tokens(m: Message, counter: TokenCounter) -> int:
    """One message: its blocks plus the per-message overhead (role, separators)."""
    return MESSAGE_OVERHEAD + sum(block_tokens(b, counter) for b in m.blocks)


def conversation_tokens(conv: Conversation, counter: TokenCounter) -> int:
    """Tokens of everything the transforms can change (system, messages, tool calls)."""
    return sum(block_tokens(b, counter) for b in conv.system) + sum(message_tokens(m, counter) for m in conv.messages)


def conversation_tokens_at_most(conv: Conversation, counter: TokenCounter) -> tuple[int, bool]:
    """(an upper bound of ``conversation_tokens``, whether it is the exact figure). It
    counts nothing a stage left to be counted when read (a LazyTokens adds ``at_most``)."""
    total, exact_total = len(conv.messages) * MESSAGE_OVERHEAD, True
    for b in _all_blocks(conv):
        cached = b.meta.get(_TOKENS_KEY) if b.text is not None else None
        if cached is not None and cached[0] is counter and cached[1] is b.text and type(cached[2]) is not int:
            total += cached[2].at_most()
            exact_total = False
        else:
            total += block_tokens(b, counter)
    return total, exact_total


def _all_blocks(conv: Conversation) -> list[Block]:
    return [*conv.system, *(b for m in conv.messages for b in m.blocks)]


def tokens_at_least(conv: Conversation, counter: TokenCounter, threshold: int) -> bool:
    """Whether the conversation holds at least ``threshold`` tokens, counting long texts
    not counted yet only while the rest falls short (exact, like conversation_tokens)."""
    total = len(conv.messages) * MESSAGE_OVERHEAD
    long_texts = []
    for b in _all_blocks(conv):
        if counted_later(b, counter):
            long_texts.append(b)
        else:
            total += block_tokens(b, counter)
    for b in long_texts:
        if total >= threshold:
            break
        total += block_tokens(b, counter)
    return total >= threshold


class RequestTokens:
    """A request's totals: ``conversation_tokens`` of the incoming conversation (taken at
    construction, before any transform) and of the outgoing one.

    The long texts of the incoming conversation are not counted up front: they are kept
    as (block, text) and summed in :meth:`totals`, once the transforms ran, from the count
    the router took while their compressor worked (``original_tokens``)."""

    def __init__(self, conv: Conversation, counter: TokenCounter):
        self.counter = counter
        self._counted = len(conv.messages) * MESSAGE_OVERHEAD
        self._deferred: list[tuple[Block, str]] = []
        for b in _all_blocks(conv):
            if counted_later(b, counter):
                self._deferred.append((b, b.text))  # type: ignore[arg-type]
            else:
                self._counted += block_tokens(b, counter)

    def before(self) -> int:
        """Tokens of the incoming conversation (call after the transforms ran)."""
        return self._counted + sum(original_tokens(b, text, self.counter) for b, text in self._deferred)

    def totals(self, out: Conversation) -> tuple[int, int]:
        """(before, after): the incoming conversation's tokens and ``out``'s."""
        return self.before(), conversation_tokens(out, self.counter)
