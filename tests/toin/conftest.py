"""TOIN tests reuse the CCR tests' private redis-server (skipped locally without one)."""

from tests.ccr.conftest import redis_server, redis_url  # noqa: F401  (pytest fixtures)
