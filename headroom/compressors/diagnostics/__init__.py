"""Linter and compiler diagnostics: parsing by structure, compression by rule."""

from .compressor import DiagnosticsCompressor
from .parse import Diagnostic, Report, is_diagnostic_line, parse_head, parse_report

__all__ = ["Diagnostic", "DiagnosticsCompressor", "Report", "is_diagnostic_line", "parse_head", "parse_report"]
