"""What headroom does with a request — the mode names, spelled once.

- ``optimize``: compress and send the compressed request;
- ``audit``: compress to measure, send the original;
- ``simulate``: compress to measure, send nothing (client only);
- ``passthrough``: send the original untouched, measure nothing.
"""

from __future__ import annotations

from typing import Literal

OPTIMIZE = "optimize"
AUDIT = "audit"
SIMULATE = "simulate"
PASSTHROUGH = "passthrough"

ALL_MODES = (OPTIMIZE, AUDIT, SIMULATE, PASSTHROUGH)
CLIENT_MODES = (OPTIMIZE, AUDIT, SIMULATE)
PROXY_MODES = (OPTIMIZE, AUDIT, PASSTHROUGH)

ProxyMode = Literal["optimize", "audit", "passthrough"]
