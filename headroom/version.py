"""The package version, in the lowest floor so any module may read it without importing
the package root (which imports the pipeline and everything below it)."""

__version__ = "0.1.0"
