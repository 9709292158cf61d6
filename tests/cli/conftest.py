from tests.ccr.conftest import redis_server  # noqa: F401 - a real redis-server for the README's Redis line
