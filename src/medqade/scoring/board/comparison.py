"""Two labellers compared on the same questions: ``medqade compare`` and the Space's Compare.

Each side is resolved by :mod:`medqade.scoring.board.compare_sides` (a paper evaluator, the
physicians, a baseline or a judge row of the caller's board; never a path). Both
sides are scored against the physician consensus on the view's items with the *same* question
resamples (the seeds of :mod:`medqade.measures.seeds`), so the difference A - B of every
statistic has a paired percentile interval (:func:`medqade.measures.paired.difference`): the
macro difference equals ``kappa(A) - kappa(B)`` as ``medqade score`` and the leaderboard show
them, to the last digit. Per slot and per difficulty tier likewise; the answers on which the
two sides give different substantive labels are listed with the consensus.

Each judge side's ranking fidelity (Kendall's tau-b of the student accuracies it gives
against the physicians', :mod:`medqade.measures.fidelity`) is computed on the same items and
resamples, so two judges' taus have a paired difference.

Against ``physicians`` the judge is put in each physician's place in turn, against the same
majority of the other nine (:func:`medqade.measures.in_place.judge_in_place`): the difference
is then the verdict's ``d``, reported with its verdict (default margin) and the alternative
annotator test (``versus_physicians``). Abstentions count as disagreements throughout, as in
``score`` and the leaderboard. The physician reference exists only on the core (all ten
physicians rated it); comparing with it in the full view is refused with a message saying so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import (
    BOOTSTRAP_SEED,
    TIER,
    Agreement,
    InPlace,
    RankedBoard,
    agreement,
    breakdowns,
    dimensions,
    grouped_agreement,
    grouped_leave_one_out,
    judge_in_place,
    ranking_fidelity,
    substantive,
)
from medqade.schema import answer_id
from medqade.scoring.board.compare_results import Comparison, Difference
from medqade.scoring.board.compare_sides import (
    MAX_TOKEN,
    MIN_PREFIX,
    PHYSICIANS,
    CompareError,
    Side,
    check_token,
    resolve,
    submission_side,
)
from medqade.scoring.board.simultaneous import board_pair
from medqade.scoring.board.tables import VIEWS, board_key
from medqade.scoring.intake import JUDGE, Settings
from medqade.scoring.metrics import ALL, CORE, against_physicians, physicians_in_place, weights
from medqade.scoring.metrics import mask as context_mask
from medqade.scoring.record import RecordMeta, ScoreRecord

if TYPE_CHECKING:
    from medqade.dataset.release import Release


def _paired(
    a: Mapping[str, Agreement | None], b: Mapping[str, Agreement | None]
) -> dict[str, Difference | None]:
    """Group by group: the paired difference, ``None`` where either side has none."""
    out: dict[str, Difference | None] = {}
    for g, x in a.items():
        y = b.get(g)
        out[g] = None if x is None or y is None else Difference.of(x, y)
    return out


def _slot_agreement(agr: Agreement, name: str) -> Agreement:
    slot = agr.slots[name]
    return Agreement(kappa=slot.kappa, pa=slot.pa, n=slot.n, slots={})


def _consensus_name(code: int) -> str:
    return {vocab.RICHTIG_CODE: vocab.RICHTIG, vocab.FALSCH_CODE: vocab.FALSCH}.get(
        int(code), "unresolved"
    )


def _label_name(code: int) -> str:
    names = {
        vocab.RICHTIG_CODE: vocab.RICHTIG,
        vocab.FALSCH_CODE: vocab.FALSCH,
        vocab.ABSTAIN_CODE: vocab.KEINE_ANGABE,
    }
    return names.get(int(code), "missing")


def compare(
    release: Release,
    a: Side,
    b: Side,
    view: str = "core",
    resamples: int = 1000,
    seed: int = BOOTSTRAP_SEED,
    limit: int = 500,
    ranked: RankedBoard | None = None,
    records: Sequence[ScoreRecord] = (),
) -> Comparison:
    """Compare two sides on ``view`` (``core`` or ``full``); see the module docstring.

    ``limit`` caps the listed disagreements (their number is always complete). ``ranked``:
    the board's ranking on kappa in this view and ``records`` its rows; when both sides are
    ranked there, the comparison says whether the board separates them too
    (:attr:`Comparison.board`).
    """
    if view not in VIEWS:
        raise CompareError(f"view must be one of {', '.join(VIEWS)}, got {view[:20]!r}")
    if resamples < 1:
        raise CompareError(f"a paired comparison needs resamples >= 1, got {resamples}")
    if view == "full" and (a.is_physicians or b.is_physicians):
        raise CompareError(
            "the physician reference exists only on the core (the 200 items all ten "
            "physicians rated); compare with physicians in the core view (--view core)"
        )
    scope = CORE if view == "core" else ALL
    items = context_mask(release, scope)
    w = weights(release, scope, resamples, seed)
    slots = release.roster.student_ids
    consensus = release.consensus[items]
    tiers = release.tier[items]
    groups = {f"tier{t}": tiers == t for t in vocab.TIERS}

    def scored(side: Side) -> tuple[Agreement, dict[str, Agreement | None]]:
        # a judge's abstentions count as disagreements, as in score's core/full and the
        # leaderboard; the physicians are scored on the answers each rated (the paper's LOO)
        if side.labels is None:
            loo = physicians_in_place(release, resamples, seed).agreement
            by_tier = grouped_leave_one_out(release.physician_labels[:, items], groups, slots, w)
            return loo, by_tier
        lab = side.labels[items]
        return (
            agreement(lab, consensus, slots, w, abstain_disagrees=True),
            grouped_agreement(lab, consensus, groups, slots, w, abstain_disagrees=True),
        )

    judge_side = None
    if a.is_physicians != b.is_physicians:  # a judge against the physicians: like for like
        judge_side = b if a.is_physicians else a
    if judge_side is not None and judge_side.labels is not None:
        phys = release.physician_labels[:, items]
        lab = judge_side.labels[items]

        def in_place(mask: npt.NDArray[np.bool_] | None) -> InPlace:
            if mask is None:
                return judge_in_place(
                    lab,
                    phys,
                    slots,
                    w,
                    physicians=physicians_in_place(release, resamples, seed),
                )
            sub_w = None if w is None else w[:, mask]
            return judge_in_place(lab[mask], phys[:, mask], slots, sub_w)

        def ordered(place: InPlace) -> Difference:
            if a.is_physicians:
                return Difference.of(place.physicians, place.judge)
            return Difference.of(place.judge, place.physicians)

        place = in_place(None)
        overall = ordered(place)
        by_tier = {
            t: ordered(in_place(groups[f"tier{t}"])) if groups[f"tier{t}"].any() else None
            for t in vocab.TIERS
        }
        consensus_agreement = agreement(lab, consensus, slots, w, abstain_disagrees=True)
        found = against_physicians(
            release,
            judge_side.labels,
            np.ones(judge_side.labels.shape, dtype=bool)
            if judge_side.present is None
            else judge_side.present,
            Settings(resamples=resamples, seed=seed),
        )
        versus: dict[str, Any] | None = (found.core.to_json() if found.core else {}) | {
            "verdict": found.verdict,
            "headline": found.headline.to_json(),
            "alt_test": None if found.alt_test is None else found.alt_test.to_json(),
        }
    else:
        agr_a, tiers_a = scored(a)
        agr_b, tiers_b = scored(b)
        overall = Difference.of(agr_a, agr_b)
        by_tier = {}
        for t in vocab.TIERS:
            ta, tb = tiers_a[f"tier{t}"], tiers_b[f"tier{t}"]
            by_tier[t] = None if ta is None or tb is None else Difference.of(ta, tb)
        versus = None
        consensus_agreement = None
    parts = None
    if a.labels is not None and b.labels is not None:
        dims = dimensions(
            release.questions[items].reset_index(drop=True), tiers, release.lexical[items]
        )
        dims.pop(TIER)  # the tiers are above
        found_a, found_b = (
            breakdowns(lab[items], consensus, dims, slots, w).groups for lab in (a.labels, b.labels)
        )
        parts = {dim: _paired(found_a[dim], found_b[dim]) for dim in found_a}
    fidelity = tuple(
        None
        if side.labels is None
        else ranking_fidelity(_shown(side.labels, side.present)[items], consensus, tuple(slots), w)
        for side in (a, b)
    )
    lab_a = release.consensus if a.labels is None else a.labels
    lab_b = release.consensus if b.labels is None else b.labels
    sub_a = substantive(lab_a) >= 0
    sub_b = substantive(lab_b) >= 0
    both = sub_a & sub_b & items[:, None]
    differ = both & (lab_a != lab_b)
    listed: list[dict[str, Any]] = []
    for i, s in zip(*np.nonzero(differ), strict=True):
        if len(listed) >= limit:
            break
        listed.append(
            {
                "answer_id": answer_id(str(release.item_ids[i]), slots[s]),
                "a": _label_name(lab_a[i, s]),
                "b": _label_name(lab_b[i, s]),
                "consensus": _consensus_name(release.consensus[i, s]),
            }
        )
    return Comparison(
        a=a,
        b=b,
        view=view,
        n_items=int(items.sum()),
        resamples=resamples,
        seed=seed,
        overall=overall,
        slots={
            name: Difference.of(_slot_agreement(overall.a, name), _slot_agreement(overall.b, name))
            for name in slots
        },
        tiers=by_tier,
        disagreements=tuple(listed),
        n_disagreements=int(differ.sum()),
        n_both=int(both.sum()),
        versus_physicians=versus,
        breakdowns=parts,
        board=board_pair(
            ranked,
            _board_row(a, records, view),
            _board_row(b, records, view),
            overall.kappa,
        ),
        against_consensus=consensus_agreement,
        fidelity=(fidelity[0], fidelity[1]),
    )


def _shown(
    labels: npt.NDArray[np.int8], present: npt.NDArray[np.bool_] | None
) -> npt.NDArray[np.int8]:
    """A judge side's labels with the slots it has no row for missing."""
    if present is None:
        return labels
    return np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)


def _board_row(side: Side, records: Sequence[ScoreRecord], view: str) -> Any:
    """The board key (kappa, ``view``) of the record ``side`` names, ``None`` when none
    does (the physicians, a local file)."""
    if side.is_physicians:
        return None
    judges = [r for r in records if r.kind == JUDGE]
    if len(side.token) >= MIN_PREFIX:
        found = {str(r.id) for r in judges if str(r.id or "").startswith(side.token)}
        if len(found) == 1:
            return board_key(found.pop(), view, "kappa")
    for r in judges:
        meta = r.meta or RecordMeta()
        if meta.source != side.source or side.source not in ("paper", "baseline"):
            continue
        if meta.model_id == side.token or r.name == side.name:
            return board_key(str(r.id), view, "kappa")
    return None


__all__ = [
    "MAX_TOKEN",
    "PHYSICIANS",
    "CompareError",
    "Comparison",
    "Difference",
    "Side",
    "check_token",
    "compare",
    "resolve",
    "submission_side",
]
