"""The adversarial suite reuses the proxy suite's loopback fake provider and proxy fixtures.

Every test here is bounded in time (pytest-timeout), so a regression that hangs the proxy
fails the test instead of stalling CI.
"""

from __future__ import annotations

import pytest

from tests.proxy.conftest import _fake_server, fake, start_proxy  # noqa: F401  (fixtures)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/adversarial/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.adversarial)
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(30))
