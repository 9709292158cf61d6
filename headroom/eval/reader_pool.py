"""Several copies of a local reader, each asked whole questions in turn.

A small model's prompt processing on a CPU is compute-bound, and one llama.cpp thread
does more work per CPU-second than two threads that keep synchronising (SmolLM2-135M
Q4_1, the smoke suite with ``--limit 1`` on 2 shared cores: 373 CPU-s with two
one-thread readers side by side, 430 CPU-s with one two-thread reader). So on a CPU the
runner can hold ``workers`` readers that share the usable cores and hand each one whole
questions: a question's arms (original, compressed, compressed + retrieve) stay on one
reader, in that order, so the later arms reuse the prompt cache the earlier ones left.

What a question is answered does not depend on which reader got it or what that reader
answered before: the runner calls ``forget`` (when a reader has it) before a question's
first request, so that request is processed from scratch (llama.cpp's answers at
temperature 0 shift slightly with how much of a prompt came from its cache). It does
depend on llama.cpp's thread count per reader (its sums are split by thread: 10 of 39
answer texts differed between the two runs above, no score did), so the results record
``readers`` and ``reader_threads``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


def split_cores(cores: int, workers: int | None) -> tuple[int, int]:
    """(workers, threads per worker) for ``cores``: by default one single-thread reader
    per core, at most 4 (each holds its own KV cache); never more threads than cores."""
    n = max(1, min(cores, workers if workers else min(cores, 4)))
    return n, max(1, cores // n)


class ReaderPool:
    """Readers that answer side by side; :func:`members` lists them for the runner."""

    def __init__(self, members: list[Any]):
        if not members:
            raise ValueError("a reader pool needs at least one reader")
        self.members = members
        self.name = getattr(members[0], "name", "reader")

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """One request on the first reader (callers that do not schedule questions)."""
        return self.members[0].complete(body)

    def close(self) -> None:
        for m in self.members:
            m.close()


def members(endpoint: Any) -> list[Any]:
    """The readers behind ``endpoint``: a pool's members, or the endpoint itself."""
    return list(getattr(endpoint, "members", None) or [endpoint])


def map_on_readers(items: Iterable[T], readers: list[Any], fn: Callable[[T, Any], R],
                   on_done: Callable[[], None] | None = None,
                   cost: Callable[[T], float] | None = None) -> list[R]:
    """``[fn(item, reader) for item in items]`` with the items shared out among ``readers``
    (each reader busy with one item at a time), results in the items' order. ``cost``
    (an estimate) starts the dearest items first, so no reader is left with a long one
    while the others idle at the end. With one reader it is a plain loop on the calling
    thread, in the items' order."""
    items = list(items)
    if len(readers) == 1:
        out = []
        for item in items:
            out.append(fn(item, readers[0]))
            if on_done:
                on_done()
        return out
    free = list(readers)
    cond = threading.Condition()

    def one(item: T) -> R:
        with cond:
            cond.wait_for(lambda: bool(free))
            reader = free.pop()
        try:
            return fn(item, reader)
        finally:
            with cond:
                free.append(reader)
                cond.notify()
            if on_done:
                on_done()

    order = sorted(range(len(items)), key=lambda i: -cost(items[i])) if cost else list(range(len(items)))
    out: list[Any] = [None] * len(items)
    with ThreadPoolExecutor(max_workers=len(readers), thread_name_prefix="reader") as ex:
        for i, result in zip(order, ex.map(one, [items[i] for i in order])):
            out[i] = result
    return out
