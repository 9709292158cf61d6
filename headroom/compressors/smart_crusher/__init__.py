"""SmartCrusher: lossless-first JSON compression with a fact-preserving keep plan."""

from .crusher import SmartCrusher
from .table import parse_table, render_table

__all__ = ["SmartCrusher", "parse_table", "render_table"]
