"""Every number of the paper from one release: :func:`reproduce` and the :class:`Report`.

``reproduce(release)`` runs RQ1-RQ5 and the supplementary analyses with seeded bootstrap
resamples and returns a frozen :class:`Report`: ``to_dict()`` (the ``report.json`` shape, NaN as
``None``), ``to_json()``, ``tables()`` (Tables 1-4 and the supplementary tables, S4 the
physicians one by one from :mod:`medqade.analyses.panel_table`, S5 the pool when present, S6
every evaluator's verdict against the physicians from :mod:`medqade.analyses.verdicts`, S7 and
S8 the evaluators' position bias and ranking fidelity, S9 the ranking fidelity on the pool when
present, each with a Markdown and a CSV form: :mod:`~medqade.analyses.paper_tables`,
:mod:`~medqade.analyses.supplement_tables`) and ``to_markdown()``. The same release,
resamples and seed give the same numbers, and ``to_json()`` the same bytes.

Randomness: the core-item resamples of RQ1 and RQ3 are one index matrix
(:func:`~medqade.measures.seeds.question_weights` with ``seed``, the core stream), shared by
every pair, slot, evaluator and ensemble, and by judge scoring of submissions; the extension
verdicts of S6 use the all-items stream, as judge scoring does; RQ2's two contrasts and RQ4
draw from their own streams of ``seed``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from medqade import __version__, vocab
from medqade.analyses.cells import (
    Table,
)
from medqade.analyses.common import json_ready
from medqade.analyses.paper_tables import paper_tables
from medqade.analyses.rq1 import PhysicianReliability, physician_reliability
from medqade.analyses.rq2 import StudentAccuracy, student_accuracy
from medqade.analyses.rq3 import EvaluatorAlignment, evaluator_alignment
from medqade.analyses.rq4 import EvaluatorBias, evaluator_bias
from medqade.analyses.rq5 import Abstention, abstention
from medqade.analyses.supplement_tables import supplement_tables
from medqade.analyses.supplementary import Supplementary, supplementary
from medqade.analyses.verdicts import PhysicianVerdicts, physician_verdicts
from medqade.dataset.release import Release
from medqade.measures import (
    BOOTSTRAP_SEED,
    DEFAULT_MARGIN,
    STREAM_ALL,
    STREAM_BIAS,
    PanelReport,
    check_margin,
    check_seed,
    panel_report,
    physician_weights,
    question_weights,
)

SYNTHETIC_BANNER = (
    "SYNTHETIC DATA: this release was simulated (medqade.synthetic); its numbers exercise the "
    "pipeline and are not the paper's physician results."
)


@dataclass(frozen=True)
class Report:
    """All analyses of one release (see the module docstring)."""

    roster: vocab.Roster
    rq1: PhysicianReliability
    rq2: StudentAccuracy
    rq3: EvaluatorAlignment
    rq4: EvaluatorBias
    rq5: Abstention
    supplementary: Supplementary
    meta: Mapping[str, Any]
    panel: PanelReport | None = None
    pool: Any = None
    """S5, a :class:`medqade.analyses.pool_table.PoolReport` when the release has a pool."""
    verdicts: PhysicianVerdicts | None = None
    """S6, every evaluator's verdict against the physicians (:mod:`medqade.analyses.verdicts`)."""
    positions: Mapping[str, Any] | None = None
    """S7, every evaluator's :class:`~medqade.measures.position.PositionBias`."""
    fidelity: Mapping[str, Any] | None = None
    """S8, every evaluator's :class:`~medqade.measures.fidelity.RankingFidelity`."""
    pool_fidelity: Mapping[str, Any] | None = None
    """S9, every evaluator's :class:`~medqade.measures.pool_ranking.PoolFidelity` when the
    release has pool judgments."""

    @property
    def synthetic(self) -> bool:
        return bool(self.meta.get("synthetic", False))

    def to_dict(self) -> dict[str, Any]:
        """The ``report.json`` object: proportions (not percent), NaN as ``None``."""
        out: dict[str, Any] = json_ready(
            {
                "rq1": self.rq1.to_dict(),
                "rq2": self.rq2.to_dict(),
                "rq3": self.rq3.to_dict(),
                "rq4": self.rq4.to_dict(),
                "rq5": self.rq5.to_dict(),
                "supplementary": self.supplementary.to_dict(),
                **({"panel": self.panel.to_dict()} if self.panel is not None else {}),
                **({"pool": self.pool.to_dict()} if self.pool is not None else {}),
                **({"verdicts": self.verdicts.to_dict()} if self.verdicts is not None else {}),
                **(
                    {"positions": {e: p.to_json() for e, p in self.positions.items()}}
                    if self.positions
                    else {}
                ),
                **(
                    {"fidelity": {e: f.to_json() for e, f in self.fidelity.items()}}
                    if self.fidelity
                    else {}
                ),
                **(
                    {"pool_fidelity": {e: f.to_json() for e, f in self.pool_fidelity.items()}}
                    if self.pool_fidelity
                    else {}
                ),
                "meta": dict(self.meta),
            }
        )
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    def tables(self) -> tuple[Table, ...]:
        """Tables 1-4 of the paper, then S1 (accuracy by tier), S2 (bias), S3 (ensembles), S4
        (the physicians), S5 (the pool, when present), S6 (verdicts against physicians), S7
        (position bias), S8 (ranking fidelity) and S9 (ranking fidelity on the pool, when
        present)."""
        return (*paper_tables(self), *supplement_tables(self))

    def to_markdown(self) -> str:
        parts = [SYNTHETIC_BANNER + "\n"] if self.synthetic else []
        parts.extend(t.to_markdown() for t in self.tables())
        return "\n".join(parts)


def _positive(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def reproduce(
    release: Release,
    resamples: int = 1000,
    seed: int = BOOTSTRAP_SEED,
    contrast_resamples: int = 5000,
    margin: float = DEFAULT_MARGIN,
) -> Report:
    """Run every analysis of the paper on ``release`` (see the module docstring).

    ``resamples`` question resamples for RQ1, RQ3 and RQ4 CIs; ``contrast_resamples`` for the
    RQ2 between-stratum differences; ``seed`` fixes all of them; ``margin`` is the
    non-inferiority margin on kappa of the verdicts against the physicians (S6).
    """
    _positive(resamples, "resamples")
    _positive(contrast_resamples, "contrast_resamples")
    check_seed(seed)
    margin = check_margin(margin)
    n_core = int(release.is_core.sum())
    if n_core == 0:
        raise ValueError("the release has no core items; RQ1 and RQ3 need them")
    core_weights = question_weights(n_core, resamples, seed)
    bias_weights = question_weights(release.n_items, resamples, seed, STREAM_BIAS)
    all_weights = question_weights(release.n_items, resamples, seed, STREAM_ALL)
    from medqade.analyses.fidelity_table import paper_fidelity
    from medqade.analyses.position_table import paper_positions

    return Report(
        roster=release.roster,
        rq1=physician_reliability(release, core_weights),
        rq2=student_accuracy(release, contrast_resamples, seed),
        rq3=evaluator_alignment(release, core_weights),
        rq4=evaluator_bias(release, bias_weights),
        rq5=abstention(release),
        supplementary=supplementary(release),
        panel=panel_report(release, resamples, seed),
        verdicts=physician_verdicts(
            release,
            core_weights,
            all_weights,
            physician_weights(release.physician_labels.shape[0], resamples, seed),
            margin,
        ),
        positions=paper_positions(release, all_weights, seed),
        fidelity=paper_fidelity(release, all_weights),
        meta={
            "data_hash": release.data_hash,
            "resamples": resamples,
            "contrast_resamples": contrast_resamples,
            "seed": seed,
            "version": __version__,
            "synthetic": release.synthetic,
            "n_items": release.n_items,
            "n_core": n_core,
        },
    )
