"""The contamination check of a judge record scored with held-out labels (issue 35).

On a release whose held-out labels were restored from the private part
(:meth:`medqade.dataset.release.Release.with_private`), every judge record gets the
``contamination`` section (:class:`~medqade.scoring.record.ContaminationCheck`): the check of
:func:`medqade.measures.contamination` on each scope the judge covers, ``core`` (the questions every
physician rated) and ``all`` (when it labels extension items), each with its own stratified
permutation test (:data:`~medqade.measures.CONTAMINATION_SPLITS` re-draws of the held-out set within
split x difficulty tier, seeded by the record's seed) and the question resamples of the record's
``core`` and ``full`` blocks, so its intervals are paired with theirs. An answer the judge did not
label or abstained on counts as a disagreement, as in those blocks. The record is flagged when the
combined p value (Bonferroni over the scopes, :func:`~medqade.measures.combined_p`) is at most
:data:`~medqade.measures.CONTAMINATION_ALPHA`; a flagged judge gets no verdict and no rank
(:func:`medqade.measures.judge_headline`, rule 4).

The physicians' side does not depend on the judge: it is computed once per release, scope, resamples
and seed (:func:`medqade.scoring.metrics.context.memo`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import (
    CONTAMINATION_ALPHA,
    CONTAMINATION_SPLITS,
    PhysicianSide,
    combined_p,
    contamination,
    holdout_strata,
    permuted_splits,
    physician_side,
)
from medqade.scoring.intake import Settings
from medqade.scoring.metrics import context
from medqade.scoring.record import ContaminationCheck, ContaminationScope

if TYPE_CHECKING:
    from medqade.dataset.release import Release

RULE: Final = (
    "judge's kappa drop from public to held-out items minus the physicians' mean drop; "
    "stratified permutation test per scope, Bonferroni over scopes"
)


def applies(release: Release) -> bool:
    """Whether ``release`` holds items out and their labels were restored (the check needs
    both sets labelled)."""
    held = np.asarray(release.held_out, dtype=bool)
    return bool(held.any()) and not bool(held.all()) and not release.withholds


def _scope_inputs(
    release: Release, scope: str, resamples: int, seed: int
) -> tuple[npt.NDArray[np.bool_], Any, npt.NDArray[np.bool_], PhysicianSide] | None:
    """(items, weights, splits, physicians' side) of ``scope``, once per release; ``None``
    when the scope has no public or no held-out item."""

    def compute() -> Any:
        items = context.mask(release, scope)
        held = np.asarray(release.held_out, dtype=bool)[items]
        if not held.any() or held.all():
            return None
        strata = holdout_strata(release.is_core, release.tier)[items]
        splits = permuted_splits(held, strata, CONTAMINATION_SPLITS, seed=seed)
        w = context.float_weights(release, scope, resamples, seed)
        side = physician_side(
            release.physician_labels[:, items],
            release.consensus[items],
            held,
            release.roster.student_ids,
            w,
            splits,
        )
        return items, w, splits, side

    key = f"contamination:{scope}:{resamples}:{seed}"
    found: tuple[npt.NDArray[np.bool_], Any, npt.NDArray[np.bool_], PhysicianSide] | None = (
        context.memo(release, key, compute)
    )
    return found


def contamination_check(
    release: Release,
    labels: npt.NDArray[np.int8],
    present: npt.NDArray[np.bool_],
    settings: Settings,
) -> ContaminationCheck | None:
    """The ``contamination`` section of a judge's ``labels`` (items, 5) with rows ``present``
    (module docstring); ``None`` unless :func:`applies`."""
    if not applies(release):
        return None
    core = context.mask(release, context.CORE)
    covered = [context.CORE] if present[core].any() else []
    if present[~core].any():
        covered.append(context.ALL)
    shown = np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)
    held = np.asarray(release.held_out, dtype=bool)
    scopes: list[ContaminationScope] = []
    for scope in covered:
        inputs = _scope_inputs(release, scope, settings.resamples, settings.seed)
        if inputs is None:
            continue
        items, w, splits, side = inputs
        found = contamination(
            shown[items],
            release.physician_labels[:, items],
            release.consensus[items],
            held[items],
            release.roster.student_ids,
            w,
            physicians=side,
            splits=splits,
        )
        scopes.append(ContaminationScope.from_json({"scope": scope, **found.to_json()}))
    if not scopes:
        return None
    p = combined_p(tuple(float("nan") if s.p_value is None else s.p_value for s in scopes))
    return ContaminationCheck.of(
        rule=RULE,
        p_value=p,
        alpha=CONTAMINATION_ALPHA,
        flagged=bool(not np.isnan(p) and p <= CONTAMINATION_ALPHA),
        n_held_out=int(held.sum()),
        scopes=tuple(scopes),
    )


__all__ = ["RULE", "applies", "contamination_check"]
