"""One call to an LLM: the IO-free steps (:mod:`.core`) and the one loop that drives them
over a transport (:mod:`.driver`)."""

from .core import Exchange, ExchangeCore, Unanswerable, retrieve_round
from .driver import (
           AsyncTransport,
           Reader,
           Transport,
           arun,
           arun_stream,
           astart,
           open_exchange,
           run,
           run_stream,
           start,
)

__all__ = ["AsyncTransport", "Exchange", "ExchangeCore", "Reader", "Transport", "Unanswerable", "arun",
           "arun_stream", "astart", "open_exchange", "retrieve_round", "run", "run_stream", "start"]
