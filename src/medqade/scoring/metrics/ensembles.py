"""Majority-vote ensembles with the reference evaluators (core, in-sample, the paper's rule):
the best panel of each size containing the judge vs the best without it, chosen by
macro-kappa, with the paired CI of the difference (the record's ``ensembles``)."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from medqade.measures import Estimate, ensemble_vote, macro_agreement
from medqade.scoring.metrics import context
from medqade.scoring.metrics.breakdowns import SUBMISSION_MEMBER
from medqade.scoring.record import VOTE_RULE, Ensembles, Panel, PanelSide, ci

if TYPE_CHECKING:
    from medqade.dataset.release import Release

Codes = npt.NDArray[np.int8]
ENSEMBLE_SIZES: Final = (3, 5, 7)


def best_index(kappa: npt.NDArray[np.float64]) -> int:
    """First maximum, NaN ignored (search order breaks ties, as in RQ3); -1 if all NaN."""
    if kappa.size == 0 or np.all(np.isnan(kappa)):
        return -1
    return int(np.nanargmax(kappa))


def best_panel(
    pool_labels: Codes, reference: Codes, size: int, judge: Codes | None
) -> tuple[tuple[int, ...], Codes] | None:
    """Best subset (by macro-kappa) of ``size`` members, the judge forced in when given."""
    n_pool = pool_labels.shape[0]
    k = size - 1 if judge is not None else size
    if k > n_pool:
        return None
    subsets = list(combinations(range(n_pool), k))
    extra = [] if judge is None else [judge]
    voted = np.stack([ensemble_vote(np.stack([*extra, *pool_labels[list(c)]])) for c in subsets])
    _, kappa = macro_agreement(voted, reference)
    best = best_index(kappa)
    return None if best < 0 else (subsets[best], voted[best])


def _side(members: list[str], kappa: Estimate, pa: Estimate) -> PanelSide:
    return PanelSide.of(
        members=tuple(members),
        kappa=kappa.value,
        kappa_ci=ci(kappa),
        pa=pa.value,
        pa_ci=ci(pa),
        pabak=2 * pa.value - 1,
        pabak_ci=(2 * pa.low - 1, 2 * pa.high - 1),
    )


def ensembles(
    release: Release,
    labels: Codes,
    w: npt.NDArray[np.float64] | None,
    exclude: str | None,
) -> Ensembles:
    """Best majority-vote panels with and without the judge on the core (module docstring).

    ``labels`` are the judge's core labels (core items, slots); ``w`` the core weights;
    ``exclude`` a reference evaluator id to leave out of the pool (the judge itself).
    """
    roster = release.roster
    core = context.mask(release, context.CORE)
    reference = release.consensus[core]
    pool = [e for e in roster.ensemble_pool if e != exclude]
    index = [roster.evaluator_ids.index(e) for e in pool]
    pool_labels = release.evaluator_labels[index][:, core]
    panels = []
    for size in ENSEMBLE_SIZES:
        key = f"ensemble-without:{size}:{','.join(pool)}"
        without = context.memo(
            release, key, lambda n=size: best_panel(pool_labels, reference, n, None)
        )
        best_with = best_panel(pool_labels, reference, size, labels)
        if best_with is None:
            continue
        sides = {"with": best_with, "without": without}
        chosen = {k: v for k, v in sides.items() if v is not None}
        voted = np.stack([v[1] for v in chosen.values()])
        pa, kappa = macro_agreement(voted, reference)
        reps = None if w is None else macro_agreement(voted, reference, w)
        built: dict[str, PanelSide] = {}
        for j, (side, (members, _)) in enumerate(chosen.items()):
            names = [pool[m] for m in members]
            k_est = Estimate.from_replicates(
                float(kappa[j]), None if reps is None else reps[1][:, j]
            )
            p_est = Estimate.from_replicates(float(pa[j]), None if reps is None else reps[0][:, j])
            built[side] = _side(
                [SUBMISSION_MEMBER, *names] if side == "with" else names, k_est, p_est
            )
        panel = Panel.of(size=size, with_=built.get("with"), without=built.get("without"))
        if len(chosen) == 2:
            gain = Estimate.from_replicates(
                float(kappa[0] - kappa[1]),
                None if reps is None else reps[1][:, 0] - reps[1][:, 1],
            )
            panel = panel.updated(
                kappa_gain=gain.value, kappa_gain_ci=ci(gain), helps=bool(gain.value > 0)
            )
        panels.append(panel)
    return Ensembles.of(
        split="core",
        pool=tuple(pool),
        selected_by="kappa",
        rule=VOTE_RULE,
        panels=tuple(panels),
    )
