"""Scripts and data to refit headroom's shipped models (run from the repo root)."""
