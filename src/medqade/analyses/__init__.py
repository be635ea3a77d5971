"""The paper's analyses (RQ1-RQ5) on a loaded :class:`~medqade.dataset.release.Release`.

Modules: :mod:`.alignment` (agreement with a reference, shared with the scorer), :mod:`.rq1`
physician reliability, :mod:`.rq2` student accuracy, :mod:`.rq3` evaluator alignment and
ensembles, :mod:`.rq4` self and family bias, :mod:`.rq5` abstention, :mod:`.supplementary`
(heatmap and risk-coverage data), :mod:`.verdicts` (the paper judges' verdicts against the
physicians, Table S6), :mod:`.report` (:func:`reproduce`, :class:`Report`, tables)
and :mod:`.figures` (matplotlib; imported only when figures are drawn).

``reproduce`` and ``Report`` are loaded on first access, so importing :mod:`.alignment` stays
light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from medqade.analyses.report import Report, reproduce

__all__ = ["Report", "reproduce"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from medqade.analyses import report

        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
