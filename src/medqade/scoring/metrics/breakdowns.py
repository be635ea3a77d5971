"""A judge's record sections around its agreement: abstention, the confusion table, the
answers where it contradicts a unanimous physician panel, and its self and family bias
(RQ4). Each is built typed (:mod:`medqade.scoring.record.sections`) from the labels and the
measures' results; :func:`medqade.scoring.metrics.judge.judge_metrics` gathers them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from medqade import consensus, vocab
from medqade.measures import FAMILY, SELF, Target, biases
from medqade.schema import answer_id
from medqade.scoring.metrics import context
from medqade.scoring.record import Abstention, Bias, BiasTarget, Counts, Disagreements, ci

if TYPE_CHECKING:
    from medqade.dataset.release import Release

Codes = npt.NDArray[np.int8]
SUBMISSION_MEMBER: Final = "submission"
"""The submitted judge's name in an evaluator list (bias rows, ensemble panels)."""


def rate(num: npt.NDArray[np.bool_], den: npt.NDArray[np.bool_]) -> float:
    """``num.sum() / den.sum()`` (NaN when ``den`` is empty)."""
    d = int(den.sum())
    return int(num.sum()) / d if d else float("nan")


def abstention(
    labels: Codes, present: npt.NDArray[np.bool_], tier: npt.NDArray[np.int8]
) -> Abstention:
    """Abstention rates: global and per tier 1-4, over the slots with a row."""
    abstained = present & (labels == vocab.ABSTAIN_CODE)
    labelled = present & (labels != vocab.MISSING_CODE)
    substantive = present & ((labels == vocab.RICHTIG_CODE) | (labels == vocab.FALSCH_CODE))
    t = np.broadcast_to(tier[:, None], labels.shape)
    return Abstention.of(
        global_=rate(abstained, present),
        by_tier=tuple(rate(abstained & (t == k), present & (t == k)) for k in vocab.TIERS),
        n_slots=int(present.sum()),
        n_abstained=int(abstained.sum()),
        n_missing=int((present & ~labelled).sum()),
        coverage=rate(labelled, np.ones_like(present)),
        answered_share=rate(substantive, labelled),
    )


JUDGE_NAMES: Final = {
    vocab.RICHTIG_CODE: vocab.RICHTIG,
    vocab.FALSCH_CODE: vocab.FALSCH,
    vocab.ABSTAIN_CODE: vocab.KEINE_ANGABE,
    vocab.MISSING_CODE: "missing",
}
REFERENCE_NAMES: Final = {
    vocab.RICHTIG_CODE: vocab.RICHTIG,
    vocab.FALSCH_CODE: vocab.FALSCH,
    vocab.MISSING_CODE: "unresolved",
}


def confusion(labels: Codes, present: npt.NDArray[np.bool_], reference: Codes) -> Counts:
    """Counts of judge label x consensus over the slots with a row."""
    lab = labels[present]
    ref = reference[present]
    return {
        jn: {rn: int(((lab == jc) & (ref == rc)).sum()) for rc, rn in REFERENCE_NAMES.items()}
        for jc, jn in JUDGE_NAMES.items()
    }


def unanimous_panel(release: Release) -> tuple[npt.NDArray[np.bool_], Codes]:
    """Slots whose non-abstaining physicians (at least two) all agree, and their label."""

    def compute() -> tuple[npt.NDArray[np.bool_], Codes]:
        r, f = context.derived(release, "votes")
        group = consensus.unanimous(r, f, consensus.PANEL_MIN_VOTES)
        unanimous = group != vocab.MISSING_CODE
        label = np.where(unanimous, group, vocab.FALSCH_CODE).astype(np.int8)
        return unanimous, label

    value: tuple[npt.NDArray[np.bool_], Codes] = context.memo(release, "unanimous", compute)
    return value


def disagreements(
    release: Release, labels: Codes, present: npt.NDArray[np.bool_], items: npt.NDArray[np.bool_]
) -> Disagreements:
    """Answer ids (release order) where the judge contradicts a unanimous physician panel;
    held-out items counted, never listed (their number beside, only on a release with a
    hold-out)."""
    unanimous, panel = unanimous_panel(release)
    substantive = (labels == vocab.RICHTIG_CODE) | (labels == vocab.FALSCH_CODE)
    scope = present & items[:, None]
    hit = scope & unanimous & substantive & (labels != panel)
    held = np.asarray(release.held_out, dtype=bool)[:, None]
    qids = release.item_ids
    students = release.roster.student_ids
    listed = hit & ~held
    ids = [answer_id(str(qids[i]), students[s]) for i, s in zip(*np.nonzero(listed), strict=True)]
    n, n_unanimous = int(hit.sum()), int((scope & unanimous & substantive).sum())
    hidden = {"held_out_not_listed": int((hit & held).sum())} if held.any() else {}
    return Disagreements.of(
        n=n,
        n_unanimous=n_unanimous,
        rate=n / n_unanimous if n_unanimous else float("nan"),
        answer_ids=tuple(ids),
        **hidden,
    )


def _family_key(family: str | None) -> str | None:
    return None if not family else family.casefold()


def bias(
    release: Release,
    labels: Codes,
    w: npt.NDArray[np.float64] | None,
    family: str | None,
    model_id: str | None,
) -> Bias | None:
    """Self and family bias (RQ4) of a judge of ``family``, or ``None`` when no student is
    of that family. The judge is added as a tenth evaluator row and scored by
    :func:`medqade.measures.bias.biases`; ``w`` (R, items) are the RQ4 bias weights, so a
    reference evaluator gets exactly the numbers of ``medqade reproduce`` (the added row is of
    the judge's own family, so it never enters a peer mean)."""
    roster = release.roster
    fam = _family_key(family)
    families = tuple(m.family for m in roster.evaluators)
    own = next((m.family for m in roster.students if _family_key(m.family) == fam), None)
    if own is None:
        return None
    stacked = np.concatenate([release.evaluator_labels, labels[None]], axis=0)
    row = len(families)
    targets = tuple(
        Target(
            SELF if student.id == model_id else FAMILY,
            SUBMISSION_MEMBER,
            student.id,
            row,
            s,
        )
        for s, student in enumerate(roster.students)
        if student.family == own
    )
    found = biases(stacked, (*families, own), targets, w)
    return Bias.of(
        family=own,
        peers=tuple(m.id for m in roster.evaluators if m.family != own),
        targets=tuple(
            BiasTarget.of(
                student=b.student,
                kind=b.kind,
                bias=b.delta.value,
                bias_ci=ci(b.delta),
                significant=b.significant,
                n=b.n,
            )
            for b in found
        ),
    )
