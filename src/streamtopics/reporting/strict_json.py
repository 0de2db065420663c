"""JSON without ``Infinity`` or ``NaN``: Python's json module writes them, but they are not JSON
(``jq`` turns Infinity into 1.797e308). Non-finite numbers become null, with a reason beside."""

from __future__ import annotations

import numpy as np


def finite_json(value, path: str = "", nulled: list | None = None):
    """``value`` with every non-finite float (inf, nan, which JSON cannot hold: ``Infinity`` is
    not JSON) replaced by None; the dotted paths replaced are appended to ``nulled``."""
    if isinstance(value, dict):
        return {key: finite_json(item, f"{path}.{key}" if path else str(key), nulled)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(item, f"{path}[{i}]", nulled) for i, item in enumerate(value)]
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        if nulled is not None:
            nulled.append(path)
        return None
    return value
