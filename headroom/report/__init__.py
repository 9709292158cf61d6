"""Self-contained HTML savings report from the metrics store."""

from .html import render_report, write_report

__all__ = ["render_report", "write_report"]
