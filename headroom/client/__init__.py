"""HeadroomClient: wrap the official OpenAI or Anthropic client (sync or async)."""

from .client import HeadroomClient
from .engine import MODES, SimulationResult

__all__ = ["MODES", "HeadroomClient", "SimulationResult"]
