"""The MedQADE leaderboard Space: a Gradio UI over the library (display and calls only).

:func:`build_app` arranges the five tabs (Leaderboard, Submit, Browse, Analysis, About) over a
loaded :class:`~medqade.dataset.release.Release` and a results folder; :func:`serve` resolves the
data, pulls and mirrors the results repo on the Hub and launches it. Every number shown comes from
:mod:`medqade.scoring` or :mod:`medqade.analyses`; this package only formats and stores.

Importing :mod:`medqade.app` does not import Gradio; the names below load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["SpaceConfig", "build_app", "serve"]

_LAZY = {
    "SpaceConfig": "medqade.app.config",
    "build_app": "medqade.app.ui",
    "serve": "medqade.app.serve",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'medqade.app' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
