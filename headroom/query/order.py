"""Questions about order: what comes right after or before a thing the question names.

In an ordered listing (an installer's ranked tags, a resolution order, a sorted table) the
answer to "which tag comes right after X" is the line next to the one naming X, which holds
none of the question's words. A compressor that keeps the named line keeps its neighbours
too when the question asks this way.
"""

from __future__ import annotations

import re

_NEIGHBOUR = re.compile(
    r"\b(?:after|before|next|following|followed|preceding|preceded|precedes|previous|prior|above|below"
    r"|succeeding|succeeds|adjacent|neighbou?rs?)\b", re.IGNORECASE)


def asks_neighbour(question: str | None) -> bool:
    """Whether the question asks what stands next to something (after, before, above ...)."""
    return bool(question) and _NEIGHBOUR.search(question) is not None
